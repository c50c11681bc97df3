// Waiting for a transaction the qualifier records (a test purchase, its clearing, void or refund): every
// request of this process that waits is answered by one query a tick over all the ids waited for, not by a
// query of its own every tick, so the database's load stays one statement a tick however many requests wait
// (a query per waiting request would grow it with the very load that makes the waits longer).
import type { Db } from "../../platform/db.ts";
import type { Ctx } from "../../platform/context.ts";
import { toTransaction, type Transaction, type TransactionRow } from "./transactions.ts";

/** How often the waiting ids are looked up, in real milliseconds. */
const TICK_MS = 20;

interface Lookup {
  id: string;
  accountId: string;
  live: boolean;
  resolve: (t: Transaction | undefined) => void;
  reject: (err: unknown) => void;
}

interface Finder {
  pending: Lookup[];
  timer: NodeJS.Timeout | undefined;
}

const finders = new WeakMap<Db, Finder>();

/** The transactions of these ids, of any account: the caller checks whose each one is. */
export function transactionRows(db: Db, ids: string[]): Promise<TransactionRow[]> {
  return db.query<TransactionRow>("select * from transactions where id = any($1::uuid[])", [ids]);
}

async function flush(db: Db, finder: Finder): Promise<void> {
  const batch = finder.pending;
  finder.pending = [];
  try {
    const rows = await transactionRows(db, [...new Set(batch.map((l) => l.id))]);
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const l of batch) {
      const row = byId.get(l.id);
      // Another account's or environment's transaction is, to this caller, none.
      l.resolve(row && row.account_id === l.accountId && row.live === l.live ? toTransaction(row) : undefined);
    }
  } catch (err) {
    for (const l of batch) l.reject(err);
  } finally {
    finder.timer = undefined;
    if (finder.pending.length > 0) schedule(db, finder);
  }
}

function schedule(db: Db, finder: Finder): void {
  finder.timer ??= setTimeout(() => void flush(db, finder), TICK_MS);
}

/** The transaction as of the next tick's look-up, or undefined when the caller's account has none of that id. */
export function findAtNextTick(ctx: Pick<Ctx, "db" | "accountId" | "live">, id: string): Promise<Transaction | undefined> {
  let finder = finders.get(ctx.db);
  if (!finder) finders.set(ctx.db, (finder = { pending: [], timer: undefined }));
  const f = finder;
  return new Promise((resolve, reject) => {
    f.pending.push({ id, accountId: ctx.accountId, live: ctx.live, resolve, reject });
    schedule(ctx.db, f);
  });
}
