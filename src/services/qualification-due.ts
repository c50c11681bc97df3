// Return periods: a purchase whose offer has one qualifies once the period has passed on the service
// clock, unless it was refunded in full meanwhile. This is the due work that finishes it.
import type { Db } from "./db.ts";
import { refundedOf, type TransactionRow } from "./transactions.ts";
import { recordQualifiedTransaction } from "./offer-activations.ts";
import { emitEvents } from "./publisher-transactions.ts";

export async function runQualificationsDue(db: Db, now: Date, batch = 200): Promise<number> {
  const today = now.toISOString().slice(0, 10);
  let done = 0;
  for (;;) {
    const finished = await db.tx(async (tx) => {
      const rows = await tx.query<TransactionRow>(
        `select * from transactions where qualification_due is not null and qualification_due <= $1::date
         order by qualification_due, id limit $2 for update skip locked`,
        [today, batch],
      );
      for (const row of rows) await finish(tx, row, now);
      return rows.length;
    });
    done += finished;
    if (finished < batch) return done;
  }
}

async function finish(db: Db, row: TransactionRow, now: Date) {
  const refunded = await refundedOf(db, row.id);
  const fullyRefunded = refunded >= row.amount;
  const offer = fullyRefunded
    ? { ...row.offer, cashback: 0, performanceFee: 0, message: ["The purchase was refunded within the return period."] }
    : { ...row.offer, qualified: true, message: [] };
  const [updated] = await db.query<TransactionRow>(
    "update transactions set offer = $2::jsonb, qualification_due = null, updated = $3 where id = $1 returning *",
    [row.id, JSON.stringify(offer), now],
  );
  if (fullyRefunded || !offer.id) return;
  const [activation] = await db.query<{ activation_enabled: boolean }>("select activation_enabled from offers where id = $1", [offer.id]);
  if (activation?.activation_enabled && row.card_id) await recordQualifiedTransaction(db, offer.id, row.card_id, now);
  const names = [...(row.auth ? ["transaction.auth.qualified"] : []), ...(row.cleared ? ["transaction.clearing.qualified"] : [])];
  await emitEvents(db, updated!, names, now);
}
