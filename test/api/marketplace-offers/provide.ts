// The marketplace-offer tests' shared setup: a content provider's offer made through the admin route.
import { afterAll, beforeAll } from "vitest";
import { createHarness, expectStatus, type Harness } from "../../support/harness.ts";
import { localIn } from "../../support/offers-world.ts";

export type MarketplaceOffer = Record<string, unknown> & { id: string; available: boolean; addedAs: string | null; brandName: string; endDate: string };
export type Page<T> = { items: T[]; count: number; last?: string };

let counter = 0;
/** A number no other call in this test file has had: brand names made with it are the test's own. */
export function nextNumber(): number {
  counter += 1;
  return counter;
}

let current: Harness | undefined;

/**
 * Opens the file's harness (its service clock frozen at 2026-01-05T12:00:00Z) before its tests, handing it
 * to `take`, and closes it after them.
 */
export function useMarketplaceHarness(take: (h: Harness) => void): void {
  beforeAll(async () => take((current = await createHarness())));
  afterAll(() => current?.close());
}

/** A marketplace offer of a brand no other test uses, so listings can be filtered to it. */
export async function provide(over: Record<string, unknown> = {}) {
  const h = current!;
  const body = {
    name: "15% off",
    brandName: `Provider brand ${nextNumber()}`,
    countryCode: "GBR",
    startDate: localIn(h, -1),
    type: { name: "discount", value: 15, maxRewardAmount: 50 },
    fees: { publisherFee: 1, serviceFee: 0.5 },
    supplier: { id: "cp_brightside", type: "affiliate", name: "Brightside Rewards" },
    ...over,
  };
  return expectStatus<MarketplaceOffer & { brandDecision: { decision: string; afterHours: number } }>(
    await h.admin("POST", "/admin/marketplace-offers", body),
    201,
  );
}
