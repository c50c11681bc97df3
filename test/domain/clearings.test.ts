// Clearings of part of an authorisation (src/domain/qualification.ts clearingResult): each decided on its
// own amount, the purchase rewarded once across them. And the networks' behaviours beside authorise-then-
// clear, as rules over plain data: what may follow an authorisation (src/domain/purchase-follow-ups.ts: a
// tip up to the bound, increments before clearing, the expiry of what is left uncleared) and how the
// qualifier rewards them (what clears earns, rewarded once across increments, tips and clearings sent
// again; an expiry withdraws).
import { describe, expect, it } from "vitest";
import { AUTH_EXPIRY_DAYS, TIP_BOUND, clearingOf, expiresAt, expiryOf, incrementOf, mostToClear, refundOf, voidRefusal } from "../../src/domain/purchase-follow-ups.ts";
import {
  NO_CLEARINGS,
  addClearing,
  clearingResult,
  decide,
  expiredResult,
  incrementedResult,
  isRepeatedClearing,
  rewardBase,
  type CandidateOffer,
  type OfferResult,
} from "../../src/domain/qualification.ts";

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

const p = { state: "authorized" as const, amount: 50, currency: "GBP", refunded: 0 };

describe("what may follow an authorisation", () => {
  it(`clears up to ${TIP_BOUND * 100}% above the authorised amount (a tip), in one clearing of its own or after a part`, () => {
    expect(mostToClear(p)).toBe(60);
    expect(clearingOf(p, 60)).toEqual({ amount: 60, whole: false, last: true });
    expect(clearingOf(p, 60.01)).toMatchObject({ refusal: { field: "amount", reason: "clears more than the authorisation allows: at most 60 GBP (50 left of 50, plus a tip of up to 20% of it)" } });
    expect(clearingOf({ ...p, cleared: 30 }, 29.5)).toEqual({ amount: 29.5, whole: false, last: true });
    expect(clearingOf({ ...p, cleared: 30 }, 19)).toEqual({ amount: 19, whole: false, last: false });
  });

  it("increments an authorisation before it clears, never after, nor a voided or an expired one", () => {
    expect(incrementOf(p, 12.345)).toEqual({ amount: 12.35, total: 62.35 });
    expect(incrementOf({ ...p, cleared: 10 }, 5)).toMatchObject({ refusal: { reason: "the purchase has cleared; an authorisation is incremented before it clears" } });
    expect(incrementOf({ ...p, state: "voided" }, 5)).toMatchObject({ refusal: { reason: "the purchase was voided; it cannot be incremented" } });
    expect(incrementOf({ ...p, state: "expired" }, 5)).toMatchObject({ refusal: { reason: "the authorisation expired; it cannot be incremented" } });
    expect(incrementOf(p, 0)).toMatchObject({ refusal: { field: "amount" } });
  });

  it(`expires what is left uncleared, ${AUTH_EXPIRY_DAYS} days after the authorisation by default; then nothing clears, voids or (uncleared) refunds`, () => {
    expect(expiresAt(new Date("2026-01-05T12:00:00Z")).toISOString()).toBe("2026-01-12T12:00:00.000Z");
    expect(expiresAt(new Date("2026-01-05T12:00:00Z"), 1).toISOString()).toBe("2026-01-06T12:00:00.000Z");
    expect(expiryOf(p)).toEqual({ amount: 50 });
    expect(expiryOf({ ...p, cleared: 20 })).toEqual({ amount: 30 });
    expect(expiryOf({ ...p, state: "cleared", cleared: 50 })).toMatchObject({ refusal: { reason: "the purchase is already cleared in full; nothing is left to expire" } });
    expect(expiryOf({ ...p, state: "expired" })).toMatchObject({ refusal: { reason: "the authorisation expired already" } });
    const expired = { ...p, state: "expired" as const };
    expect(clearingOf(expired, null)).toMatchObject({ refusal: { reason: "the authorisation expired; the network withdrew what was left of it, so it cannot clear" } });
    expect(voidRefusal(expired)?.reason).toBe("the authorisation expired; there is nothing left to void");
    expect(refundOf(expired, null)).toMatchObject({ refusal: { reason: "the authorisation expired uncleared; there is nothing to refund" } });
    expect(refundOf({ ...expired, cleared: 20 }, 20)).toEqual({ amount: 20 });
  });
});

describe("how the qualifier rewards them", () => {
  it("rewards what clears: a tip earns too, up to the bound; the clearings together never more than the purchase on its reward base", () => {
    expect(rewardBase(50, 0, 60, "GBP")).toBe(60);
    expect(rewardBase(50, 0, 30, "GBP")).toBe(50);
    expect(rewardBase(50, 55, 20, "GBP")).toBe(60);
    const tip = clearingResult(on(offer(), 60), on(offer(), rewardBase(50, 0, 60, "GBP")), NO_CLEARINGS, "GBP");
    expect([tip.qualified, tip.cashback, tip.performanceFee]).toEqual([true, 6, 1.2]);
    // A part, then the rest with a tip: 30 earns 3, 28 earns 2.8 (58 in all, within 60).
    const first = clearingResult(on(offer(), 30), on(offer(), rewardBase(50, 0, 30, "GBP")), NO_CLEARINGS, "GBP");
    const soFar = addClearing(NO_CLEARINGS, 30, first, "GBP", "c1");
    expect(clearingResult(on(offer(), 28), on(offer(), rewardBase(50, 30, 28, "GBP")), soFar, "GBP").cashback).toBe(2.8);
  });

  it("knows a clearing sent again by its reference", () => {
    const soFar = addClearing(addClearing(NO_CLEARINGS, 20, on(offer(), 20), "GBP", "arn-1"), 10, on(offer(), 10), "GBP", "arn-2");
    expect(soFar.keys).toEqual(["arn-1", "arn-2"]);
    expect([isRepeatedClearing(soFar, "arn-1"), isRepeatedClearing(soFar, "arn-3"), isRepeatedClearing(null, "arn-1"), isRepeatedClearing(soFar, null)]).toEqual([true, false, false, false]);
    expect(addClearing(NO_CLEARINGS, 20, on(offer(), 20), "GBP")).not.toHaveProperty("keys");
  });

  it("decides an increment again on the authorisation's offer, counting it on an activation only when it earns for the first time", () => {
    const minimum = offer({ minTransactionAmount: 60 });
    const below = on(minimum, 50);
    expect(below.qualified).toBe(false);
    expect(incrementedResult(below, on(minimum, 70))).toEqual({ result: on(minimum, 70), newlyEarned: true });
    expect(incrementedResult(on(offer(), 50), on(offer(), 70))).toEqual({ result: on(offer(), 70), newlyEarned: false });
    const none: OfferResult = { id: null, cashback: 0, performanceFee: 0, qualified: false, qualificationDate: null, message: ["No live offer is linked to this location."] };
    expect(incrementedResult(none, on(offer(), 70))).toEqual({ result: none, newlyEarned: false });
  });

  it("withdraws an expired authorisation's cashback when nothing of it cleared, and one still in its return period too", () => {
    expect(expiredResult(on(offer(), 50), 0)).toEqual({
      id: "offer-1",
      cashback: 0,
      performanceFee: 0,
      qualified: false,
      qualificationDate: null,
      message: ["The authorisation expired uncleared: the network withdrew it, and its cashback with it."],
    });
    const pending = on(offer({ returnPeriod: 14 }), 50);
    expect(expiredResult(pending, 0)).toMatchObject({ qualified: false, cashback: 0, qualificationDate: null });
    expect(expiredResult(on(offer(), 50), 20)).toEqual(on(offer(), 50));
    const rejected = on(offer({ minTransactionAmount: 60 }), 50);
    expect(expiredResult(rejected, 0)).toBe(rejected);
  });
});
