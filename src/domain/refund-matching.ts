// Which purchase a refund refunds, when the network's refund does not say (or names one Cardlink never
// recorded): Fidel's rule. A refund is linked to a purchase of the same card, at the same location and MID,
// of the same amount (a partial refund matches nothing: the rule cannot tell which purchase it is part of),
// made before it; of several, the latest, and never one that another refund claimed already.
import { roundMoney } from "./money.ts";

export interface RefundToMatch {
  cardId: string;
  locationId: string;
  /** The MID the refund's message carried. */
  mid: string | null;
  /** Negative, as the networks send refunds. */
  amount: number;
  currency: string;
  /** Local to the location, YYYY-MM-DDThh:mm:ss. */
  localDateTime: string;
}

export interface PurchaseToMatch {
  id: string;
  cardId: string | null;
  locationId: string | null;
  mid: string | null;
  amount: number;
  currency: string;
  /** Local to the location, YYYY-MM-DDThh:mm:ss. */
  localDateTime: string;
  voided: boolean;
  /** The refund already linked to it, if any. */
  refundId: string | null;
}

/** Whether `purchase` is one the refund may refund, by card, location, MID, amount and time. */
export function refundMatches(refund: RefundToMatch, purchase: PurchaseToMatch): boolean {
  return (
    purchase.cardId === refund.cardId &&
    purchase.locationId === refund.locationId &&
    refund.mid !== null &&
    purchase.mid === refund.mid &&
    purchase.currency === refund.currency &&
    roundMoney(purchase.amount, purchase.currency) === roundMoney(-refund.amount, refund.currency) &&
    purchase.localDateTime <= refund.localDateTime &&
    !purchase.voided &&
    purchase.refundId === null
  );
}

/** The id of the purchase the refund refunds by the rule, or null when none matches. */
export function matchRefund(refund: RefundToMatch, candidates: readonly PurchaseToMatch[]): string | null {
  let best: PurchaseToMatch | null = null;
  for (const c of candidates) {
    if (!refundMatches(refund, c)) continue;
    // The latest purchase before the refund; at the same local time, the greater id (any fixed order does).
    if (!best || c.localDateTime > best.localDateTime || (c.localDateTime === best.localDateTime && c.id > best.id)) best = c;
  }
  return best?.id ?? null;
}
