import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import {
  currencyOf,
  endDateProblems,
  targetingProblems,
  termsFromInput,
  termsProblems,
  variantOf,
  type OfferInput,
  type OfferTerms,
  type Problem,
} from "../../src/domain/offer.ts";
import { activationConflict, type BrandOfferRun } from "../../src/domain/offer-activation.ts";
import { applyPatch } from "../../src/domain/offer-patch.ts";

const ME = { accountId: "acct-1", live: false };
const input = (over: Partial<OfferInput> = {}): OfferInput => ({
  countryCode: "GBR",
  name: "10% off",
  publisherId: "acct-1",
  startDate: "2026-02-01T00:00:00",
  type: { name: "discount", value: 10 },
  ...over,
});

const created = (over: Partial<OfferInput> = {}, caller = ME) => {
  const result = termsFromInput(input(over), caller);
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.value;
};
const problemsOf = (over: Partial<OfferInput>, caller = ME): string[] => {
  const result = termsFromInput(input(over), caller);
  return result.ok ? [] : result.problems.map((p) => `${p.field}: ${p.rule}`);
};

describe("creation defaults and derivations", () => {
  it("fills the spec's defaults", () => {
    const { terms, variant } = created();
    expect(variant).toBe("standard");
    expect(terms).toEqual({
      name: "10% off",
      countryCode: "GBR",
      currency: "GBP",
      startDate: "2026-02-01T00:00:00",
      endDate: "2027-02-01T00:00:00",
      type: { name: "discount", value: 10, maxRewardAmount: null },
      activation: { enabled: false },
      daysOfWeek: [0, 1, 2, 3, 4, 5, 6],
      schemes: ["visa", "mastercard", "amex"],
      minTransactionAmount: 0,
      maxTransactionAmount: null,
      returnPeriod: 0,
      feeSplit: 0,
      fees: null,
      targeting: null,
      transactionSource: null,
      funded: { id: "acct-1", type: "card-linking" },
      metadata: null,
      additionalTerms: null,
      brandLogoURL: null,
    } satisfies OfferTerms);
  });

  it.each([
    ["GBR", "GBP"],
    ["USA", "USD"],
    ["JPN", "JPY"],
    ["IRL", "EUR"],
    ["BHR", "BHD"],
    ["CHE", "CHF"],
    ["BRA", "BRL"],
    ["ZAF", "ZAR"],
  ])("derives the currency of %s: %s", (countryCode, currency) => {
    expect(created({ countryCode }).terms.currency).toBe(currency);
  });

  it("has a currency for every ISO 3166-1 alpha-3 country of the data set", () => {
    const codes = (createRequire(import.meta.url)("world-countries") as { cca3: string }[]).map((c) => c.cca3);
    expect(codes.length).toBeGreaterThan(240);
    for (const code of codes) expect(currencyOf(code), code).toMatch(/^[A-Z]{3}$/);
  });

  it("ends 12 months after startDate, clamping the day", () => {
    expect(created({ startDate: "2028-02-29T10:30:00" }).terms.endDate).toBe("2029-02-28T10:30:00");
  });

  it("defaults the activation limit to 1 and keeps a given one", () => {
    expect(created({ activation: { enabled: true } }).terms.activation).toEqual({ enabled: true, qualifiedTransactionsLimit: 1 });
    expect(created({ activation: { enabled: true, qualifiedTransactionsLimit: 3 } }).terms.activation).toEqual({
      enabled: true,
      qualifiedTransactionsLimit: 3,
    });
  });

  it("funds test offers by the caller as card-linking, whatever is asked", () => {
    expect(created({ funded: { id: "merchant-9", type: "merchant" } }).terms.funded).toEqual({ id: "acct-1", type: "card-linking" });
  });

  it("takes the funding given in the live environment and needs an id for merchant or affiliate funding", () => {
    const live = { accountId: "acct-1", live: true };
    expect(created({ funded: { id: "merchant-9", type: "merchant" } }, live).terms.funded).toEqual({ id: "merchant-9", type: "merchant" });
    expect(created({ funded: { type: "card-linking" } }, live).terms.funded).toEqual({ id: "acct-1", type: "card-linking" });
    expect(problemsOf({ funded: { type: "affiliate" } }, live)).toEqual(["funded.id: required when funded.type is affiliate"]);
  });

  it.each<[string, Partial<OfferInput>, string]>([
    ["fees", { fees: { publisherFee: 1, serviceFee: 0.5 } }, "targeting"],
    ["targeting", { targeting: { name: "new" } }, "targeting"],
    ["transactionSource oaas", { transactionSource: "oaas" }, "targeting"],
    ["none of them", {}, "standard"],
  ])("the variant with %s is %s", (_name, over, variant) => {
    expect(variantOf(input(over))).toBe(variant);
  });

  it("gives the targeting variant fees and no feeSplit", () => {
    const { terms } = created({ targeting: { name: "lapsed", from: 90, to: 365 } });
    expect(terms.feeSplit).toBeNull();
    expect(terms.fees).toEqual({ publisherFee: 0, serviceFee: 0 });
    expect(terms.targeting).toEqual({ name: "lapsed", from: 90, to: 365 });
  });
});

describe("creation rules", () => {
  it.each<[string, Partial<OfferInput>, string]>([
    ["publisherId other than the caller", { publisherId: "acct-2" }, "publisherId: must be your account id"],
    ["maxRewardAmount on an amount offer", { type: { name: "amount", value: 5, maxRewardAmount: 10 } }, "type.maxRewardAmount: only for discount offers"],
    ["a discount above 100%", { type: { name: "discount", value: 120 } }, "type.value: a discount is a percentage, at most 100"],
    ["an amount finer than the currency", { type: { name: "amount", value: 5.555 } }, "type.value: at most 2 decimal places in GBP"],
    ["yen with decimals", { countryCode: "JPN", type: { name: "amount", value: 500.5 } }, "type.value: at most 0 decimal places in JPY"],
    ["maxRewardAmount finer than the currency", { type: { name: "discount", value: 5, maxRewardAmount: 1.001 } }, "type.maxRewardAmount: at most 2 decimal places in GBP"],
    ["endDate not after startDate", { endDate: "2026-02-01T00:00:00" }, "endDate: must be after startDate"],
    ["max below min transaction amount", { minTransactionAmount: 20, maxTransactionAmount: 10 }, "maxTransactionAmount: must not be below minTransactionAmount"],
    ["limit without activation", { activation: { enabled: false, qualifiedTransactionsLimit: 2 } }, "activation.qualifiedTransactionsLimit: only with activation.enabled true"],
    ["feeSplit with fees", { feeSplit: 1, fees: { publisherFee: 1, serviceFee: 1 } }, "feeSplit: not in the targeting variant; use fees {publisherFee, serviceFee}"],
    ["feeSplit percentage above 100", { feeSplit: 150 }, "feeSplit: a percentage on discount offers, at most 100"],
    ["feeSplit amount finer than the currency", { type: { name: "amount", value: 5 }, feeSplit: 0.125 }, "feeSplit: at most 2 decimal places in GBP"],
    ["publisherFee percentage above 100", { fees: { publisherFee: 101, serviceFee: 0 } }, "fees.publisherFee: a percentage on discount offers, at most 100"],
    ["lapsed targeting without from and to", { targeting: { name: "lapsed" } }, "targeting.from: required for lapsed targeting"],
  ])("rejects %s", (_name, over, message) => {
    expect(problemsOf(over)).toContain(message);
  });

  it.each<[string, { name: "new" | "lapsed" | "existing"; from?: number; to?: number }, string[]]>([
    ["new without window", { name: "new" }, []],
    ["new with a window", { name: "new", from: 0, to: 180 }, []],
    ["lapsed with both", { name: "lapsed", from: 90, to: 365 }, []],
    ["lapsed without from", { name: "lapsed", to: 365 }, ["targeting.from: required for lapsed targeting"]],
    ["existing without to", { name: "existing", from: 0 }, ["targeting.to: required for existing targeting"]],
    ["to above 365", { name: "existing", from: 0, to: 366 }, ["targeting.to: must be at most 365 days"]],
    ["to at 365", { name: "existing", from: 0, to: 365 }, []],
    ["from not before to", { name: "lapsed", from: 100, to: 100 }, ["targeting.from: must be less than targeting.to"]],
  ])("targeting: %s", (_name, targeting, expected) => {
    expect(targetingProblems(targeting).map((p) => `${p.field}: ${p.rule}`)).toEqual(expected);
  });

  it("accepts amounts at the currency's precision", () => {
    expect(problemsOf({ type: { name: "amount", value: 5.55 }, minTransactionAmount: 10.5, maxTransactionAmount: 99.99 })).toEqual([]);
    expect(problemsOf({ countryCode: "BHR", type: { name: "amount", value: 1.125 } })).toEqual([]);
  });

  it("allows fees and targeting only in the targeting variant", () => {
    const { terms } = created();
    expect(termsProblems({ ...terms, fees: { publisherFee: 1, serviceFee: 1 } }, "standard").map((p) => p.field)).toEqual(["fees"]);
    expect(termsProblems({ ...terms, targeting: { name: "new", from: null, to: null } }, "standard").map((p) => p.field)).toEqual(["targeting"]);
  });
});

describe("extension (rule 7)", () => {
  const current = { startDate: "2026-01-01T00:00:00", endDate: "2026-06-30T23:59:59", countryCode: "GBR" };
  const now = new Date("2026-03-01T12:00:00Z");
  it.each<[string, string, "standard" | "targeting", string[]]>([
    ["a later date within 12 months", "2027-06-30T23:59:59", "standard", []],
    ["more than 12 months past the current end", "2027-07-01T00:00:00", "standard", ["endDate: an extension is at most 12 months at a time; the latest now is 2027-06-30T23:59:59"]],
    ["more than 12 months in the targeting variant", "2028-07-01T00:00:00", "targeting", []],
    ["a date in the past", "2026-02-01T00:00:00", "standard", ["endDate: must be later than the current date"]],
    ["the current date itself", "2026-03-01T12:00:00", "standard", ["endDate: must be later than the current date"]],
    ["shortening to a later-than-now date", "2026-04-01T00:00:00", "standard", []],
  ])("%s", (_name, next, variant, expected) => {
    expect(endDateProblems(current, next, variant, now).map((p) => `${p.field}: ${p.rule}`)).toEqual(expected);
  });

  it("reads the current date in the country's main zone", () => {
    // 2026-03-01T12:00Z is 07:00 in New York: an end at 08:00 local is still ahead, in London it has passed.
    expect(endDateProblems({ ...current, countryCode: "USA" }, "2026-03-01T08:00:00", "standard", now)).toEqual([]);
    expect(endDateProblems(current, "2026-03-01T08:00:00", "standard", now)).toHaveLength(1);
  });
});

describe("updates", () => {
  const base = created({ startDate: "2026-01-01T00:00:00" }).terms;
  const now = new Date("2026-03-01T12:00:00Z");
  const patch = (p: Parameters<typeof applyPatch>[2], status: "requests" | "upcoming" | "live" | "expired" = "upcoming", source: "self" | "marketplace" = "self", terms: OfferTerms = base, variant: "standard" | "targeting" = "standard") =>
    applyPatch(terms, { variant, status, source }, p, now);
  const problems = (r: ReturnType<typeof patch>): Problem[] => (r.ok ? [] : r.problems);

  it("changes name, metadata and terms before the offer is live", () => {
    const r = patch({ name: "New", metadata: { a: 1 }, type: { name: "amount", value: 5 }, daysOfWeek: [1, 2] });
    expect(r.ok && r.value.terms).toMatchObject({ name: "New", metadata: { a: 1 }, type: { name: "amount", value: 5, maxRewardAmount: null }, daysOfWeek: [1, 2] });
  });

  it.each(["startDate", "type", "activation", "daysOfWeek", "schemes", "minTransactionAmount", "maxTransactionAmount", "returnPeriod", "feeSplit"] as const)(
    "freezes %s once the offer is live",
    (field) => {
      const values = {
        startDate: "2026-01-02T00:00:00",
        type: { name: "amount" as const, value: 5 },
        activation: { enabled: true },
        daysOfWeek: [1],
        schemes: ["visa" as const],
        minTransactionAmount: 5,
        maxTransactionAmount: 50,
        returnPeriod: 14,
        feeSplit: 2,
      };
      const r = patch({ [field]: values[field] }, "live");
      expect(problems(r)).toEqual([expect.objectContaining({ field, conflict: true })]);
      expect(patch({ [field]: values[field] }, "upcoming").ok).toBe(true);
    },
  );

  it("reports an extension and not a shortening", () => {
    const longer = patch({ endDate: "2027-06-01T00:00:00" }, "live");
    expect(longer.ok && longer.value.extended).toBe(true);
    const shorter = patch({ endDate: "2026-06-01T00:00:00" }, "live");
    expect(shorter.ok && shorter.value.extended).toBe(false);
  });

  it("reports a targeting change on a live offer only", () => {
    const t = created({ startDate: "2026-01-01T00:00:00", targeting: { name: "new" } }).terms;
    const live = patch({ targeting: { name: "lapsed", from: 30, to: 90 } }, "live", "self", t, "targeting");
    expect(live.ok && live.value.targetingUpdated).toBe(true);
    const upcoming = patch({ targeting: { name: "lapsed", from: 30, to: 90 } }, "upcoming", "self", t, "targeting");
    expect(upcoming.ok && upcoming.value.targetingUpdated).toBe(false);
    const same = patch({ targeting: { name: "new" } }, "live", "self", t, "targeting");
    expect(same.ok && same.value.targetingUpdated).toBe(false);
    expect(problems(patch({ targeting: { name: "lapsed" } }, "live", "self", t, "targeting")).map((p) => p.field)).toEqual([
      "targeting.from",
      "targeting.to",
    ]);
  });

  it("lets a marketplace offer's publisher change metadata only", () => {
    expect(patch({ metadata: { mine: true } }, "live", "marketplace").ok).toBe(true);
    expect(problems(patch({ name: "Mine", endDate: "2027-01-01T00:00:00" }, "live", "marketplace")).map((p) => p.field)).toEqual(["name", "endDate"]);
  });

  it("re-checks the rules between fields after the change", () => {
    expect(problems(patch({ type: { name: "amount", value: 5, maxRewardAmount: 3 } })).map((p) => p.field)).toEqual(["type.maxRewardAmount"]);
    expect(problems(patch({ startDate: "2028-01-01T00:00:00" })).map((p) => p.field)).toEqual(["endDate"]);
  });
});

describe("rule 4: activation and non-activation offers of one brand", () => {
  const run = (id: string, activationEnabled: boolean, start: string, end: string | null): BrandOfferRun => ({
    id,
    activationEnabled,
    startAt: new Date(start),
    endAt: end === null ? null : new Date(end),
  });
  const now = new Date("2026-03-01T00:00:00Z");
  const candidate = run("new", true, "2026-04-01T00:00:00Z", "2026-09-30T00:00:00Z");
  it.each<[string, BrandOfferRun[], string | null]>([
    ["no other offer", [], null],
    ["same kind, overlapping", [run("a", true, "2026-01-01T00:00:00Z", "2026-12-31T00:00:00Z")], null],
    ["other kind, overlapping", [run("b", false, "2026-01-01T00:00:00Z", "2026-12-31T00:00:00Z")], "b"],
    ["other kind, open end", [run("c", false, "2026-01-01T00:00:00Z", null)], "c"],
    ["other kind, ends before the candidate starts", [run("d", false, "2026-01-01T00:00:00Z", "2026-03-31T00:00:00Z")], null],
    ["other kind, starts after the candidate ends", [run("e", false, "2026-10-01T00:00:00Z", "2026-12-31T00:00:00Z")], null],
    ["other kind, already expired", [run("f", false, "2025-01-01T00:00:00Z", "2026-02-01T00:00:00Z")], null],
  ])("%s", (_name, others, conflict) => {
    expect(activationConflict(candidate, others, now)?.id ?? null).toBe(conflict);
  });

  it("ignores a candidate that has already ended", () => {
    const past = run("old", true, "2025-01-01T00:00:00Z", "2026-01-01T00:00:00Z");
    expect(activationConflict(past, [run("b", false, "2025-01-01T00:00:00Z", null)], now)).toBeNull();
  });
});
