// A test purchase a live offer rewards: the card, location, amount and segment tag that the dashboard's
// "Send a test purchase" form starts with, so a first purchase shows an offer at work. Judged by the
// qualification rule itself (`rejection`), for a purchase made now at the location.
import { rejection, type ActivationState, type CandidateOffer, type Scheme } from "./qualification.ts";

export interface QualifyingPurchase {
  offerId: string;
  cardId: string;
  locationId: string;
  amount: number;
  targetingTag: string | null;
}

/** A live offer and the locations it is linked to, each with its local date-time now (YYYY-MM-DDThh:mm:ss). */
export interface LinkedOffer {
  offer: CandidateOffer;
  locations: { id: string; localNow: string }[];
}

/** A round amount, or the offer's minimum when that is more. */
export const rewardedAmount = (offer: Pick<CandidateOffer, "minTransactionAmount">): number => Math.max(20, offer.minTransactionAmount ?? 0);

/**
 * The first card and location (in the order given) at which one of `offers` would reward a purchase
 * of `rewardedAmount` made now, tagged with the segment the offer targets; offers with no return period
 * first, since theirs is qualified at once. Null when no pair qualifies.
 */
export function qualifyingPurchase(
  offers: LinkedOffer[],
  cards: { id: string; scheme: Scheme }[],
  activationOf: (offerId: string, cardId: string) => ActivationState,
  now: string,
): QualifyingPurchase | null {
  const atOnce = [...offers].sort((a, b) => Number((a.offer.returnPeriod ?? 0) > 0) - Number((b.offer.returnPeriod ?? 0) > 0));
  for (const { offer, locations } of atOnce) {
    const amount = rewardedAmount(offer);
    const targetingTag = offer.targeting?.name ?? null;
    for (const location of locations) {
      for (const card of cards) {
        const tx = { amount, currency: "", localDateTime: location.localNow, scheme: card.scheme, targetingTag, created: now };
        if (rejection(offer, tx, activationOf(offer.id, card.id)) === null) {
          return { offerId: offer.id, cardId: card.id, locationId: location.id, amount, targetingTag };
        }
      }
    }
  }
  return null;
}
