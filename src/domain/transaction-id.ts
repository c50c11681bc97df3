// A transaction's id follows from the network's key for it, so the API can name a test transaction
// before the qualifier has recorded it, and a redelivered message finds the same row.
import { createHash } from "node:crypto";

export type TransactionKind = "purchase" | "refund" | "clearing";

/** A UUID (version 8, name-based) from the scheme, the kind and the scheme's key. */
export function transactionIdFor(scheme: string, kind: TransactionKind, key: string): string {
  const hex = createHash("sha256").update(`${scheme}\u0000${kind}\u0000${key}`).digest("hex");
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * What tells one clearing of an authorisation from another, and what a clearing the network sends again
 * repeats: Mastercard's transaction sequence number (clearing only), else the clearing's reference (Visa's
 * acquirer reference number, Amex's ROC id), else — in messages from before the networks sent one — the
 * message's id (Visa and Amex send one settlement or submission per clearing).
 */
export const clearingKeyOf = (m: { messageId: string; sequenceNumber: string | null; reference?: string | null }): string =>
  m.sequenceNumber ?? m.reference ?? m.messageId;

/** The id of a clearing that is a transaction of its own (part of an authorisation, or one of several). */
export const clearingTransactionIdFor = (scheme: string, purchaseKey: string, clearingKey: string): string =>
  transactionIdFor(scheme, "clearing", `${purchaseKey}\u0000${clearingKey}`);
