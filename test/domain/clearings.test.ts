// Clearings of part of an authorisation (src/domain/qualification.ts clearingResult): each decided on its
// own amount, the purchase rewarded once across them.
import { describe, expect, it } from "vitest";
import { NO_CLEARINGS, addClearing, clearingResult, decide, type CandidateOffer, type OfferResult } from "../../src/domain/qualification.ts";

const offer = (over: Partial<CandidateOffer> = {}): CandidateOffer => ({
  id: "offer-1",
  created: "2026-01-01T00:00:00.000Z",
  startDate: "2026-01-01T00:00:00",
  endDate: null,
  schemes: [],
  daysOfWeek: [],
  minTransactionAmount: null,
  type: { name: "discount", value: 10, maxRewardAmount: null },
  feeSplit: 2,
  fees: null,
  activation: { enabled: false },
  targeting: null,
  returnPeriod: null,
  ...over,
});
const NOW = "2026-01-05T12:00:00.000Z";
const on = (o: CandidateOffer, amount: number): OfferResult =>
  decide([o], { amount, currency: "GBP", localDateTime: "2026-01-05T12:00:00", scheme: "visa", targetingTag: null, created: NOW }, () => "activated", NOW);

/** Decides each clearing of `auth` in turn, as the qualifier does; returns their results. */
function clearInParts(o: CandidateOffer, auth: number, parts: number[]): OfferResult[] {
  let soFar = NO_CLEARINGS;
  return parts.map((part) => {
    const result = clearingResult(on(o, part), on(o, auth), soFar, "GBP");
    soFar = addClearing(soFar, part, result, "GBP");
    return result;
  });
}

describe("clearings of part of an authorisation", () => {
  it("pays a discount's percentage of each clearing: together what the whole purchase earns", () => {
    const results = clearInParts(offer(), 40, [25, 15]);
    expect(results.map((r) => [r.qualified, r.cashback, r.performanceFee])).toEqual([
      [true, 2.5, 0.5],
      [true, 1.5, 0.3],
    ]);
  });

  it("keeps to a discount's cap across the clearings", () => {
    const results = clearInParts(offer({ type: { name: "discount", value: 10, maxRewardAmount: 3 } }), 40, [25, 10, 5]);
    expect(results.map((r) => r.cashback)).toEqual([2.5, 0.5, 0]);
    expect(results.map((r) => r.qualified)).toEqual([true, true, false]);
    expect(results[2]!.message).toEqual(["The purchase was rewarded already: its earlier clearings took the offer's whole reward."]);
  });

  it("pays an amount offer once, to the first clearing that qualifies", () => {
    const results = clearInParts(offer({ type: { name: "amount", value: 5, maxRewardAmount: null }, feeSplit: 1, minTransactionAmount: 20 }), 100, [10, 60, 30]);
    // 10 is below the minimum on its own; 60 takes the reward; 30 finds it taken.
    expect(results.map((r) => [r.qualified, r.cashback, r.performanceFee])).toEqual([
      [false, 0, 0],
      [true, 5, 1],
      [false, 0, 0],
    ]);
    expect(results[0]!.message[0]).toMatch(/below the minimum transaction amount of 20/);
  });

  it("adds up what the clearings came to", () => {
    const soFar = addClearing(addClearing(NO_CLEARINGS, 25.1, on(offer(), 25.1), "GBP"), 14.9, on(offer(), 14.9), "GBP");
    expect(soFar).toEqual({ amount: 40, count: 2, cashback: 4, performanceFee: 0.8 });
  });

  it("leaves a pending return period pending, with its share of the reward", () => {
    const [result] = clearInParts(offer({ returnPeriod: 14 }), 40, [20]);
    expect(result).toMatchObject({ qualified: false, cashback: 2, qualificationDate: "2026-01-19" });
  });
});
