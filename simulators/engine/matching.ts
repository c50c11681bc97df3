// How a network scores its own purchases against a missing-transaction look-up: amount, date and
// merchant agreement make a matchScore from 0 to 100. Pure.
import type { LookupRequest } from "../../src/platform/bus/messages.ts";
import { DAY_MS } from "../../src/domain/time-units.ts";
import type { MerchantIds, Purchase } from "./types.ts";

/** Below this score a purchase is not reported. */
export const MIN_MATCH_SCORE = 40;
/** Purchases this many days either side of the requested date are considered. */
export const DATE_TOLERANCE_DAYS = 3;
export const MAX_ENTRIES = 5;

const daysBetween = (a: string, b: string) => Math.round(Math.abs(Date.parse(`${a}T00:00:00Z`) - Date.parse(`${b}T00:00:00Z`)) / DAY_MS);

function amountScore(found: number, asked: number): number {
  const diff = Math.abs(found - asked) / Math.max(Math.abs(asked), 0.01);
  if (diff === 0) return 60;
  if (diff <= 0.01) return 45;
  if (diff <= 0.05) return 30;
  if (diff <= 0.2) return 10;
  return 0;
}

const DATE_SCORES = [30, 20, 10, 5];

const ID_FIELDS = ["vmid", "vsid", "visaAcquiringMid", "mcLocationId", "mcAcquiringMid", "seNumber"] as const;

function sameMerchant(purchase: Purchase, request: Pick<LookupRequest, "locationId" | "mids">): boolean {
  if (request.locationId && purchase.merchant.locationId === request.locationId) return true;
  return request.mids.some((m: MerchantIds) => ID_FIELDS.some((f) => m[f] !== null && m[f] === purchase.merchant.mids[f]));
}

export function matchScore(purchase: Purchase, request: Pick<LookupRequest, "amount" | "transactionDate" | "locationId" | "mids">): number {
  const days = daysBetween(purchase.localDateTime.slice(0, 10), request.transactionDate);
  const date = DATE_SCORES[days] ?? 0;
  return Math.min(100, amountScore(purchase.amount, request.amount) + date + (sameMerchant(purchase, request) ? 10 : 0));
}
