// One message on its way through the qualifier's steps (batch.ts), what a step says of it, and the ids of
// the transactions it names: what the runner, the resolve step and the decide step (decide.ts) share.
import type { Scheme } from "../platform/bus/messages.ts";
import { clearingTransactionIdFor, transactionIdFor } from "../domain/transaction-id.ts";
import { networkKey } from "../domain/mid-insights.ts";
import type { NetworkTransaction, TransactionPlace } from "../services/transactions/index.ts";
import type { Offer } from "../services/offers/index.ts";
import type { MidKey } from "../services/mid-insights/index.ts";

export type Outcome =
  | { kind: "recorded"; transactionId: string; events: string[] }
  | { kind: "duplicate" }
  | { kind: "dropped"; reason: string };

/** What the batch did with one message: an outcome, or a reason to dead-letter it. */
export type MessageResult = Outcome | { kind: "dead-letter"; reason: string };

export interface RawMessage {
  scheme: Scheme;
  value: unknown;
}

/** One message on its way through the steps; `result` is set once a step drops or dead-letters it. */
export interface Item {
  /** The network's message as received (kept as its stage's native message); absent for a submission. */
  raw?: RawMessage;
  tx: NetworkTransaction;
  /** A publisher's submission: decided against its one offer, recorded at the offer's brand. */
  submitted?: { offer: Offer; place: TransactionPlace };
  result?: MessageResult;
}

/** A step's word on one item: it goes on, leaves the batch with an outcome, or goes to the dead-letter topic. */
export type Verdict = { kind: "ok" } | { kind: "drop"; outcome: Outcome } | { kind: "dead-letter"; reason: string };
export const OK: Verdict = { kind: "ok" };
export const drop = (reason: string): Verdict => ({ kind: "drop", outcome: { kind: "dropped", reason } });
export const DUPLICATE: Verdict = { kind: "drop", outcome: { kind: "duplicate" } };

export const purchaseIdOf = (tx: NetworkTransaction) => transactionIdFor(tx.scheme, "purchase", tx.purchaseKey);
export const originalIdOf = (tx: NetworkTransaction) => (tx.originalKey ? transactionIdFor(tx.scheme, "purchase", tx.originalKey) : null);
export const refundIdOf = (tx: NetworkTransaction) => transactionIdFor(tx.scheme, "refund", tx.purchaseKey);
export const clearingIdOf = (tx: NetworkTransaction) => clearingTransactionIdFor(tx.scheme, tx.purchaseKey, tx.clearingKey ?? tx.messageId);
export const midKeyFor = (programId: string, tx: NetworkTransaction): MidKey => ({ programId, scheme: tx.scheme, networkKey: networkKey(tx.scheme, tx.merchant) });
