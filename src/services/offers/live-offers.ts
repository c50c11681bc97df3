// The qualifier's read of the offers: every offer that can still qualify a purchase, for its live-offer index.
import type { Db } from "../../platform/db.ts";
import type { OfferRow } from "./offer-record.ts";

/**
 * Every offer that can still qualify a purchase, once per linked location: accepted (or needing no
 * approval) and not ended more than a day before `now` (a purchase's local time can trail service time).
 */
export async function qualifiableOfferRows(db: Db, now: Date): Promise<(OfferRow & { location_id: string })[]> {
  return db.query(
    `select o.*, ol.location_id from offer_records o join offer_locations ol on ol.offer_id = o.id
     where (o.end_at is null or o.end_at > $1::timestamptz - interval '1 day')
       and (o.approval is null or o.approval = 'accepted')`,
    [now],
  );
}
