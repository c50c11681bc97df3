import { describe, expect, it } from "vitest";
import {
  CONSIDERED_LIMIT,
  award,
  consideredOfResult,
  decide,
  decision,
  lostReason,
  liveActivationGate,
  localDayOfWeek,
  refundResult,
  rejection,
  type ActivationState,
  type CandidateOffer,
  type TransactionFacts,
} from "../../src/domain/qualification.ts";
import { roundMoney } from "../../src/domain/money.ts";
import { candidateOffer } from "../support/candidate-offer.ts";

const offer = candidateOffer;

// 2026-01-07 is a Wednesday.
const tx = (over: Partial<TransactionFacts> = {}): TransactionFacts => ({
  amount: 40,
  currency: "GBP",
  localDateTime: "2026-01-07T10:30:00",
  scheme: "visa",
  targetingTag: null,
  created: "2026-01-07T10:30:05.000Z",
  ...over,
});

const activated = (): ActivationState => "activated";
const never = (): ActivationState => "not activated";
const NOW = "2026-01-07T10:31:00.000Z";

describe("rejection: each rule of eligibility", () => {
  const cases: [string, CandidateOffer, TransactionFacts, ActivationState, RegExp | null][] = [
    ["eligible", offer(), tx(), "not activated", null],
    ["before startDate (local)", offer({ startDate: "2026-01-07T10:31:00" }), tx(), "not activated", /starts/],
    ["at startDate exactly", offer({ startDate: "2026-01-07T10:30:00" }), tx(), "not activated", null],
    ["after endDate", offer({ endDate: "2026-01-07T10:29:59" }), tx(), "not activated", /ended/],
    ["no endDate", offer({ endDate: null }), tx({ localDateTime: "2030-01-01T00:00:00" }), "not activated", null],
    ["scheme not in schemes", offer({ schemes: ["amex"] }), tx(), "not activated", /visa/],
    ["day not in daysOfWeek", offer({ daysOfWeek: [1, 2] }), tx(), "not activated", /Wednesday/],
    ["day in daysOfWeek", offer({ daysOfWeek: [3] }), tx(), "not activated", null],
    ["below minTransactionAmount", offer({ minTransactionAmount: 50 }), tx(), "not activated", /minimum transaction amount of 50/],
    ["at minTransactionAmount", offer({ minTransactionAmount: 40 }), tx(), "not activated", null],
    ["activation offer, card not activated", offer({ activation: { enabled: true } }), tx(), "not activated", /not been activated/],
    ["activation offer, card deactivated", offer({ activation: { enabled: true } }), tx(), "deactivated", /no longer activated/],
    ["activation offer, card activated", offer({ activation: { enabled: true } }), tx(), "activated", null],
    ["targeting, no tag", offer({ targeting: { name: "new" } }), tx(), "not activated", /no segment tag/],
    ["targeting, other tag", offer({ targeting: { name: "lapsed", from: 30, to: 90 } }), tx({ targetingTag: "new" }), "not activated", /tagged new/],
    ["targeting, matching tag", offer({ targeting: { name: "new" } }), tx({ targetingTag: "new" }), "not activated", null],
    ["no targeting, any tag", offer(), tx({ targetingTag: "existing" }), "not activated", null],
  ];
  it.each(cases)("%s", (_, o, t, state, expected) => {
    const why = rejection(o, t, state);
    if (expected === null) expect(why).toBeNull();
    else expect(why).toMatch(expected);
  });
});

describe("award", () => {
  const cases: [string, CandidateOffer, TransactionFacts, number, number][] = [
    ["amount offer pays its value; feeSplit is an amount", offer({ type: { name: "amount", value: 5, maxRewardAmount: null }, feeSplit: 1.5 }), tx(), 5, 1.5],
    ["discount pays a percentage; feeSplit is a percentage", offer({ type: { name: "discount", value: 10, maxRewardAmount: null }, feeSplit: 2 }), tx({ amount: 40 }), 4, 0.8],
    ["discount capped by maxRewardAmount", offer({ type: { name: "discount", value: 50, maxRewardAmount: 10 } }), tx({ amount: 40 }), 10, 0.4],
    ["variant uses fees.publisherFee", offer({ type: { name: "discount", value: 10, maxRewardAmount: null }, feeSplit: null, fees: { publisherFee: 5, serviceFee: 1 } }), tx({ amount: 40 }), 4, 2],
    ["rounded to the minor unit", offer({ type: { name: "discount", value: 3.3, maxRewardAmount: null }, feeSplit: 0 }), tx({ amount: 10.01 }), 0.33, 0],
    ["JPY has no minor unit", offer({ type: { name: "discount", value: 5, maxRewardAmount: null }, feeSplit: 0 }), tx({ amount: 1234, currency: "JPY" }), 62, 0],
  ];
  it.each(cases)("%s", (_, o, t, cashback, fee) => {
    expect(award(o, t)).toEqual({ cashback, performanceFee: fee });
  });
});

describe("decide", () => {
  it("pays the qualified result with a null qualificationDate when there is no return period", () => {
    expect(decide([offer()], tx(), never, NOW)).toEqual({
      id: "o1",
      cashback: 5,
      performanceFee: 1,
      qualified: true,
      qualificationDate: null,
      message: [],
    });
  });

  it("picks the higher cashback among several offers of the brand and location", () => {
    const small = offer({ id: "small", created: "2026-01-03T00:00:00.000Z", type: { name: "amount", value: 2, maxRewardAmount: null } });
    const big = offer({ id: "big", created: "2026-01-01T00:00:00.000Z", type: { name: "discount", value: 20, maxRewardAmount: null } });
    expect(decide([small, big], tx(), never, NOW)).toMatchObject({ id: "big", cashback: 8, qualified: true });
  });

  it("gives equal cashback to the most recent offer", () => {
    const older = offer({ id: "older", created: "2026-01-01T00:00:00.000Z" });
    const newer = offer({ id: "newer", created: "2026-01-02T00:00:00.000Z" });
    expect(decide([older, newer], tx(), never, NOW).id).toBe("newer");
    expect(decide([newer, older], tx(), never, NOW).id).toBe("newer");
  });

  it("skips rejecting offers and pays an eligible one", () => {
    const rejecting = offer({ id: "r", created: "2026-01-05T00:00:00.000Z", minTransactionAmount: 100, type: { name: "amount", value: 50, maxRewardAmount: null } });
    expect(decide([rejecting, offer()], tx(), never, NOW)).toMatchObject({ id: "o1", qualified: true });
  });

  it("reports zero cashback and fee and the most recent rejecting offer's message", () => {
    const older = offer({ id: "older", created: "2026-01-01T00:00:00.000Z", schemes: ["amex"] });
    const newer = offer({ id: "newer", created: "2026-01-02T00:00:00.000Z", minTransactionAmount: 100 });
    expect(decide([older, newer], tx(), never, NOW)).toEqual({
      id: "newer",
      cashback: 0,
      performanceFee: 0,
      qualified: false,
      qualificationDate: null,
      message: ["The amount 40 is below the minimum transaction amount of 100."],
    });
  });

  it("says so when no offer is live at the location", () => {
    expect(decide([], tx(), never, NOW)).toMatchObject({ id: null, qualified: false, cashback: 0, performanceFee: 0 });
  });

  it("qualifies only after the return period, with qualificationDate = creation date + returnPeriod days", () => {
    const o = offer({ returnPeriod: 30 });
    const before = decide([o], tx(), never, NOW);
    expect(before).toMatchObject({ qualified: false, cashback: 5, qualificationDate: "2026-02-06" });
    expect(before.message[0]).toMatch(/2026-02-06/);
    expect(decide([o], tx(), never, "2026-02-06T00:00:00.000Z")).toMatchObject({ qualified: true, qualificationDate: "2026-02-06", message: [] });
  });

  it("lets only activated cards qualify for an activation offer", () => {
    const o = offer({ activation: { enabled: true, qualifiedTransactionsLimit: 1 } });
    expect(decide([o], tx(), never, NOW).qualified).toBe(false);
    expect(decide([o], tx(), activated, NOW).qualified).toBe(true);
  });
});

describe("decision: every offer considered", () => {
  it("lists the winner with its award, an eligible offer that paid less with why, and a rejected one with its rule", () => {
    const big = offer({ id: "big", created: "2026-01-01T00:00:00.000Z", type: { name: "discount", value: 10, maxRewardAmount: null }, feeSplit: 2 });
    const small = offer({ id: "small", created: "2026-01-03T00:00:00.000Z", type: { name: "amount", value: 2, maxRewardAmount: null }, feeSplit: 0 });
    const ended = offer({ id: "ended", created: "2026-01-04T00:00:00.000Z", endDate: "2026-01-06T23:59:59" });
    const { result, considered } = decision([ended, small, big], tx(), never, NOW);
    expect(result).toEqual(decide([ended, small, big], tx(), never, NOW));
    expect(result).toMatchObject({ id: "big", cashback: 4, qualified: true });
    expect(considered).toEqual({
      offers: [
        { offerId: "big", outcome: "won", cashback: 4, performanceFee: 0.8 },
        { offerId: "small", outcome: "lost", cashback: 2, performanceFee: 0 },
        { offerId: "ended", outcome: "rejected", reason: "The offer ended at 2026-01-06T23:59:59." },
      ],
      more: 0,
    });
    expect(lostReason(considered.offers[1]!, considered.offers[0], "GBP")).toBe("Paid less than the winning offer: cashback 2 vs 4 GBP.");
  });

  it("says an offer paying as much lost to the more recent one", () => {
    const older = offer({ id: "older", created: "2026-01-01T00:00:00.000Z" });
    const newer = offer({ id: "newer", created: "2026-01-02T00:00:00.000Z" });
    const { considered } = decision([older, newer], tx(), never, NOW);
    expect(considered.offers.map((o) => [o.offerId, o.outcome])).toEqual([
      ["newer", "won"],
      ["older", "lost"],
    ]);
    expect(lostReason(considered.offers[1]!, considered.offers[0], "GBP")).toBe("Paid as much as the winning offer (cashback 5 GBP); the more recent offer wins.");
  });

  it("lists every rejection, newest first, when none qualifies: activation, scheme, targeting", () => {
    const activation = offer({ id: "activation", created: "2026-01-03T00:00:00.000Z", activation: { enabled: true } });
    const amex = offer({ id: "amex", created: "2026-01-02T00:00:00.000Z", schemes: ["amex"] });
    const lapsed = offer({ id: "lapsed", created: "2026-01-01T00:00:00.000Z", targeting: { name: "lapsed" } });
    const { result, considered } = decision([lapsed, amex, activation], tx(), never, NOW);
    expect(result).toMatchObject({ id: "activation", qualified: false, message: ["The offer has not been activated on this card."] });
    expect(considered.offers).toEqual([
      { offerId: "activation", outcome: "rejected", reason: "The offer has not been activated on this card." },
      { offerId: "amex", outcome: "rejected", reason: "The offer is not available on visa cards." },
      { offerId: "lapsed", outcome: "rejected", reason: "The offer targets lapsed customers; the transaction carries no segment tag." },
    ]);
  });

  it("keeps the winner of a return period, and nothing when no offer is live", () => {
    expect(decision([offer({ returnPeriod: 30 })], tx(), never, NOW).considered.offers).toEqual([{ offerId: "o1", outcome: "won", cashback: 5, performanceFee: 1 }]);
    expect(decision([], tx(), never, NOW).considered).toEqual({ offers: [], more: 0 });
  });

  it(`lists at most ${CONSIDERED_LIMIT} offers, the winner among them, and counts the rest`, () => {
    const many = Array.from({ length: CONSIDERED_LIMIT + 5 }, (_, i) =>
      offer({ id: `o${String(i).padStart(2, "0")}`, created: `2026-01-0${(i % 5) + 1}T00:00:00.000Z`, type: { name: "amount", value: i + 1, maxRewardAmount: null } }),
    );
    const { result, considered } = decision(many, tx(), never, NOW);
    expect(considered.offers).toHaveLength(CONSIDERED_LIMIT);
    expect(considered.more).toBe(5);
    expect(considered.offers[0]).toMatchObject({ offerId: result.id, outcome: "won", cashback: CONSIDERED_LIMIT + 5 });
    expect(considered.offers.slice(1).map((o) => o.cashback)).toEqual(Array.from({ length: CONSIDERED_LIMIT - 1 }, (_, i) => CONSIDERED_LIMIT + 4 - i));
  });

  it("derives a one-offer decision's entry from its result (a clearing of part of an authorisation)", () => {
    expect(consideredOfResult({ id: "o1", cashback: 2.5, performanceFee: 0.5, qualified: true, qualificationDate: null, message: [] }).offers).toEqual([
      { offerId: "o1", outcome: "won", cashback: 2.5, performanceFee: 0.5 },
    ]);
    const rewarded = "The purchase was rewarded already: its earlier clearings took the offer's whole reward.";
    expect(consideredOfResult({ id: "o1", cashback: 0, performanceFee: 0, qualified: false, qualificationDate: null, message: [rewarded] }).offers).toEqual([
      { offerId: "o1", outcome: "rejected", reason: rewarded },
    ]);
    expect(consideredOfResult({ id: null, cashback: 0, performanceFee: 0, qualified: false, qualificationDate: null, message: ["none"] })).toEqual({ offers: [], more: 0 });
  });
});

describe("refunds", () => {
  it("reverse the purchase's award in proportion", () => {
    const purchase = decide([offer({ type: { name: "discount", value: 10, maxRewardAmount: null }, feeSplit: 2 })], tx({ amount: 40 }), never, NOW);
    expect(refundResult(purchase, 40, -20, "GBP")).toMatchObject({ cashback: -2, performanceFee: -0.4, qualified: true });
    expect(refundResult(purchase, 40, -40, "GBP")).toMatchObject({ cashback: -4, performanceFee: -0.8 });
  });
  it("reverse nothing when the purchase did not qualify", () => {
    const purchase = decide([offer({ minTransactionAmount: 100 })], tx(), never, NOW);
    expect(refundResult(purchase, 40, -40, "GBP")).toMatchObject({ cashback: 0, qualified: false });
  });
});

describe("helpers", () => {
  it("computes the local day of week from the local date, whatever the process zone", () => {
    expect(localDayOfWeek("2026-01-04T23:59:59")).toBe(0);
    expect(localDayOfWeek("2026-01-05T00:00:00")).toBe(1);
  });
  it("rounds money half away from zero in the minor unit", () => {
    expect(roundMoney(1.005, "EUR")).toBe(1.01);
    expect(roundMoney(-1.005, "EUR")).toBe(-1.01);
    expect(roundMoney(2.0005, "BHD")).toBe(2.001);
    expect(roundMoney(0.4, "JPY")).toBe(0);
  });
});

describe("liveActivationGate (rule 5): in live, only activated cards' transactions at an all-activation location", () => {
  const act = offer({ id: "act", activation: { enabled: true } });
  const plain = offer({ id: "plain" });
  const cases: [string, boolean, CandidateOffer[], (id: string) => ActivationState, boolean][] = [
    ["live, every offer needs activation, card activated none", true, [act], never, true],
    ["live, card deactivated", true, [act], () => "deactivated", true],
    ["live, card activated the offer", true, [act], activated, false],
    ["live, one of two offers needs none", true, [act, plain], never, false],
    ["live, activated on one of two activation offers", true, [act, offer({ id: "act2", activation: { enabled: true } })], (id) => (id === "act2" ? "activated" : "not activated"), false],
    ["live, no offer at the location", true, [], never, false],
    ["test: every transaction is visible", false, [act], never, false],
  ];
  it.each(cases)("%s", (_, live, candidates, activation, dropped) => {
    const reason = liveActivationGate(live, candidates, activation);
    if (dropped) expect(reason).toMatch(/not activated/);
    else expect(reason).toBeNull();
  });
});

describe("localDayOfWeek without Date", () => {
  it("agrees with the UTC calendar every day from 1970 to 2100", () => {
    for (let t = Date.UTC(1970, 0, 1); t < Date.UTC(2100, 0, 1); t += 86_400_000) {
      const local = new Date(t).toISOString().slice(0, 19);
      if (localDayOfWeek(local) !== new Date(t).getUTCDay()) expect.fail(`${local}: ${localDayOfWeek(local)}`);
    }
  });
});
