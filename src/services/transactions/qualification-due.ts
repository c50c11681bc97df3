// Return periods: a purchase whose offer has one qualifies once the period has passed on the service
// clock of its environment, unless it was refunded in full meanwhile. This is the due work that finishes it:
// the purchase's `.qualified` events, and its partial refunds' `transaction.refund.qualified` (the award
// they reverse is earned only now).
import type { DueTime } from "../../platform/clock/environment.ts";
import type { Db } from "../../platform/db.ts";
import { refundedAmount } from "./read.ts";
import type { TransactionRow } from "./transactions.ts";
import { emitStageEvents, lockQualificationsDue, qualifyRefundsOf, settleQualification } from "./write.ts";
import { recordQualifiedTransaction } from "../offers/index.ts";

export async function runQualificationsDue(db: Db, at: DueTime, batch = 200): Promise<number> {
  let done = 0;
  for (;;) {
    const finished = await db.tx(async (tx) => {
      const rows = await lockQualificationsDue(tx, at, batch);
      for (const row of rows) await finish(tx, row, row.env_now);
      return rows.length;
    });
    done += finished;
    if (finished < batch) return done;
  }
}

async function finish(db: Db, row: TransactionRow, now: Date) {
  const fullyRefunded = (await refundedAmount(db, row.id)) >= row.amount;
  const offer = fullyRefunded
    ? { ...row.offer, cashback: 0, performanceFee: 0, message: ["The purchase was refunded within the return period."] }
    : { ...row.offer, qualified: true, message: [] };
  const updated = await settleQualification(db, row.id, offer, now);
  if (fullyRefunded || !offer.id) return;
  // Counted only where the card has an activation of the offer (an activation offer's), once per purchase:
  // a clearing of its own (auth_id) belongs to a purchase counted at its authorisation.
  if (row.card_id && !row.auth_id) await recordQualifiedTransaction(db, offer.id, row.card_id, now);
  const names = [...(row.auth ? ["transaction.auth.qualified"] : []), ...(row.cleared ? ["transaction.clearing.qualified"] : [])];
  await emitStageEvents(db, updated, names, now);
  for (const refund of await qualifyRefundsOf(db, row.id, now)) await emitStageEvents(db, refund, ["transaction.refund.qualified"], now);
}
