// What may follow a purchase at the network: clearing, a void, refunds. One set of rules, used by the
// scheme simulators when they act and by the API before it asks them to, so a request that cannot
// apply is refused at once (409 naming the reason) rather than sent and dead-lettered.
import { roundMoney } from "./money.ts";

export type PurchaseState = "authorized" | "cleared" | "voided";

/** A purchase as the network holds it: its state and how much of it was refunded so far. */
export interface PurchaseStanding {
  state: PurchaseState;
  amount: number;
  currency: string;
  refunded: number;
}

/** Why a follow-up cannot apply, naming the field it is about. */
export interface Refusal {
  field: string;
  reason: string;
}

/** What is left to refund, in the currency's minor unit. */
export const leftToRefund = (p: PurchaseStanding): number => roundMoney(p.amount - p.refunded, p.currency);

/** A refund of `amount` (what is left when absent), or why it cannot be made. */
export function refundOf(p: PurchaseStanding, amount: number | null): { amount: number } | { refusal: Refusal } {
  if (p.state === "voided") return { refusal: { field: "transactionId", reason: "the purchase was voided; there is nothing to refund" } };
  const left = leftToRefund(p);
  if (left <= 0) return { refusal: { field: "transactionId", reason: "the purchase is already fully refunded" } };
  const refund = amount === null ? left : roundMoney(amount, p.currency);
  if (refund <= 0) return { refusal: { field: "amount", reason: `must be more than 0 ${p.currency}` } };
  if (refund > left) {
    return { refusal: { field: "amount", reason: `refunds more than remains: ${left} ${p.currency} of ${p.amount} is left to refund` } };
  }
  return { amount: refund };
}

/** Whether a void applies: only before clearing. Voiding a voided purchase again changes nothing. */
export function voidRefusal(p: Pick<PurchaseStanding, "state">): Refusal | undefined {
  return p.state === "cleared" ? { field: "transactionId", reason: "the purchase has cleared; refund it instead of voiding it" } : undefined;
}

/** Whether clearing applies: not after a void. Clearing a cleared purchase again changes nothing. */
export function clearRefusal(p: Pick<PurchaseStanding, "state">): Refusal | undefined {
  return p.state === "voided" ? { field: "transactionId", reason: "the purchase was voided; it cannot clear" } : undefined;
}
