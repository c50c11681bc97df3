// The marketplace's due work: the simulated brands' answers to adoptions, and the announcement of adopted
// offers gone live, each on its environment's time.
import { dueIn, dueParams, envNowSql, type DueTime } from "../../platform/clock/environment.ts";
import type { Db } from "../../platform/db.ts";
import { enqueueEvents } from "../../platform/outbox.ts";
import { offerEvent, statusSql, toOffer, type OfferRow } from "./offer-record.ts";

/** The simulated brands' answers to adoptions: gives every adoption whose brand answer fell due in its environment by `at` that answer; returns how many it decided. */
export async function runMarketplaceDue(db: Db, at: DueTime): Promise<number> {
  // `updated` is the moment the brand answered on its environment's time, not when this sweep ran.
  const rows = await db.query(
    `update offers set approval = case approval_decision when 'accept' then 'accepted' else 'declined' end,
       accepted = (approval_decision = 'accept'), updated = approval_due
     where approval = 'pending' and ${dueIn("approval_due", "account_id", 1)} returning id`,
    dueParams(at),
  );
  return rows.length;
}

/**
 * Announces adopted marketplace offers that have gone live (their brand accepted them, a location is linked
 * or they need none, their startDate came): one `marketplace.offer.live` each, once per offer whatever runs
 * twice (marketplace_offer_live keeps who was told). `now` is each row's time as SQL; `where` narrows the
 * offers; returns how many were announced.
 */
async function announceLive(db: Db, now: string, where: string, params: unknown[]): Promise<number> {
  return db.tx(async (tx) => {
    const rows = await tx.query<OfferRow & { announced: Date }>(
      `with live as (
         select o.id, ${now} as at from offer_records o
         where o.marketplace_offer_id is not null and ${where}
           and not exists (select 1 from marketplace_offer_live a where a.offer_id = o.id)
           and ${statusSql(now)} = 'live'
       ),
       told as (insert into marketplace_offer_live (offer_id, announced) select id, at from live on conflict do nothing returning offer_id, announced)
       select o.*, told.announced from offer_records o join told on told.offer_id = o.id`,
      params,
    );
    await enqueueEvents(
      tx,
      rows.map(({ announced, ...row }) => ({ ...offerEvent(row, "marketplace.offer.live", toOffer(row, announced)), created: announced })),
    );
    return rows.length;
  });
}

/** Due work: the adopted marketplace offers gone live by their environment's time (a startDate reached, a brand's answer). */
export const announceLiveMarketplaceOffers = (db: Db, at: DueTime): Promise<number> =>
  announceLive(db, envNowSql("o.account_id", 1), "o.start_at <= $3", dueParams(at));

/** One adopted offer, at once when it is live at `now` (a test brand answers its adoption at once). */
export const announceIfLive = (db: Db, offerId: string, now: Date): Promise<number> => announceLive(db, "$1::timestamptz", "o.id = $2", [now, offerId]);
