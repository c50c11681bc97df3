// The dry run: the CLI writes the same bytes for the same arguments and other bytes for another seed;
// the lines are each scheme's native messages in publishing order, with clearing when it is due.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { loadSchema, normalize } from "../../src/platform/bus/avro.ts";
import type { AmexTransaction, MastercardTransaction, VisaTransaction } from "../../src/platform/bus/messages.ts";
import { DRY_RUN_DEFAULTS, dryRun } from "../../simulators/engine/dry-run.ts";
import { HOUR_MS } from "../../src/domain/time-units.ts";
import { ADAPTERS } from "../../simulators/schemes/index.ts";
import { roundMoney } from "../../src/domain/money.ts";

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), "cardlink-dry-run-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cli = (...args: string[]) =>
  run(process.execPath, ["--import", "tsx", "src/main.ts", ...args], { cwd: join(import.meta.dirname, "../.."), env: { ...process.env, LOG_LEVEL: "silent" } });

interface Line<T> {
  at: string;
  topic: string;
  key: string;
  value: T;
}
const parse = <T>(text: string) => text.trimEnd().split("\n").map((l) => JSON.parse(l) as Line<T>);
const options = (seed: number, count: number) => ({ ...DRY_RUN_DEFAULTS, seed, count });

describe("simulate (dry run)", () => {
  it("writes a byte-identical file for the same arguments and a different one for another seed", { timeout: 120_000 }, async () => {
    const out = (name: string) => join(dir, name);
    const args = (seed: string, file: string) => ["simulate", "--scheme", "mastercard", "--seed", seed, "--count", "300", "--out", out(file)];
    await Promise.all([cli(...args("42", "a.jsonl")), cli(...args("42", "b.jsonl")), cli(...args("43", "c.jsonl"))]);
    const [a, b, c] = ["a", "b", "c"].map((n) => readFileSync(out(`${n}.jsonl`)));
    expect(a!.length).toBeGreaterThan(100_000);
    expect(a!.equals(b!)).toBe(true);
    expect(a!.equals(c!)).toBe(false);
    expect(a!.toString()).toBe(dryRun(ADAPTERS.mastercard, options(42, 300)));
  });

  it("refuses a bad argument in one line naming it, exit 64", { timeout: 120_000 }, async () => {
    const err = await cli("simulate", "--scheme", "discover", "--seed", "1", "--count", "5", "--out", join(dir, "x")).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 64 });
    expect((err as { stderr: string }).stderr).toBe("--scheme: must be visa, mastercard or amex\n");
  });

  it("lists every message as the bus would carry it, in publishing order", () => {
    for (const scheme of ["visa", "mastercard", "amex"] as const) {
      const lines = parse<{ messageId: string; cardId?: string; cardReference?: string; cardToken?: string }>(dryRun(ADAPTERS[scheme], options(7, 120)));
      const schema = loadSchema(`${scheme}-transaction`);
      for (const line of lines) {
        expect(line.topic).toBe(`${scheme}.transactions`);
        expect(normalize(line.topic, schema, line.value)).toEqual(line.value);
        expect(line.key).toBe(line.value.cardId ?? line.value.cardReference ?? line.value.cardToken);
      }
      const times = lines.map((l) => l.at);
      expect([...times].sort()).toEqual(times);
    }
  });

  it("settles Visa 48 to 72 hours after the auth (in parts, with a tip or after an increment for some), refunds negative and after settlement, voids or expires instead of settling, settles some with no auth and some twice", () => {
    const lines = parse<VisaTransaction>(dryRun(ADAPTERS.visa, options(3, 400)));
    const auths = lines.filter((l) => l.value.messageType === "AUTH");
    const of = (id: string, type: VisaTransaction["messageType"]) => lines.filter((l) => l.value.transactionId === id && l.value.messageType === type);
    const resent = (l: Line<VisaTransaction>) => l.value.messageId.endsWith("-RESENT");
    // A purchase begins with its auth, or — with no authorisation — with its settlement (no auth code).
    const withoutAuth = lines.filter((l) => l.value.messageType === "SETTLEMENT" && l.value.authCode === null && !resent(l));
    expect(auths.length + withoutAuth.length).toBe(400);
    for (const s of withoutAuth) expect(of(s.value.transactionId, "AUTH")).toEqual([]);
    const counts = { voids: 0, refunds: 0, partial: 0, multiple: 0, tips: 0, increments: 0, expiries: 0, resent: 0 };
    for (const auth of auths) {
      const id = auth.value.transactionId;
      const settlements = of(id, "SETTLEMENT").filter((l) => !resent(l));
      const settlement = settlements[0];
      const [voided] = of(id, "VOID");
      const [expired] = of(id, "AUTH_EXPIRY");
      // Each purchase settles, is voided, or expires: one of them — or settles in part, and what is left expires.
      expect(Boolean(settlement && voided) || Boolean(voided && expired)).toBe(false);
      expect(Boolean(settlement || voided || expired)).toBe(true);
      if (voided) counts.voids++;
      if (expired) {
        expect(Date.parse(expired.at) - Date.parse(auth.at)).toBe(7 * 24 * HOUR_MS);
        if (!settlement) counts.expiries++;
      }
      const increments = of(id, "INCREMENTAL_AUTH");
      const authorised = roundMoney(increments.reduce((sum, i) => sum + i.value.amount, auth.value.amount), auth.value.currencyCode);
      if (increments.length) counts.increments++;
      if (settlement) {
        const delay = Date.parse(settlement.at) - Date.parse(auth.at);
        expect(delay).toBeGreaterThanOrEqual(48 * HOUR_MS);
        expect(delay).toBeLessThanOrEqual(72 * HOUR_MS);
        for (const i of increments) expect(Date.parse(i.at)).toBeLessThan(Date.parse(settlement.at));
        for (const s of settlements) {
          expect(s.value).toMatchObject({ authCode: auth.value.authCode, settlementDate: s.at.slice(0, 10) });
          expect(s.value.acquirerReferenceNumber).toMatch(/^\d{23}$/);
        }
        // The whole amount authorised in one settlement, or parts of it (each its own message), or more by a tip of at most 20%.
        const settled = roundMoney(settlements.reduce((sum, s) => sum + s.value.amount, 0), auth.value.currencyCode);
        expect(settled).toBeLessThanOrEqual(roundMoney(authorised * 1.2, auth.value.currencyCode));
        expect(new Set(settlements.map((s) => s.value.messageId)).size).toBe(settlements.length);
        if (settlements.length > 1) {
          counts.multiple++;
          expect(settled).toBe(auth.value.amount);
        } else if (settled < authorised) counts.partial++;
        else if (settled > authorised) counts.tips++;
        else expect(settled).toBe(authorised);
        // The expiry withdraws exactly what never settled; a purchase settled in full does not expire.
        if (expired) expect(expired.value.amount).toBe(roundMoney(authorised - settled, auth.value.currencyCode));
        else expect(settled).toBeGreaterThanOrEqual(authorised);
      }
      const refund = lines.find((l) => l.value.messageType === "REFUND" && l.value.originalTransactionId === id);
      if (refund) {
        counts.refunds++;
        expect(refund.value.amount).toBeLessThan(0);
        expect(-refund.value.amount).toBeLessThanOrEqual(auth.value.amount);
        expect(Date.parse(refund.at)).toBeGreaterThan(Date.parse(settlement!.at));
      }
    }
    // A settlement sent again: a day after the first, its own message id, the same acquirer reference number and amount.
    for (const again of lines.filter(resent)) {
      counts.resent++;
      const first = of(again.value.transactionId, "SETTLEMENT").find((l) => l.value.acquirerReferenceNumber === again.value.acquirerReferenceNumber && !resent(l))!;
      expect(Date.parse(again.at) - Date.parse(first.at)).toBe(24 * HOUR_MS);
      expect([again.value.amount, again.value.messageId]).toEqual([first.value.amount, `${first.value.messageId}-RESENT`]);
    }
    for (const [what, n] of Object.entries(counts)) expect(n, what).toBeGreaterThan(0);
    expect(withoutAuth.length).toBeGreaterThan(0);
    // Some refunds name no purchase, as networks send them.
    expect(lines.some((l) => l.value.messageType === "REFUND" && l.value.originalTransactionId === null)).toBe(true);
    // Some purchases are billed abroad: the cardholder's amount and currency beside the purchase's own.
    const abroad = auths.filter((a) => a.value.billingCurrencyCode !== null);
    expect(abroad.length).toBeGreaterThan(0);
    for (const a of abroad) expect(a.value.billingCurrencyCode).not.toBe(a.value.currencyCode);
    // Noise and variety: several currencies, wallets, card-present both ways, targeting tags.
    expect(new Set(auths.map((a) => a.value.currencyCode)).size).toBeGreaterThan(2);
    expect(new Set(auths.map((a) => a.value.wallet)).size).toBeGreaterThan(2);
    expect(new Set(auths.map((a) => a.value.cardPresent))).toEqual(new Set([true, false]));
    expect(new Set(auths.map((a) => a.value.targetingTag))).toEqual(new Set([null, "new", "lapsed", "existing"]));
    expect(auths.some((a) => a.value.merchant.vmid === null)).toBe(true);
  });

  it("clears Mastercard in its 12:00 UTC batch with a sequence number, and Amex submissions 48 to 72 hours on", () => {
    const mc = parse<MastercardTransaction>(dryRun(ADAPTERS.mastercard, options(5, 200)));
    // Every clearing in the batch, one with no authorization or sent again too; the first of each (sent again: its own message id, the same sequence number).
    for (const clearing of mc.filter((l) => l.value.messageType === "CLEARING")) expect(clearing.at.slice(11)).toBe("12:00:00.000Z");
    const clearings = mc.filter((l) => l.value.messageType === "CLEARING" && l.value.authCode !== null && !l.value.messageId.endsWith("-RESENT"));
    for (const clearing of clearings) {
      const auth = mc.find((l) => l.value.messageType === "AUTHORIZATION" && l.value.refNumber === clearing.value.refNumber)!;
      // The first clearing of a purchase; further ones (a purchase cleared in parts) a day apart after it.
      const first = clearings.find((c) => c.value.refNumber === clearing.value.refNumber)!;
      const delay = Date.parse(first.at) - Date.parse(auth.at);
      expect(delay).toBeGreaterThanOrEqual(48 * HOUR_MS);
      expect(delay).toBeLessThan(72 * HOUR_MS);
      expect(clearing.value.transactionSequenceNumber).toMatch(/^\d{13}$/);
      expect(auth.value.transactionSequenceNumber).toBeNull();
    }
    // Each clearing of a purchase has its own transaction sequence number.
    expect(new Set(clearings.map((c) => c.value.transactionSequenceNumber)).size).toBe(clearings.length);
    expect(new Set(clearings.map((c) => c.value.refNumber)).size).toBeLessThan(clearings.length);
    const amex = parse<AmexTransaction>(dryRun(ADAPTERS.amex, options(5, 200)));
    const submissions = amex.filter((l) => l.value.messageType === "SUBMISSION" && l.value.approvalCode !== null && !l.value.messageId.endsWith("-RESENT"));
    for (const submission of submissions) {
      const auth = amex.find((l) => l.value.messageType === "AUTH" && l.value.transactionId === submission.value.transactionId)!;
      const first = submissions.find((c) => c.value.transactionId === submission.value.transactionId)!;
      const delay = Date.parse(first.at) - Date.parse(auth.at);
      expect(delay).toBeGreaterThanOrEqual(48 * HOUR_MS);
      expect(delay).toBeLessThanOrEqual(72 * HOUR_MS);
      expect(submission.value.merchant.seNumber).toMatch(/^\d{10}$/);
      expect(submission.value.approvalCode).toBe(auth.value.approvalCode);
    }
  });
});
