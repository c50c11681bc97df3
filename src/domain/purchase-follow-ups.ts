// What may follow a purchase at the network: clearings (the whole amount at once, part of it, or several
// up to it), a void, refunds. One set of rules, used by the
// scheme simulators when they act and by the API before it asks them to, so a request that cannot
// apply is refused at once (409 naming the reason) rather than sent and dead-lettered.
import { roundMoney } from "./money.ts";

export type PurchaseState = "authorized" | "cleared" | "voided";

/**
 * A purchase as the network holds it: its state, how much of it was refunded and how much cleared so far.
 * `authorized` lasts until clearings add up to the amount (or the network stops clearing it).
 */
export interface PurchaseStanding {
  state: PurchaseState;
  amount: number;
  currency: string;
  refunded: number;
  /** What its clearings came to so far (0 when absent). */
  cleared?: number;
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

/** Whether a void applies: only before any clearing. Voiding a voided purchase again changes nothing. */
export function voidRefusal(p: Pick<PurchaseStanding, "state" | "cleared">): Refusal | undefined {
  return p.state === "cleared" || (p.cleared ?? 0) > 0
    ? { field: "transactionId", reason: "the purchase has cleared; refund it instead of voiding it" }
    : undefined;
}

/** What is left to clear of an authorisation, in the currency's minor unit (0 once cleared or voided). */
export const leftToClear = (p: PurchaseStanding): number =>
  p.state === "authorized" ? Math.max(roundMoney(p.amount - (p.cleared ?? 0), p.currency), 0) : 0;

/**
 * A clearing as the networks make it: `amount` of the authorisation (what is left when absent). `whole`:
 * the one clearing of the whole amount, a stage of the purchase's own transaction; any other clearing (part
 * of the amount, or after a part) is a transaction of its own. `last`: nothing is left to clear after it.
 */
export type Clearing = { amount: number; whole: boolean; last: boolean };

/**
 * The clearing of `amount` (what is left when absent), `{ done: true }` when nothing is left and no amount
 * was asked for (clearing a cleared purchase again changes nothing), or why it cannot be made.
 */
export function clearingOf(p: PurchaseStanding, amount: number | null): Clearing | { done: true } | { refusal: Refusal } {
  if (p.state === "voided") return { refusal: { field: "transactionId", reason: "the purchase was voided; it cannot clear" } };
  const left = leftToClear(p);
  if (left <= 0) {
    return amount === null ? { done: true } : { refusal: { field: "transactionId", reason: "the purchase is already cleared in full" } };
  }
  const clearing = amount === null ? left : roundMoney(amount, p.currency);
  if (clearing <= 0) return { refusal: { field: "amount", reason: `must be more than 0 ${p.currency}` } };
  if (clearing > left) {
    return { refusal: { field: "amount", reason: `clears more than remains: ${left} ${p.currency} of ${p.amount} is left to clear` } };
  }
  return { amount: clearing, whole: (p.cleared ?? 0) === 0 && clearing === p.amount, last: clearing === left };
}
