// The live-offer index: every offer that can still qualify a purchase, by linked location, in memory.
// It reloads when the offer index's version changes (services/index-versions.ts: triggers bump it on any
// offer or link write), so a batch of transactions costs no query beyond the batch's one version read
// instead of a round of queries per offer.
// Size: one Offer object per (offer, linked location) pair — about 1.5 KiB each, so ~150 MiB per
// 100k links (measured with `npm run bench -- pipeline`, README "Memory").
import type { Db } from "../platform/db.ts";
import type { Clock } from "../platform/clock/index.ts";
import { earliestTime } from "../platform/clock/environment.ts";
import { qualifiableOfferRows, toOffer, type Offer } from "../services/offers/index.ts";

export interface OfferIndex {
  /**
   * The offers linked to each location that may qualify its purchases, as of `version` (the offer index's
   * version the caller read). On a change it reloads with `db`: inside the caller's transaction, it sees
   * what that transaction sees.
   */
  current(db: Db, version: number, at: Pick<Clock, "now" | "offsetMs">): Promise<ReadonlyMap<string, Offer[]>>;
}

export function createOfferIndex(): OfferIndex {
  let version = -1;
  let byLocation = new Map<string, Offer[]>();

  async function reload(db: Db, at: Pick<Clock, "now" | "offsetMs">, next: number) {
    const now = at.now();
    // Offers that ended for the service time may still qualify a sandbox's purchases whose clock is behind it.
    const rows = await qualifiableOfferRows(db, await earliestTime(db, at));
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
    async current(db, next, at) {
      if (next !== version) await reload(db, at, next);
      return byLocation;
    },
  };
}
