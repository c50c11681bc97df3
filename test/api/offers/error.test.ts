// The offer routes' refusals: 400 naming the field for each invalid input, 409 naming the rule (the live
// lock, rule 4 between activation and non-activation offers, activation on cards).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHarness, expectError, expectStatus, type Harness } from "../../support/harness.ts";
import { expect400, localIn, outboxOf, world, type Offer } from "../../support/offers-world.ts";

let h: Harness;
beforeAll(async () => {
  h = await createHarness(); // service clock frozen at 2026-01-05T12:00:00Z
});
afterAll(() => h.close());

describe("POST /offers", () => {
  it.each<[string, Record<string, unknown>, string]>([
    ["brandId missing", { brandId: undefined }, "brandId: required"],
    ["brandId not a UUID", { brandId: "x" }, "brandId: must be a UUID"],
    ["countryCode not alpha-3", { countryCode: "GB" }, "countryCode: must be an ISO 3166-1 alpha-3 code"],
    ["name empty", { name: " " }, "name: must not be empty"],
    ["publisherId missing", { publisherId: undefined }, "publisherId: required"],
    ["publisherId of someone else", { publisherId: "3f2b9c1e-8d4a-4b6e-9f1a-2c3d4e5f6a7b" }, "publisherId: must be your account id"],
    ["startDate missing", { startDate: undefined }, "startDate: required"],
    ["startDate with a zone", { startDate: "2026-02-01T00:00:00Z" }, "startDate: must be a local date-time YYYY-MM-DDThh:mm:ss"],
    ["startDate not a date", { startDate: "2026-02-30T00:00:00" }, "startDate: must be a local date-time"],
    ["endDate date only", { endDate: "2026-12-31" }, "endDate: must be a local date-time"],
    ["endDate before startDate", { startDate: "2026-06-01T00:00:00", endDate: "2026-05-01T00:00:00" }, "endDate: must be after startDate"],
    ["type missing", { type: undefined }, "type: required"],
    ["type.name unknown", { type: { name: "points", value: 5 } }, "type.name: must be amount or discount"],
    ["type.value zero", { type: { name: "amount", value: 0 } }, "type.value: must be greater than 0"],
    ["discount above 100", { type: { name: "discount", value: 101 } }, "type.value: a discount is a percentage, at most 100"],
    ["maxRewardAmount on amount", { type: { name: "amount", value: 5, maxRewardAmount: 10 } }, "type.maxRewardAmount: only for discount offers"],
    ["amount finer than pence", { type: { name: "amount", value: 5.001 } }, "type.value: at most 2 decimal places in GBP"],
    ["activation limit 0", { activation: { enabled: true, qualifiedTransactionsLimit: 0 } }, "activation.qualifiedTransactionsLimit: must be at least 1"],
    ["activation limit without activation", { activation: { enabled: false, qualifiedTransactionsLimit: 2 } }, "activation.qualifiedTransactionsLimit: only with activation.enabled true"],
    ["activation.enabled missing", { activation: {} }, "activation.enabled: required"],
    ["daysOfWeek 7", { daysOfWeek: [1, 7] }, "daysOfWeek.1: must be 0 to 6"],
    ["daysOfWeek -1", { daysOfWeek: [-1] }, "daysOfWeek.0: must be 0 to 6"],
    ["daysOfWeek repeated", { daysOfWeek: [1, 1] }, "daysOfWeek: must not repeat a day"],
    ["daysOfWeek empty", { daysOfWeek: [] }, "daysOfWeek: must name at least one day"],
    ["schemes unknown", { schemes: ["discover"] }, "schemes.0: must be visa, mastercard or amex"],
    ["schemes repeated", { schemes: ["visa", "visa"] }, "schemes: must not repeat a scheme"],
    ["minTransactionAmount negative", { minTransactionAmount: -1 }, "minTransactionAmount: must be 0 or more"],
    ["maxTransactionAmount below min", { minTransactionAmount: 10, maxTransactionAmount: 5 }, "maxTransactionAmount: must not be below minTransactionAmount"],
    ["returnPeriod fractional", { returnPeriod: 1.5 }, "returnPeriod: must be a whole number of days"],
    ["feeSplit with fees", { feeSplit: 1, fees: { publisherFee: 1, serviceFee: 0 } }, "feeSplit: not in the targeting variant"],
    ["fees.serviceFee missing", { fees: { publisherFee: 1 } }, "fees.serviceFee: required"],
    ["targeting lapsed without from/to", { targeting: { name: "lapsed" } }, "targeting.from: required for lapsed targeting; targeting.to: required for lapsed targeting"],
    ["targeting existing to 366", { targeting: { name: "existing", from: 0, to: 366 } }, "targeting.to: must be at most 365 days"],
    ["targeting name unknown", { targeting: { name: "loyal" } }, "targeting.name: must be new, lapsed or existing"],
    ["transactionSource other than oaas", { transactionSource: "pos" }, "transactionSource: the only value is oaas"],
    ["funded.type unknown", { funded: { type: "bank" } }, "funded.type: must be merchant, card-linking or affiliate"],
    ["brandLogoURL not http", { brandLogoURL: "ftp://x/y.png" }, "brandLogoURL: must be an http or https URL"],
    ["unknown field", { colour: "red" }, "colour: unknown field"],
    ["read-only field", { status: "live" }, "status: unknown field"],
  ])("400 for %s", async (_name, over, message) => {
    const w = await world(h);
    await expect400(await w.createOffer(over), message);
  });
});

describe("PATCH /offers/{offerId}", () => {
  it("refuses an endDate that is not later than the current date, and does not emit for a shortening", async () => {
    const w = await world(h);
    const offer = await w.offer({ startDate: localIn(h, -10) });
    await expect400(await w.client.patch(`/v1/offers/${offer.id}`, { endDate: localIn(h, -1) }), "endDate: must be later than the current date");
    await expect400(await w.client.patch(`/v1/offers/${offer.id}`, { endDate: localIn(h, 0) }), "endDate: must be later than the current date");
    const shorter = await expectStatus<Offer>(await w.client.patch(`/v1/offers/${offer.id}`, { endDate: localIn(h, 5) }), 200);
    expect(shorter.endDate).toBe(localIn(h, 5));
    expect(await outboxOf(h, w.acct.id)).toEqual([]);
  });

  it("answers 400 naming fields set at creation and unknown fields", async () => {
    const w = await world(h);
    const offer = await w.offer();
    await expect400(await w.client.patch(`/v1/offers/${offer.id}`, { brandId: w.brandId }), "brandId: cannot be changed after creation");
    await expect400(await w.client.patch(`/v1/offers/${offer.id}`, { countryCode: "USA", currency: "USD" }), "countryCode: cannot be changed after creation");
    await expect400(await w.client.patch(`/v1/offers/${offer.id}`, { publisherId: w.acct.id }), "publisherId: cannot be changed after creation");
    await expect400(await w.client.patch(`/v1/offers/${offer.id}`, { colour: "red" }), "colour: unknown field");
    await expect400(await w.client.patch(`/v1/offers/${offer.id}`, { type: { name: "amount", value: 5, maxRewardAmount: 1 } }), "type.maxRewardAmount: only for discount offers");
  });
});

describe("linking locations", () => {
  it("links only locations of the offer's brand and country that the caller has", async () => {
    const w = await world(h);
    const offer = await w.offer();
    const bakery = await w.brand("Bakery");
    await expect400(await w.client.post(`/v1/offers/${offer.id}/locations/${await w.location(bakery)}`), "locationId: the location belongs to brand");
    await expect400(await w.client.post(`/v1/offers/${offer.id}/locations/${await w.location(w.brandId, "FRA")}`), "locationId: the location is in FRA; the offer is for GBR");
    const other = await world(h);
    await expectError(await w.client.post(`/v1/offers/${offer.id}/locations/${other.locationId}`), 404, "resource_not_found");
  });
});

describe("rule 4: activation and non-activation offers of one brand", () => {
  it("rejects an offer of the other kind that would run at the same time, naming activation.enabled", async () => {
    const w = await world(h);
    await w.offer({ activation: { enabled: true }, startDate: localIn(h, 1), endDate: localIn(h, 60) });
    const message = await expectError(await w.createOffer({ startDate: localIn(h, 30), endDate: localIn(h, 90) }), 409, "conflict");
    expect(message).toMatch(/^activation\.enabled: an activation offer and a non-activation offer cannot run together for one brand/);
    // Same kind, another brand, or a run that does not overlap: allowed.
    await w.offer({ activation: { enabled: true, qualifiedTransactionsLimit: 2 }, startDate: localIn(h, 30), endDate: localIn(h, 60) });
    await w.offer({ brandId: await w.brand("Bakery"), startDate: localIn(h, 30) });
    await w.offer({ startDate: localIn(h, 61), endDate: localIn(h, 90) });
  });
});

describe("activation on cards", () => {
  it("activates only activation-enabled, unexpired offers on cards of the offer's schemes", async () => {
    const w = await world(h);
    const plain = await w.offer({ brandId: await w.brand("Plain") });
    expect(await expectError(await w.client.post(`/v1/offers/${plain.id}/cards/${w.cardId}`), 409, "conflict")).toMatch(/^activation\.enabled:/);
    const amexOnly = await w.offer({ activation: { enabled: true }, schemes: ["amex"] });
    await expect400(await w.client.post(`/v1/offers/${amexOnly.id}/cards/${w.cardId}`), "cardId: the card is visa; the offer runs on amex");
    const ended = await w.offer({ activation: { enabled: true }, startDate: localIn(h, -20), endDate: localIn(h, -1) });
    expect(await expectError(await w.client.post(`/v1/offers/${ended.id}/cards/${w.cardId}`), 409, "conflict")).toMatch(/ended/);
    const other = await world(h);
    await expectError(await w.client.post(`/v1/offers/${amexOnly.id}/cards/${other.cardId}`), 404, "resource_not_found");
    await expect400(await w.client.get(`/v1/offers/${amexOnly.id}/cards?state=on`), "state: must be not activated, activated or deactivated");
  });
});
