// What may follow a purchase at the network: increments of its authorisation, clearings (the whole amount
// at once, part of it, several up to it, or more than it by a tip), a void, the authorisation's expiry,
// refunds. One set of rules, used by the scheme simulators when they act and by the API before it asks them
// to, so a request that cannot apply is refused at once (409 naming the reason) rather than sent and
// dead-lettered.
import { roundMoney } from "./money.ts";
import { DAY_MS } from "./time-units.ts";

/** `expired`: the network withdrew the authorisation, left (partly) uncleared for AUTH_EXPIRY_DAYS. */
export type PurchaseState = "authorized" | "cleared" | "voided" | "expired";

/**
 * How far the clearings of an authorisation may go above its authorised amount (increments included): 20 %
 * of it, the tolerance networks give a restaurant's or a taxi's tip (and a fuel pump's final amount).
 */
export const TIP_BOUND = 0.2;

/** The days of its environment's clock an authorisation left uncleared lasts before the network withdraws it, by default. */
export const AUTH_EXPIRY_DAYS = 7;
/** The fewest and the most days an authorisation may be given before it expires. */
export const AUTH_EXPIRY_DAYS_RANGE = { min: 1, max: 30 } as const;

/**
 * A purchase as the network holds it: its state, how much of it was refunded and how much cleared so far.
 * `authorized` lasts until clearings add up to the amount (or the network stops clearing it); `amount` is
 * what is authorised, increments included.
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
  if (p.state === "expired" && (p.cleared ?? 0) === 0) {
    return { refusal: { field: "transactionId", reason: "the authorisation expired uncleared; there is nothing to refund" } };
  }
  const left = leftToRefund(p);
  if (left <= 0) return { refusal: { field: "transactionId", reason: "the purchase is already fully refunded" } };
  const refund = amount === null ? left : roundMoney(amount, p.currency);
  if (refund <= 0) return { refusal: { field: "amount", reason: `must be more than 0 ${p.currency}` } };
  if (refund > left) {
    return { refusal: { field: "amount", reason: `refunds more than remains: ${left} ${p.currency} of ${p.amount} is left to refund` } };
  }
  return { amount: refund };
}

/** Whether a void applies: only before any clearing, and before the authorisation expired. Voiding a voided purchase again changes nothing. */
export function voidRefusal(p: Pick<PurchaseStanding, "state" | "cleared">): Refusal | undefined {
  if (p.state === "cleared" || (p.cleared ?? 0) > 0) return { field: "transactionId", reason: "the purchase has cleared; refund it instead of voiding it" };
  if (p.state === "expired") return { field: "transactionId", reason: "the authorisation expired; there is nothing left to void" };
  return undefined;
}

/** What is left to clear of an authorisation, in the currency's minor unit (0 once cleared, voided or expired). */
export const leftToClear = (p: PurchaseStanding): number =>
  p.state === "authorized" ? Math.max(roundMoney(p.amount - (p.cleared ?? 0), p.currency), 0) : 0;

/** The most the next clearing may take: what is left, plus the tip the bound allows above the authorised amount. */
export const mostToClear = (p: PurchaseStanding): number =>
  p.state === "authorized" ? Math.max(roundMoney(p.amount * (1 + TIP_BOUND) - (p.cleared ?? 0), p.currency), 0) : 0;

/**
 * A clearing as the networks make it: `amount` of the authorisation (what is left when absent), up to the
 * tip bound above it. `whole`: the one clearing of exactly the whole amount, a stage of the purchase's own
 * transaction; any other clearing (part of the amount, more than it, or after a part) is a transaction of
 * its own. `last`: nothing is left to clear after it (the clearings reached the authorised amount).
 */
export type Clearing = { amount: number; whole: boolean; last: boolean };

const whyNotClearing = (p: PurchaseStanding): Refusal | undefined =>
  p.state === "voided"
    ? { field: "transactionId", reason: "the purchase was voided; it cannot clear" }
    : p.state === "expired"
      ? { field: "transactionId", reason: "the authorisation expired; the network withdrew what was left of it, so it cannot clear" }
      : undefined;

/**
 * The clearing of `amount` (what is left when absent), `{ done: true }` when nothing is left and no amount
 * was asked for (clearing a cleared purchase again changes nothing), or why it cannot be made.
 */
export function clearingOf(p: PurchaseStanding, amount: number | null): Clearing | { done: true } | { refusal: Refusal } {
  const refusal = whyNotClearing(p);
  if (refusal) return { refusal };
  const left = leftToClear(p);
  if (left <= 0) {
    return amount === null ? { done: true } : { refusal: { field: "transactionId", reason: "the purchase is already cleared in full" } };
  }
  const clearing = amount === null ? left : roundMoney(amount, p.currency);
  if (clearing <= 0) return { refusal: { field: "amount", reason: `must be more than 0 ${p.currency}` } };
  const most = mostToClear(p);
  if (clearing > most) {
    return {
      refusal: {
        field: "amount",
        reason:
          `clears more than the authorisation allows: at most ${most} ${p.currency} (${left} left of ${p.amount}, ` +
          `plus a tip of up to ${TIP_BOUND * 100}% of it)`,
      },
    };
  }
  return { amount: clearing, whole: (p.cleared ?? 0) === 0 && clearing === p.amount, last: clearing >= left };
}

/**
 * An incremental authorisation (a hotel stay extended, a car hire kept longer): `amount` more authorised on
 * the same purchase, before anything of it cleared. Answers the new authorised amount, or why not.
 */
export function incrementOf(p: PurchaseStanding, amount: number): { amount: number; total: number } | { refusal: Refusal } {
  if (p.state === "voided") return { refusal: { field: "transactionId", reason: "the purchase was voided; it cannot be incremented" } };
  if (p.state === "expired") return { refusal: { field: "transactionId", reason: "the authorisation expired; it cannot be incremented" } };
  if (p.state === "cleared" || (p.cleared ?? 0) > 0) {
    return { refusal: { field: "transactionId", reason: "the purchase has cleared; an authorisation is incremented before it clears" } };
  }
  const increment = roundMoney(amount, p.currency);
  if (increment <= 0) return { refusal: { field: "amount", reason: `must be more than 0 ${p.currency}` } };
  return { amount: increment, total: roundMoney(p.amount + increment, p.currency) };
}

/**
 * The network's withdrawal of an authorisation left uncleared: what it withdraws (what is left to clear), or
 * why nothing is (cleared in full, voided, expired already).
 */
export function expiryOf(p: PurchaseStanding): { amount: number } | { refusal: Refusal } {
  if (p.state === "voided") return { refusal: { field: "transactionId", reason: "the purchase was voided; there is nothing to expire" } };
  if (p.state === "expired") return { refusal: { field: "transactionId", reason: "the authorisation expired already" } };
  const left = leftToClear(p);
  if (left <= 0) return { refusal: { field: "transactionId", reason: "the purchase is already cleared in full; nothing is left to expire" } };
  return { amount: left };
}

/** When an authorisation made at `authorizedAt` expires, left uncleared for `days` days of its environment's clock. */
export const expiresAt = (authorizedAt: Date, days: number = AUTH_EXPIRY_DAYS): Date => new Date(authorizedAt.getTime() + days * DAY_MS);
