import { describe, expect, it } from "vitest";
import {
  MISSING_REQUEST_STATUSES,
  amountProblem,
  initialRequestStatus,
  lookupDueAt,
  requestTransition,
  retainedSince,
  testAmountError,
  transactionDateProblem,
  type MissingRequestStatus,
  type RequestEvent,
} from "../../src/domain/missing-transaction.ts";

const NOW = new Date("2026-04-10T15:00:00Z");
const daysBack = (n: number) => new Date(Date.parse("2026-04-10T00:00:00Z") - n * 86_400_000).toISOString().slice(0, 10);

describe("missing transaction request status: every transition and every refused one", () => {
  const EVENTS: RequestEvent[] = ["window-passed", "network-found", "network-not-found"];
  const ALLOWED: [MissingRequestStatus, RequestEvent, MissingRequestStatus][] = [
    ["pending", "window-passed", "processing"],
    ["processing", "network-found", "successful"],
    ["processing", "network-not-found", "failed"],
  ];
  const cases = MISSING_REQUEST_STATUSES.flatMap((from) =>
    EVENTS.map((event) => ({ from, event, to: ALLOWED.find(([f, e]) => f === from && e === event)?.[2] ?? null })),
  );

  it.each(cases)("$from + $event -> $to", ({ from, event, to }) => {
    const next = requestTransition(from, event);
    if (to) expect(next).toEqual({ ok: true, status: to });
    else expect(next).toMatchObject({ ok: false, reason: expect.stringContaining(from) });
  });

  it("creates a live request pending while the transaction is under 4 days old, processing after", () => {
    expect(lookupDueAt("2026-04-08").toISOString()).toBe("2026-04-12T00:00:00.000Z");
    expect(initialRequestStatus(true, lookupDueAt(daysBack(2)), NOW)).toBe("pending");
    expect(initialRequestStatus(true, lookupDueAt(daysBack(3)), NOW)).toBe("pending");
    expect(initialRequestStatus(true, lookupDueAt(daysBack(4)), NOW)).toBe("processing");
  });

  it("processes a test request at once, with no pending period", () => {
    expect(initialRequestStatus(false, lookupDueAt(daysBack(0)), NOW)).toBe("processing");
  });
});

describe("transaction date windows on the service clock", () => {
  it("accepts visa and mastercard 89 and 90 days back and refuses 91", () => {
    for (const scheme of ["visa", "mastercard"] as const) {
      expect(transactionDateProblem(scheme, daysBack(89), NOW)).toBeUndefined();
      expect(transactionDateProblem(scheme, daysBack(90), NOW)).toBeUndefined();
      expect(transactionDateProblem(scheme, daysBack(91), NOW)).toMatch(new RegExp(`${scheme} searches 90 days back`));
    }
  });

  it("accepts amex 30 days back and refuses 31", () => {
    expect(transactionDateProblem("amex", daysBack(30), NOW)).toBeUndefined();
    expect(transactionDateProblem("amex", daysBack(31), NOW)).toMatch(/within the last 30 days: amex searches 30 days back/);
  });

  it("refuses the future, as a date or as a date-time", () => {
    expect(transactionDateProblem("visa", daysBack(-1), NOW)).toBe("must not be in the future");
    expect(transactionDateProblem("visa", "2026-04-10T16:00:00Z", NOW)).toBe("must not be in the future");
    expect(transactionDateProblem("visa", "2026-04-10T14:00:00Z", NOW)).toBeUndefined();
    expect(transactionDateProblem("visa", daysBack(0), NOW)).toBeUndefined();
  });

  it("lists requests for transactions of the past 90 days", () => {
    expect(retainedSince(NOW)).toBe(daysBack(90));
  });
});

describe("amounts", () => {
  it("refuses a negative amount and more decimals than the currency has", () => {
    expect(amountProblem(-0.01, "GBP")).toBe("must be 0 or greater");
    expect(amountProblem(0, "GBP")).toBeUndefined();
    expect(amountProblem(12.34, "GBP")).toBeUndefined();
    expect(amountProblem(12.345, "GBP")).toBe("must have at most 2 decimal places in GBP");
    expect(amountProblem(1234.5, "JPY")).toBe("must have at most 0 decimal places in JPY");
  });

  it("maps the six test amounts to the spec's error codes", () => {
    expect([10.01, 10.02, 10.03, 10.04, 10.05, 10.06].map((a) => testAmountError(a)?.code)).toEqual([
      "transaction-not-found",
      "card-not-found",
      "card-not-linked-to-program",
      "program-not-found",
      "network-request-failed",
      "unexpected-error",
    ]);
    expect(testAmountError(10)).toBeUndefined();
    expect(testAmountError(10.07)).toBeUndefined();
  });
});
