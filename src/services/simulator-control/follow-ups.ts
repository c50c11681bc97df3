// The follow-ups of a test purchase: its clearing, void, refund, incremental authorisation and expiry, each sent
// through the card's scheme simulator once the follow-up rules say it applies, then a short wait for the qualifier
// to record it.
import type { Ctx } from "../../platform/context.ts";
import { DomainError, invalid, notFound } from "../../domain/errors.ts";
import type { Db } from "../../platform/db.ts";
import { clearingOf, expiryOf, incrementOf, refundOf, voidRefusal, type PurchaseStanding, type Refusal } from "../../domain/purchase-follow-ups.ts";
import type { Scheme } from "../../platform/bus/messages.ts";
import { clearingTransactionIdFor, transactionIdFor } from "../../domain/transaction-id.ts";
import { refundedAmounts, toTransaction, type Transaction, transactionRows, type TransactionRow } from "../transactions/index.ts";
import { groupCommit, perHandle } from "../../platform/group-commit.ts";
import { type Deps, publishWithin, requireTestKey, type Sent, waitFor } from "./test-transactions.ts";

interface FollowUpFacts {
  row: TransactionRow | undefined;
  purchase: { account_id: string; scheme: Scheme; card_id: string; purchase_id: string; environment: string | null } | undefined;
  refunded: number;
}

/**
 * What clears, voids and refunds that arrive together need, read in one round: their purchases as
 * recorded, as sent through POST /transactions/test, and how much of each was refunded.
 */
const followUpFacts = perHandle((db: Db) =>
  groupCommit<string, FollowUpFacts>(async (ids) => {
    const unique = [...new Set(ids)];
    const [rows, purchases, refunded] = await Promise.all([
      transactionRows(db, unique),
      db.query<FollowUpFacts["purchase"] & { transaction_id: string }>(
        `select p.transaction_id, p.account_id, p.scheme, p.card_id, p.purchase_id, sandbox_of(p.account_id) as environment
         from test_purchases p where p.transaction_id = any($1::uuid[])`,
        [unique],
      ),
      refundedAmounts(db, unique),
    ]);
    const rowById = new Map(rows.map((r) => [r.id, r]));
    const purchaseById = new Map(purchases.map((p) => [p.transaction_id, p]));
    return ids.map((id) => ({ ok: { row: rowById.get(id), purchase: purchaseById.get(id), refunded: refunded.get(id) ?? 0 } }));
  }),
);

/** The test purchase a follow-up names, as the network's messages have told the service of it. */
async function testPurchaseOf(ctx: Ctx, transactionId: string) {
  const { row, purchase, refunded } = await followUpFacts(ctx.db)(transactionId.toLowerCase());
  // Another account's or environment's transaction is, to this caller, none.
  if (!row || row.account_id !== ctx.accountId || row.live !== ctx.live) throw notFound("transaction", transactionId);
  const transaction = toTransaction(row);
  requireTestKey(ctx);
  if (!purchase || purchase.account_id !== ctx.accountId || transaction.type !== "purchase") {
    throw invalid("transactionId", "only purchases made with POST /transactions/test can be incremented, cleared, voided, expired or refunded here");
  }
  return { transaction, refunded, ref: { scheme: purchase.scheme, cardId: purchase.card_id, purchaseId: purchase.purchase_id, environment: purchase.environment } };
}

/** The purchase as the follow-up rules see it, from its record and its refunds. */
const standingOf = (transaction: Transaction, refunded: number): PurchaseStanding => ({
  state: transaction.voided ? "voided" : transaction.expired ? "expired" : transaction.cleared ? "cleared" : "authorized",
  amount: transaction.amount,
  currency: transaction.currency,
  refunded,
  cleared: transaction.clearedAmount,
});

/** The 409 of a follow-up that cannot apply to the purchase as it stands, naming the field and why. */
const conflict = (refusal: Refusal) => new DomainError("conflict", `${refusal.field}: ${refusal.reason}`);

/** Refused with 409 when `refusalOf` says the follow-up cannot apply to the purchase as it stands. */
function requireApplies(transaction: Transaction, refunded: number, refusalOf: (p: PurchaseStanding) => Refusal | undefined) {
  const refusal = refusalOf(standingOf(transaction, refunded));
  if (refusal) throw conflict(refusal);
}

/**
 * Clears `amount` of a test purchase (what is left when absent; more than it by up to the tip bound) now. The
 * whole amount at once is the purchase's own clearing stage (the answer is the purchase); part of it, more
 * than it, or what is left after a part, is a clearing of its own, a new transaction naming the purchase
 * (`authTransactionId`), which is the answer. `duplicate`: the network sends the clearing twice.
 */
export async function clearTestPurchase({ ctx, simulators, waitMs }: Deps, transactionId: string, amount?: number, duplicate?: boolean): Promise<Sent> {
  const { transaction, refunded, ref } = await testPurchaseOf(ctx, transactionId);
  const decided = clearingOf(standingOf(transaction, refunded), amount ?? null);
  if ("done" in decided) return { id: transactionId, transaction };
  if ("refusal" in decided) throw conflict(decided.refusal);
  const receipt = await publishWithin(
    simulators.clear({ ...ref, ...(decided.whole ? {} : { amount: decided.amount }), ...(duplicate ? { duplicate: true } : {}) }),
  );
  if (decided.whole) return { id: transactionId, transaction: await waitFor(ctx, transactionId, waitMs, (t) => t.cleared) };
  const id = clearingTransactionIdFor(ref.scheme, receipt.transactionId, receipt.clearingKey!);
  return { id, transaction: await waitFor(ctx, id, waitMs, () => true), created: true };
}

export async function voidTestPurchase({ ctx, simulators, waitMs }: Deps, transactionId: string): Promise<Sent> {
  const { transaction, refunded, ref } = await testPurchaseOf(ctx, transactionId);
  if (transaction.voided) return { id: transactionId, transaction };
  requireApplies(transaction, refunded, voidRefusal);
  await publishWithin(simulators.void(ref));
  return { id: transactionId, transaction: await waitFor(ctx, transactionId, waitMs, (t) => t.voided) };
}

export async function refundTestPurchase({ ctx, simulators, waitMs }: Deps, transactionId: string, amount?: number): Promise<Sent> {
  const { transaction, refunded, ref } = await testPurchaseOf(ctx, transactionId);
  requireApplies(transaction, refunded, (p) => {
    const decided = refundOf(p, amount ?? null);
    return "refusal" in decided ? decided.refusal : undefined;
  });
  const receipt = await publishWithin(simulators.refund({ ...ref, ...(amount !== undefined ? { amount } : {}) }));
  const id = transactionIdFor(ref.scheme, "refund", receipt.transactionId);
  return { id, transaction: await waitFor(ctx, id, waitMs, () => true) };
}

/**
 * An incremental authorisation of a test purchase: `amount` more authorised, before it clears. The answer
 * is the purchase, once recorded with its new amount (decided again on it).
 */
export async function incrementTestPurchase({ ctx, simulators, waitMs }: Deps, transactionId: string, amount: number): Promise<Sent> {
  const { transaction, refunded, ref } = await testPurchaseOf(ctx, transactionId);
  const decided = incrementOf(standingOf(transaction, refunded), amount);
  if ("refusal" in decided) throw conflict(decided.refusal);
  await publishWithin(simulators.increment({ ...ref, amount: decided.amount }));
  return { id: transactionId, transaction: await waitFor(ctx, transactionId, waitMs, (t) => t.amount >= decided.total) };
}

/**
 * The network withdraws a test purchase's authorisation now, as it does once its expiry days pass uncleared.
 * The answer is the purchase, once recorded as expired.
 */
export async function expireTestPurchase({ ctx, simulators, waitMs }: Deps, transactionId: string): Promise<Sent> {
  const { transaction, refunded, ref } = await testPurchaseOf(ctx, transactionId);
  if (transaction.expired) return { id: transactionId, transaction };
  const decided = expiryOf(standingOf(transaction, refunded));
  if ("refusal" in decided) throw conflict(decided.refusal);
  await publishWithin(simulators.expire(ref));
  return { id: transactionId, transaction: await waitFor(ctx, transactionId, waitMs, (t) => t.expired) };
}
