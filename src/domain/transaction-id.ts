// A transaction's id follows from the network's key for it, so the API can name a test transaction
// before the qualifier has recorded it, and a redelivered message finds the same row.
import { createHash } from "node:crypto";

export type TransactionKind = "purchase" | "refund";

/** A UUID (version 8, name-based) from the scheme, the kind and the scheme's key. */
export function transactionIdFor(scheme: string, kind: TransactionKind, key: string): string {
  const hex = createHash("sha256").update(`${scheme}\u0000${kind}\u0000${key}`).digest("hex");
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
