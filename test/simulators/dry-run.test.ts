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
import { HOUR_MS } from "../../simulators/engine/scheme.ts";
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

  it("settles Visa 48 to 72 hours after the auth (in parts for some), refunds negative and after settlement, voids instead of settling", () => {
    const lines = parse<VisaTransaction>(dryRun(ADAPTERS.visa, options(3, 400)));
    const auths = lines.filter((l) => l.value.messageType === "AUTH");
    expect(auths).toHaveLength(400);
    const byTxn = (id: string, type: VisaTransaction["messageType"]) => lines.find((l) => l.value.transactionId === id && l.value.messageType === type);
    let voids = 0;
    let refunds = 0;
    let partial = 0;
    let multiple = 0;
    for (const auth of auths) {
      const settlements = lines.filter((l) => l.value.transactionId === auth.value.transactionId && l.value.messageType === "SETTLEMENT");
      const settlement = settlements[0];
      const voided = byTxn(auth.value.transactionId, "VOID");
      expect(Boolean(settlement) !== Boolean(voided)).toBe(true);
      if (voided) voids++;
      if (settlement) {
        const delay = Date.parse(settlement.at) - Date.parse(auth.at);
        expect(delay).toBeGreaterThanOrEqual(48 * HOUR_MS);
        expect(delay).toBeLessThanOrEqual(72 * HOUR_MS);
        for (const s of settlements) expect(s.value).toMatchObject({ authCode: auth.value.authCode, settlementDate: s.at.slice(0, 10) });
        // The whole amount in one settlement, or parts of it (each its own message), never more than the auth.
        const settled = roundMoney(settlements.reduce((sum, s) => sum + s.value.amount, 0), auth.value.currencyCode);
        expect(settled).toBeLessThanOrEqual(auth.value.amount);
        expect(new Set(settlements.map((s) => s.value.messageId)).size).toBe(settlements.length);
        if (settlements.length > 1) {
          multiple++;
          expect(settled).toBe(auth.value.amount);
        } else if (settled < auth.value.amount) partial++;
      }
      const refund = lines.find((l) => l.value.messageType === "REFUND" && l.value.originalTransactionId === auth.value.transactionId);
      if (refund) {
        refunds++;
        expect(refund.value.amount).toBeLessThan(0);
        expect(-refund.value.amount).toBeLessThanOrEqual(auth.value.amount);
        expect(Date.parse(refund.at)).toBeGreaterThan(Date.parse(settlement!.at));
      }
    }
    expect(voids).toBeGreaterThan(0);
    expect(refunds).toBeGreaterThan(0);
    expect(partial).toBeGreaterThan(0);
    expect(multiple).toBeGreaterThan(0);
    // Some refunds name no purchase, as networks send them.
    expect(lines.some((l) => l.value.messageType === "REFUND" && l.value.originalTransactionId === null)).toBe(true);
    // Noise and variety: several currencies, wallets, card-present both ways, targeting tags.
    expect(new Set(auths.map((a) => a.value.currencyCode)).size).toBeGreaterThan(2);
    expect(new Set(auths.map((a) => a.value.wallet)).size).toBeGreaterThan(2);
    expect(new Set(auths.map((a) => a.value.cardPresent))).toEqual(new Set([true, false]));
    expect(new Set(auths.map((a) => a.value.targetingTag))).toEqual(new Set([null, "new", "lapsed", "existing"]));
    expect(auths.some((a) => a.value.merchant.vmid === null)).toBe(true);
  });

  it("clears Mastercard in its 12:00 UTC batch with a sequence number, and Amex submissions 48 to 72 hours on", () => {
    const mc = parse<MastercardTransaction>(dryRun(ADAPTERS.mastercard, options(5, 200)));
    const clearings = mc.filter((l) => l.value.messageType === "CLEARING");
    for (const clearing of clearings) {
      const auth = mc.find((l) => l.value.messageType === "AUTHORIZATION" && l.value.refNumber === clearing.value.refNumber)!;
      expect(clearing.at.slice(11)).toBe("12:00:00.000Z");
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
    const submissions = amex.filter((l) => l.value.messageType === "SUBMISSION");
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
