// The live-offer index: every offer that can still qualify a purchase, by linked location, in memory.
// It reloads when the offer_index_version row changes (triggers bump it on any offer or link write),
// so a batch of transactions costs one tiny query for freshness instead of a round of queries per offer.
// Size: one Offer object per (offer, linked location) pair — about 1.5 KiB each, so ~150 MiB per
// 100k links (measured with `npm run bench -- pipeline`, README "Memory").
import type { Db } from "../services/db.ts";
import { toOffer, type Offer, type OfferRow } from "../services/offers.ts";

export interface OfferIndex {
  /**
   * The offers linked to each location that may qualify its purchases, current as of this call. `db`
   * is the handle to read with: inside the caller's transaction, it sees what that transaction sees.
   */
  current(db: Db, now: Date): Promise<ReadonlyMap<string, Offer[]>>;
}

export function createOfferIndex(): OfferIndex {
  let version = -1;
  let byLocation = new Map<string, Offer[]>();

  async function reload(db: Db, now: Date, next: number) {
    // Expired offers stay a day past their end: a purchase's local time can trail service time.
    const rows = await db.query<OfferRow & { location_id: string }>(
      `select o.*, ol.location_id from offer_records o join offer_locations ol on ol.offer_id = o.id
       where (o.end_at is null or o.end_at > $1::timestamptz - interval '1 day')
         and (o.approval is null or o.approval = 'accepted')`,
      [now],
    );
    // One Offer object per offer, shared by every location it is linked to.
    const offers = new Map<string, Offer>();
    const map = new Map<string, Offer[]>();
    for (const row of rows) {
      let offer = offers.get(row.id);
      if (!offer) offers.set(row.id, (offer = toOffer(row, now)));
      const list = map.get(row.location_id) ?? [];
      list.push(offer);
      map.set(row.location_id, list);
    }
    byLocation = map;
    version = next;
  }

  return {
    async current(db, now) {
      const [row] = await db.query<{ version: number }>("select version from offer_index_version");
      if (row!.version !== version) await reload(db, now, row!.version);
      return byLocation;
    },
  };
}
