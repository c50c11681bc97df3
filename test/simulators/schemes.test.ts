// Each network's own message shapes and identifiers, checked without a bus: every kind of message
// matches its Avro schema, ids join auth to clearing (every clearing of a purchase cleared in parts too,
// each told apart as the qualifier reads it), MIDs have the formats the spec and networks use; and each
// network behaviour in each scheme's shape — an incremental authorisation, an authorisation's expiry, a
// clearing with no authorisation, a clearing sent again, a purchase billed in another currency.
import { describe, expect, it } from "vitest";
import { loadSchema, normalize } from "../../src/platform/bus/avro.ts";
import type { LookupRequest } from "../../src/platform/bus/messages.ts";
import { MID_FORMATS } from "../../src/domain/mid-formats.ts";
import { generatePools, PurchaseStream } from "../../simulators/engine/generator.ts";
import { matchScore } from "../../simulators/engine/matching.ts";
import { nextBatch } from "../../simulators/schemes/mastercard.ts";
import { derivedRandom, digits, hashSeed, seededRandom } from "../../simulators/engine/random.ts";
import { HOUR_MS } from "../../src/domain/time-units.ts";
import { SCHEMES } from "../../src/domain/scheme.ts";
import { ADAPTERS } from "../../simulators/schemes/index.ts";
import type { Purchase } from "../../simulators/engine/types.ts";
import { normalise } from "../../src/qualifier/normalise/index.ts";
import { luhnValid } from "../../src/domain/luhn.ts";

const AT = new Date("2026-03-10T15:20:00Z");
const purchaseFor = (scheme: (typeof SCHEMES)[number], seed = 1): Purchase => {
  const adapter = ADAPTERS[scheme];
  return new PurchaseStream(adapter, seed, generatePools(adapter, seed, { cards: 3, merchants: 5 })).next(AT).purchase;
};

describe.each(SCHEMES)("%s messages", (scheme) => {
  const adapter = ADAPTERS[scheme];
  const purchase = purchaseFor(scheme);
  const schema = loadSchema(`${scheme}-transaction`);
  const later = new Date(AT.getTime() + 60 * HOUR_MS);
  const messages = {
    auth: adapter.auth(purchase, AT),
    clearing: adapter.clearing(purchase, later),
    refund: adapter.refund(purchase, "refund-1", 3.5, later),
    void: adapter.void(purchase, AT),
  };

  it("match the scheme's Avro schema, every kind", () => {
    for (const value of Object.values(messages)) expect(normalize(adapter.topic, schema, value)).toEqual(value);
  });

  it("derive the same ids from the same purchase id in every process, and distinct message ids per kind", () => {
    expect(adapter.ids(purchase.id)).toEqual(adapter.ids(purchase.id));
    const ids = Object.values(messages).map((m) => m.messageId);
    expect(new Set(ids).size).toBe(4);
    expect(messages.auth.messageId).toBe(adapter.messageId("auth", purchase.id));
    expect(messages.refund.messageId).toBe(adapter.messageId("refund", "refund-1"));
  });

  it("assign MIDs in valid formats, and before onboarding only what the network has from the start", () => {
    const full = adapter.assignMids(seededRandom(hashSeed("m", scheme)), "CORNER CAFE LONDON", true);
    const partial = adapter.assignMids(seededRandom(hashSeed("m", scheme)), "CORNER CAFE LONDON", false);
    expect(adapter.validMids(full)).toBe(true);
    expect(adapter.validMids(partial)).toBe(true);
    for (const [field, value] of Object.entries(full)) {
      if (value !== null && field in MID_FORMATS) expect(value).toMatch(MID_FORMATS[field as keyof typeof MID_FORMATS].pattern);
    }
    const assignedLater: string[] = { visa: ["vmid", "vsid"], mastercard: ["mcLocationId"], amex: [] }[scheme];
    for (const [field, value] of Object.entries(partial)) {
      if (assignedLater.includes(field)) expect(value).toBeNull();
      else expect(value).toBe(full[field as keyof typeof full]);
    }
  });

  it("refund as a negative amount with the refund's own id, linked to the purchase", () => {
    const refund = messages.refund as unknown as Record<string, unknown>;
    const amount = refund.amount ?? refund.transactionAmount;
    expect(amount).toBe(-3.5);
    const link = refund.originalTransactionId ?? refund.originalRefNumber;
    expect(link).toBe(adapter.ids(purchase.id).transactionId);
    expect(adapter.ids("refund-1").transactionId).not.toBe(link);
  });

  it("refund without naming the purchase when it is sent unreferenced", () => {
    const refund = adapter.refund(purchase, "refund-2", 3.5, later, false) as unknown as Record<string, unknown>;
    expect(scheme === "mastercard" ? refund.originalRefNumber : refund.originalTransactionId).toBeNull();
    expect(normalize(adapter.topic, schema, refund)).toEqual(refund);
  });

  it("clear part of a purchase in a message of its own that the qualifier tells from the purchase's other clearings", () => {
    const parts = ["c-1", "c-2"].map((clearingId, n) => adapter.clearing(purchase, later, { clearingId, amount: n === 0 ? 1.5 : 2 }));
    const whole = normalise(scheme, messages.clearing);
    const normalised = parts.map((m) => normalise(scheme, m));
    expect(whole.ok && normalised.every((n) => n.ok)).toBe(true);
    const [first, second] = normalised.map((n) => (n.ok ? n.value : undefined)!);
    // The purchase's join key; their own amount, message id and (Mastercard) transaction sequence number.
    expect([first!.purchaseKey, second!.purchaseKey]).toEqual([adapter.ids(purchase.id).transactionId, adapter.ids(purchase.id).transactionId]);
    expect([first!.amount, second!.amount]).toEqual([1.5, 2]);
    expect(new Set([first!.messageId, second!.messageId, whole.ok ? whole.value.messageId : ""]).size).toBe(3);
    expect([first!.clearingKey, second!.clearingKey]).toEqual([adapter.clearingKey("c-1"), adapter.clearingKey("c-2")]);
    expect(first!.clearingKey).not.toBe(second!.clearingKey);
    if (scheme === "mastercard") {
      expect(first!.clearingKey).toBe(first!.identifiers.mastercardTransactionSequenceNumber);
      expect(first!.clearingKey).toMatch(/^\d{13}$/);
    } else expect(first!.clearingKey).toBe(reference(parts[0]!));
    for (const value of parts) expect(normalize(adapter.topic, schema, value)).toEqual(value);
  });

  const NAMES = {
    visa: { increment: "INCREMENTAL_AUTH", expiry: "AUTH_EXPIRY", code: "authCode", billed: ["billingAmount", "billingCurrencyCode"] },
    mastercard: { increment: "INCREMENTAL_AUTHORIZATION", expiry: "AUTHORIZATION_EXPIRY", code: "authCode", billed: ["cardholderBillingAmount", "cardholderBillingCurrencyCode"] },
    amex: { increment: "INCREMENTAL_AUTH", expiry: "AUTH_EXPIRY", code: "approvalCode", billed: ["cardmemberBillingAmount", "cardmemberBillingCurrencyCode"] },
  }[scheme];
  const fields = (m: unknown) => m as Record<string, unknown>;
  const amountOf = (m: unknown) => fields(m).amount ?? fields(m).transactionAmount;
  const joinKey = (m: unknown) => fields(m).transactionId ?? fields(m).refNumber;
  /** What a clearing sent again repeats: Visa's acquirer reference number, Mastercard's sequence number, Amex's ROC id. */
  const reference = (m: unknown) => String(fields(m).acquirerReferenceNumber ?? fields(m).transactionSequenceNumber ?? fields(m).rocId);
  const checked = (value: unknown) => {
    expect(normalize(adapter.topic, schema, value)).toEqual(value);
    const n = normalise(scheme, value);
    expect(n.ok ? "" : n.reason).toBe("");
    return n.ok ? n.value : undefined!;
  };

  it("increment an authorisation in the scheme's incremental message: the purchase's join key, the increment's amount, its own message id", () => {
    const increment = adapter.increment(purchase, "inc-1", 12.5, later);
    expect(fields(increment)).toMatchObject({ messageType: NAMES.increment, [NAMES.code]: fields(messages.auth)[NAMES.code] });
    expect(joinKey(increment)).toBe(joinKey(messages.auth));
    expect(amountOf(increment)).toBe(12.5);
    expect(increment.messageId).toBe(adapter.messageId("increment", "inc-1"));
    expect(increment.messageId).not.toBe(adapter.messageId("increment", "inc-2"));
    expect(checked(increment)).toMatchObject({ stage: "increment", purchaseKey: adapter.ids(purchase.id).transactionId, amount: 12.5 });
  });

  it("withdraw an authorisation left uncleared in the scheme's expiry message, for what was left of it", () => {
    const expiry = adapter.expiry(purchase, 7.25, later);
    expect(fields(expiry).messageType).toBe(NAMES.expiry);
    expect(joinKey(expiry)).toBe(joinKey(messages.auth));
    expect(amountOf(expiry)).toBe(7.25);
    expect(new Set([expiry.messageId, ...Object.values(messages).map((m) => m.messageId)]).size).toBe(5);
    expect(checked(expiry)).toMatchObject({ stage: "expiry", purchaseKey: adapter.ids(purchase.id).transactionId });
  });

  it("clear with no authorisation: the scheme's clearing with no code, that the qualifier takes for a purchase", () => {
    const clearing = adapter.clearing(purchase, later, undefined, { withoutAuth: true });
    expect(fields(clearing)[NAMES.code]).toBeNull();
    expect(fields(clearing).messageType).toBe(fields(messages.clearing).messageType);
    expect(checked(clearing)).toMatchObject({ stage: "clearing", purchaseKey: adapter.ids(purchase.id).transactionId, amount: purchase.amount });
  });

  it("send a clearing again with its own message id and the clearing's reference, whole or part, so the qualifier knows it", () => {
    const part = { clearingId: "c-3", amount: 1.25 };
    for (const [first, again] of [
      [messages.clearing, adapter.clearing(purchase, new Date(later.getTime() + 24 * HOUR_MS), undefined, { resent: true })],
      [adapter.clearing(purchase, later, part), adapter.clearing(purchase, new Date(later.getTime() + 24 * HOUR_MS), part, { resent: true })],
    ] as const) {
      expect(again.messageId).not.toBe(first.messageId);
      expect(reference(again)).toBe(reference(first));
      expect(checked(again).clearingKey).toBe(checked(first).clearingKey);
    }
    expect(checked(messages.clearing).clearingKey).toBe(adapter.clearingKey(purchase.id));
  });

  it("bill a purchase abroad in the cardholder's currency beside the purchase's own amount and currency, which the qualifier keeps", () => {
    const billingCurrency = purchase.currency === "USD" ? "EUR" : "USD";
    const abroad = { ...purchase, billingCurrency };
    const [auth, clearing] = [adapter.auth(abroad, AT), adapter.clearing(abroad, later)];
    for (const m of [auth, clearing]) {
      expect(fields(m)[NAMES.billed[1]!]).toBe(billingCurrency);
      expect(fields(m).conversionRate).toEqual(expect.any(Number));
      expect(fields(m)[NAMES.billed[0]!]).toBeCloseTo(Number(amountOf(m)) * Number(fields(m).conversionRate), 1);
      expect(checked(m)).toMatchObject({ amount: purchase.amount, currency: purchase.currency });
    }
    // The rate of the day each was processed: the clearing, days later, is billed a little differently.
    expect(fields(clearing).conversionRate).not.toBe(fields(auth).conversionRate);
    for (const m of Object.values(messages)) expect([fields(m)[NAMES.billed[0]!], fields(m).conversionRate]).toEqual([null, null]);
  });
});

describe("per-scheme identifiers", () => {
  it("Visa: auth and settlement share the 15-digit transaction id and the auth code; settlement carries its date", () => {
    const p = purchaseFor("visa");
    const auth = ADAPTERS.visa.auth(p, AT) as { transactionId: string; authCode: string };
    const settlement = ADAPTERS.visa.clearing(p, AT) as { transactionId: string; authCode: string; settlementDate: string };
    expect(auth.transactionId).toMatch(/^\d{15}$/);
    expect(auth.authCode).toMatch(/^[0-9A-Z]{6}$/);
    expect(settlement).toMatchObject({ transactionId: auth.transactionId, authCode: auth.authCode, settlementDate: "2026-03-10" });
  });

  it("Mastercard: a 9-character reference number joins clearing to authorization; only clearing has a sequence number", () => {
    const p = purchaseFor("mastercard");
    const auth = ADAPTERS.mastercard.auth(p, AT) as { refNumber: string; transactionSequenceNumber: string | null };
    const clearing = ADAPTERS.mastercard.clearing(p, AT) as { refNumber: string; transactionSequenceNumber: string | null };
    expect(auth.refNumber).toMatch(/^(MCC|MDS|MWE)[0-9A-Z]{6}$/);
    expect(clearing.refNumber).toBe(auth.refNumber);
    expect(auth.transactionSequenceNumber).toBeNull();
    expect(clearing.transactionSequenceNumber).toMatch(/^\d{13}$/);
  });

  it("Mastercard: the clearing batch is the first 12:00 UTC at least 48 hours after the authorization", () => {
    expect(nextBatch(new Date("2026-03-12T11:59:59Z")).toISOString()).toBe("2026-03-12T12:00:00.000Z");
    expect(nextBatch(new Date("2026-03-12T12:00:00Z")).toISOString()).toBe("2026-03-12T12:00:00.000Z");
    expect(nextBatch(new Date("2026-03-12T12:00:01Z")).toISOString()).toBe("2026-03-13T12:00:00.000Z");
    expect(ADAPTERS.mastercard.clearingDue("p", new Date("2026-03-10T15:20:00Z")).toISOString()).toBe("2026-03-13T12:00:00.000Z");
    expect(ADAPTERS.mastercard.clearingDue("p", new Date("2026-03-10T09:00:00Z")).toISOString()).toBe("2026-03-12T12:00:00.000Z");
  });

  it("Visa and Amex: clearing 48 to 72 hours after the auth, fixed per purchase", () => {
    for (const scheme of ["visa", "amex"] as const) {
      const delays = Array.from({ length: 200 }, (_, i) => ADAPTERS[scheme].clearingDue(`p-${i}`, AT).getTime() - AT.getTime());
      expect(Math.min(...delays)).toBeGreaterThanOrEqual(48 * HOUR_MS);
      expect(Math.max(...delays)).toBeLessThanOrEqual(72 * HOUR_MS);
      expect(new Set(delays).size).toBeGreaterThan(150);
      expect(ADAPTERS[scheme].clearingDue("p-1", AT)).toEqual(ADAPTERS[scheme].clearingDue("p-1", AT));
    }
  });

  it("Visa: a settlement's acquirer reference number is 23 digits with a Luhn check digit; Amex: a submission's ROC id is 12 characters", () => {
    const settlement = ADAPTERS.visa.clearing(purchaseFor("visa"), AT) as { acquirerReferenceNumber: string };
    expect(settlement.acquirerReferenceNumber).toMatch(/^7\d{22}$/);
    expect(luhnValid(settlement.acquirerReferenceNumber)).toBe(true);
    expect((ADAPTERS.visa.auth(purchaseFor("visa"), AT) as { acquirerReferenceNumber: string | null }).acquirerReferenceNumber).toBeNull();
    expect((ADAPTERS.amex.clearing(purchaseFor("amex"), AT) as { rocId: string }).rocId).toMatch(/^[0-9A-Z]{12}$/);
  });

  it("Amex: a 10-digit SE number and a 6-digit approval code", () => {
    const p = purchaseFor("amex");
    const auth = ADAPTERS.amex.auth(p, AT) as { approvalCode: string; merchant: { seNumber: string } };
    expect(auth.merchant.seNumber).toMatch(/^\d{10}$/);
    expect(auth.approvalCode).toMatch(/^\d{6}$/);
    expect(ADAPTERS.amex.validMids({ ...p.merchant.mids, seNumber: "123456789" })).toBe(false);
  });
});

describe("look-up match scores", () => {
  const purchase = { ...purchaseFor("visa"), amount: 50, localDateTime: "2026-03-10T16:20:00" };
  const request = (r: Partial<LookupRequest>) => ({ amount: 50, transactionDate: "2026-03-10", locationId: null, mids: [], ...r });
  it.each([
    ["exact amount and date", {}, 90],
    ["exact amount, date and location", { locationId: purchase.merchant.locationId ?? "x", mids: [purchase.merchant.mids] }, 100],
    ["within 1% of the amount, the next day", { amount: 50.4, transactionDate: "2026-03-11" }, 65],
    ["within 5%, two days off", { amount: 52, transactionDate: "2026-03-12" }, 40],
    ["far off in amount, same day", { amount: 100 }, 30],
    ["exact amount, four days off", { transactionDate: "2026-03-14" }, 60],
  ])("%s", (_label, r, score) => {
    expect(matchScore(purchase, request(r))).toBe(score);
  });
});

describe("derived identifiers", () => {
  // A generator seeded with 32 bits gave the same 15-digit transaction id to two of ~90,000 purchases (the
  // birthday bound), and the qualifier dropped the second purchase as a duplicate of the first.
  it("keep 300,000 purchases' Visa transaction ids apart", () => {
    const ids = new Set<string>();
    for (let i = 0; i < 300_000; i++) ids.add(digits(derivedRandom("visa", `purchase-${i}`), 15));
    expect(ids.size).toBe(300_000);
  });
});
