// The refund matching rule (src/domain/refund-matching.ts): a refund the network does not link is linked to
// a purchase of the same card, location, MID and amount, made before it, not refunded yet; the latest one.
import { describe, expect, it } from "vitest";
import { matchRefund, refundMatches, type PurchaseToMatch, type RefundToMatch } from "../../src/domain/refund-matching.ts";

const refund: RefundToMatch = {
  cardId: "card-1",
  locationId: "loc-1",
  mid: "MID-1",
  amount: -42.5,
  currency: "GBP",
  localDateTime: "2026-01-10T12:00:00",
};
const purchase = (over: Partial<PurchaseToMatch> = {}): PurchaseToMatch => ({
  id: "p-1",
  cardId: "card-1",
  locationId: "loc-1",
  mid: "MID-1",
  amount: 42.5,
  currency: "GBP",
  localDateTime: "2026-01-05T09:30:00",
  voided: false,
  refundId: null,
  ...over,
});

describe("the refund matching rule", () => {
  it("matches a purchase of the same card, location, MID and amount made before the refund", () => {
    expect(refundMatches(refund, purchase())).toBe(true);
    expect(matchRefund(refund, [purchase()])).toBe("p-1");
    // Made at the refund's own local time still counts as before it.
    expect(refundMatches(refund, purchase({ localDateTime: refund.localDateTime }))).toBe(true);
  });

  it.each([
    ["another card", { cardId: "card-2" }],
    ["another location", { locationId: "loc-2" }],
    ["another MID", { mid: "MID-2" }],
    ["no MID", { mid: null }],
    ["another amount (a partial refund matches nothing)", { amount: 50 }],
    ["another currency", { currency: "EUR" }],
    ["a later purchase", { localDateTime: "2026-01-10T12:00:01" }],
    ["a voided purchase", { voided: true }],
    ["a purchase refunded already", { refundId: "r-0" }],
  ])("does not match %s", (_what, over) => {
    expect(refundMatches(refund, purchase(over))).toBe(false);
    expect(matchRefund(refund, [purchase(over)])).toBeNull();
  });

  it("does not match a refund without a MID", () => {
    expect(matchRefund({ ...refund, mid: null }, [purchase({ mid: null })])).toBeNull();
  });

  it("compares amounts in the currency's minor unit", () => {
    expect(refundMatches({ ...refund, amount: -42.499999 }, purchase())).toBe(true);
    expect(refundMatches({ ...refund, amount: -1000, currency: "JPY" }, purchase({ amount: 1000.4, currency: "JPY" }))).toBe(true);
  });

  it("of several, picks the latest purchase before the refund, then the greater id, whatever their order", () => {
    const older = purchase({ id: "p-old", localDateTime: "2026-01-02T10:00:00" });
    const latest = purchase({ id: "p-latest", localDateTime: "2026-01-09T18:00:00" });
    const after = purchase({ id: "p-after", localDateTime: "2026-01-11T08:00:00" });
    const claimed = purchase({ id: "p-claimed", localDateTime: "2026-01-09T19:00:00", refundId: "r-1" });
    expect(matchRefund(refund, [older, latest, after, claimed])).toBe("p-latest");
    expect(matchRefund(refund, [claimed, after, latest, older])).toBe("p-latest");
    const twin = purchase({ id: "p-twin", localDateTime: latest.localDateTime });
    expect(matchRefund(refund, [twin, latest])).toBe("p-twin");
    expect(matchRefund(refund, [])).toBeNull();
  });
});
