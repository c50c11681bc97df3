import { describe, expect, it } from "vitest";
import { qualifyingPurchase, type LinkedOffer } from "../../src/domain/test-purchase.ts";
import type { ActivationState, CandidateOffer } from "../../src/domain/qualification.ts";
import { candidateOffer } from "../support/candidate-offer.ts";

const offer = candidateOffer;

// 2026-01-07 is a Wednesday.
const at = (o: CandidateOffer, ...ids: string[]): LinkedOffer => ({ offer: o, locations: ids.map((id) => ({ id, localNow: "2026-01-07T10:30:00" })) });
const cards = [
  { id: "mc", scheme: "mastercard" as const },
  { id: "visa", scheme: "visa" as const },
];
const never = (): ActivationState => "not activated";
const NOW = "2026-01-07T10:30:05.000Z";

describe("qualifyingPurchase", () => {
  it("picks the card of a scheme the offer takes, at a location it is linked to, with an amount it rewards", () => {
    const visaOnly = offer({ schemes: ["visa"], minTransactionAmount: 35 });
    expect(qualifyingPurchase([at(visaOnly, "l1")], cards, never, NOW)).toEqual({ offerId: "o1", cardId: "visa", locationId: "l1", amount: 35, targetingTag: null });
  });

  it("needs an activation-enabled offer activated on the card, and tags the segment a targeted offer wants", () => {
    const activation = offer({ activation: { enabled: true } });
    expect(qualifyingPurchase([at(activation, "l1")], cards, never, NOW)).toBeNull();
    const onVisa = (_: string, card: string): ActivationState => (card === "visa" ? "activated" : "not activated");
    expect(qualifyingPurchase([at(activation, "l1")], cards, onVisa, NOW)?.cardId).toBe("visa");
    const targeted = offer({ targeting: { name: "lapsed", from: 30, to: 90 } });
    expect(qualifyingPurchase([at(targeted, "l1")], cards, never, NOW)?.targetingTag).toBe("lapsed");
  });

  it("skips an offer not available today, prefers one qualified at once over one with a return period, and finds none without a location", () => {
    const notWednesday = offer({ id: "o-days", daysOfWeek: [0, 6] });
    const later = offer({ id: "o-return", returnPeriod: 30 });
    const atOnce = offer({ id: "o-now" });
    expect(qualifyingPurchase([at(notWednesday, "l1"), at(later, "l2"), at(atOnce, "l3")], cards, never, NOW)).toMatchObject({ offerId: "o-now", locationId: "l3" });
    expect(qualifyingPurchase([at(later, "l2")], cards, never, NOW)?.offerId).toBe("o-return");
    expect(qualifyingPurchase([at(atOnce)], cards, never, NOW)).toBeNull();
  });
});
