// Each scheme's native messages, as its simulator builds them, normalised into the neutral form.
import { describe, expect, it } from "vitest";
import { normalise } from "../../src/qualifier/normalise/index.ts";
import { generatePools, PurchaseStream } from "../../simulators/engine/generator.ts";
import { HOUR_MS } from "../../src/domain/time-units.ts";
import { SCHEMES } from "../../src/domain/scheme.ts";
import { ADAPTERS } from "../../simulators/schemes/index.ts";
import type { NetworkTransaction } from "../../src/services/transactions/network-transaction.ts";

const AT = new Date("2026-03-10T15:20:00Z");
const LATER = new Date(AT.getTime() + 60 * HOUR_MS);

const ok = (scheme: (typeof SCHEMES)[number], value: unknown): NetworkTransaction => {
  const result = normalise(scheme, value);
  if (!result.ok) throw new Error(result.reason);
  return result.value;
};

describe.each(SCHEMES)("%s", (scheme) => {
  const adapter = ADAPTERS[scheme];
  const purchase = new PurchaseStream(adapter, 7, generatePools(adapter, 7, { cards: 2, merchants: 2 })).next(AT).purchase;

  it("maps auth, clearing, refund and void to one purchase key and the right stages", () => {
    const auth = ok(scheme, adapter.auth(purchase, AT));
    const clearing = ok(scheme, adapter.clearing(purchase, LATER));
    const refund = ok(scheme, adapter.refund(purchase, "refund-1", 5, LATER));
    const voided = ok(scheme, adapter.void(purchase, AT));
    expect([auth.stage, clearing.stage, refund.stage, voided.stage]).toEqual(["auth", "clearing", "refund", "void"]);
    expect(clearing.purchaseKey).toBe(auth.purchaseKey);
    expect(voided.purchaseKey).toBe(auth.purchaseKey);
    expect(refund.originalKey).toBe(auth.purchaseKey);
    expect(refund.purchaseKey).not.toBe(auth.purchaseKey);
    expect(refund.amount).toBe(-5);
    expect(auth).toMatchObject({ cardId: purchase.card.id, amount: purchase.amount, currency: purchase.currency, localDateTime: purchase.localDateTime });
    expect(auth.identifiers.MID).toEqual(expect.any(String));
  });

  it("carries the scheme's own identifiers and no other scheme's", () => {
    const auth = ok(scheme, adapter.auth(purchase, AT));
    const clearing = ok(scheme, adapter.clearing(purchase, LATER));
    const own = {
      visa: ["visaAuthCode"],
      mastercard: ["mastercardAuthCode", "mastercardRefNumber"],
      amex: ["amexApprovalCode"],
    }[scheme];
    for (const [field, value] of Object.entries(auth.identifiers)) {
      if (field === "MID" || own.includes(field)) expect(value, field).toEqual(expect.any(String));
      else if (field !== "mastercardTransactionSequenceNumber") expect(value, field).toBeNull();
    }
    // Mastercard numbers the clearing in its batch; nobody else has a sequence number.
    if (scheme === "mastercard") expect(clearing.identifiers.mastercardTransactionSequenceNumber).toEqual(expect.any(String));
    else expect(clearing.identifiers.mastercardTransactionSequenceNumber).toBeNull();
  });

  it("rejects a malformed message with a reason naming the field", () => {
    const auth = adapter.auth(purchase, AT) as unknown as Record<string, unknown>;
    const dateField = scheme === "mastercard" ? "transactionLocalDateTime" : "transactionDateTime";
    const broken = normalise(scheme, { ...auth, [dateField]: "yesterday" });
    expect(broken).toEqual({ ok: false, reason: expect.stringContaining(`${dateField}: must be YYYY-MM-DDThh:mm:ss`) });
    const amountField = scheme === "mastercard" ? "transactionAmount" : "amount";
    expect(normalise(scheme, { ...auth, [amountField]: -3 })).toEqual({ ok: false, reason: "amount: only a refund may be negative" });
    expect(normalise(scheme, "not a message")).toMatchObject({ ok: false });
  });
});
