// The simulated brands' answer to live consent requests: a brand approves once its simulated delay
// (CONSENT_DELAY_MS in src/services/brands.ts) has passed on the service clock.
import type { Db } from "../services/db.ts";

/** Approves every requested consent that fell due by `now`; returns how many it approved. */
export async function approveDueBrands(db: Db, now: Date): Promise<number> {
  // `updated` is the moment the brand answered on service time, not when this sweep ran.
  const rows = await db.query(
    `update brands set consent = 'approved', updated = consent_due, consent_due = null
     where consent = 'requested' and consent_due <= $1 returning id`,
    [now],
  );
  return rows.length;
}

