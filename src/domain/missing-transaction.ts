// Missing transaction requests as pure rules: the scheme windows, the pending period, retention, the
// test-mode amounts and the spec's "Missing transaction request status" state table.
import type { Scheme } from "./card-number.ts";
import { currencyMinorDigits } from "./countries.ts";
import { DAY_MS } from "./time-units.ts";

export const MISSING_REQUEST_STATUSES = ["pending", "processing", "successful", "failed"] as const;
export type MissingRequestStatus = (typeof MISSING_REQUEST_STATUSES)[number];

/** How far back each network searches (the spec's transaction date window), in days. */
export const LOOKUP_WINDOW_DAYS: Record<Scheme, number> = { visa: 90, mastercard: 90, amex: 30 };
/** A live request waits this long after the transaction date before it goes to the network. */
export const PENDING_DAYS = 4;
/** Requests for transactions older than this are no longer listed. */
export const RETENTION_DAYS = 90;

export const MISSING_REQUEST_ERRORS = [
  "transaction-not-found",
  "card-not-found",
  "card-not-linked-to-program",
  "program-not-found",
  "network-request-failed",
  "unexpected-error",
] as const;
export type MissingRequestError = (typeof MISSING_REQUEST_ERRORS)[number];

/** The spec's test-mode outcomes by amount; any other amount succeeds. */
export const TEST_AMOUNT_ERRORS: Record<string, { code: MissingRequestError; message: string }> = {
  "10.01": { code: "transaction-not-found", message: "The network found no transaction matching the card, date and amount." },
  "10.02": { code: "card-not-found", message: "The card is unknown to the network." },
  "10.03": { code: "card-not-linked-to-program", message: "The card is not linked to the program at the network." },
  "10.04": { code: "program-not-found", message: "The program is unknown to the network." },
  "10.05": { code: "network-request-failed", message: "The request to the network failed." },
  "10.06": { code: "unexpected-error", message: "An unexpected error occurred at the network." },
};

export const testAmountError = (amount: number) => TEST_AMOUNT_ERRORS[amount.toFixed(2)];

const dayOf = (at: Date) => at.toISOString().slice(0, 10);
const daysBefore = (day: string, days: number) => dayOf(new Date(Date.parse(`${day}T00:00:00Z`) - days * DAY_MS));

/**
 * Why `transactionDate` (an ISO date, or a date-time whose instant is checked against now) cannot be
 * asked about on `scheme` at `now`, or undefined. Dates are service-clock UTC days; the window counts
 * back from today: visa 90 days back is the last day accepted, 91 is refused.
 */
export function transactionDateProblem(scheme: Scheme, transactionDate: string, now: Date): string | undefined {
  const day = transactionDate.slice(0, 10);
  const today = dayOf(now);
  const future = transactionDate.length > 10 ? Date.parse(transactionDate) > now.getTime() : day > today;
  if (future) return "must not be in the future";
  const window = LOOKUP_WINDOW_DAYS[scheme];
  if (day < daysBefore(today, window)) {
    return `must be within the last ${window} days: ${scheme} searches ${window} days back (the earliest date today is ${daysBefore(today, window)})`;
  }
  return undefined;
}

/** Why `amount` is not a transaction amount in `currency`, or undefined. */
export function amountProblem(amount: number, currency: string): string | undefined {
  if (amount < 0) return "must be 0 or greater";
  const digits = currencyMinorDigits(currency);
  const scaled = Number((amount * 10 ** digits).toPrecision(12));
  if (!Number.isInteger(scaled)) return `must have at most ${digits} decimal places in ${currency}`;
  return undefined;
}

/** When a live request for a transaction on `day` goes to the network: 4 days after that date. */
export const lookupDueAt = (day: string): Date => new Date(Date.parse(`${day}T00:00:00Z`) + PENDING_DAYS * DAY_MS);

/** The first date still listed at `now` (retention). */
export const retainedSince = (now: Date): string => daysBefore(dayOf(now), RETENTION_DAYS);

/**
 * Where a new request starts: in test it is processed at once (no pending period); in live it is
 * pending while the transaction is less than 4 days old, else it goes to the network at once.
 */
export function initialRequestStatus(live: boolean, dueAt: Date, now: Date): "pending" | "processing" {
  if (!live) return "processing";
  return dueAt.getTime() > now.getTime() ? "pending" : "processing";
}

export type RequestEvent = "window-passed" | "network-found" | "network-not-found";

const TRANSITIONS: Record<MissingRequestStatus, Partial<Record<RequestEvent, MissingRequestStatus>>> = {
  pending: { "window-passed": "processing" },
  processing: { "network-found": "successful", "network-not-found": "failed" },
  successful: {},
  failed: {},
};

export function requestTransition(
  from: MissingRequestStatus,
  event: RequestEvent,
): { ok: true; status: MissingRequestStatus } | { ok: false; reason: string } {
  const to = TRANSITIONS[from][event];
  return to ? { ok: true, status: to } : { ok: false, reason: `a ${from} request cannot take ${event}` };
}
