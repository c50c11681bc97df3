import { describe, expect, it } from "vitest";
import {
  adoptedTerms,
  adoptionApproval,
  isAvailable,
  marketplaceTerms,
  type MarketplaceOfferInput,
} from "../../src/domain/offer-marketplace.ts";

const input = (over: Partial<MarketplaceOfferInput> = {}): MarketplaceOfferInput => ({
  name: "15% off",
  brandName: "Brightside Coffee",
  countryCode: "GBR",
  startDate: "2026-01-01T00:00:00",
  type: { name: "discount", value: 15 },
  supplier: { id: "cp_1", type: "merchant", name: "Brightside" },
  ...over,
});

describe("marketplace offers", () => {
  it("are of the targeting variant, funded by their content provider, with the offer defaults", () => {
    const result = marketplaceTerms(input());
    expect(result.ok && result.value).toMatchObject({
      currency: "GBP",
      endDate: "2027-01-01T00:00:00",
      fees: { publisherFee: 0, serviceFee: 0 },
      feeSplit: null,
      funded: { id: "cp_1", type: "merchant" },
      activation: { enabled: false },
    });
  });

  it("follow the offer rules", () => {
    const result = marketplaceTerms(input({ targeting: { name: "existing", from: 0 } }));
    expect(result.ok ? [] : result.problems.map((p) => p.field)).toEqual(["targeting.to"]);
  });

  it("are funded by the publisher as card-linking when adopted in the test environment, by the provider in live", () => {
    const result = marketplaceTerms(input());
    if (!result.ok) throw new Error("invalid");
    expect(adoptedTerms(result.value, { accountId: "acct-1", live: false }).funded).toEqual({ id: "acct-1", type: "card-linking" });
    expect(adoptedTerms(result.value, { accountId: "acct-1", live: true }).funded).toEqual({ id: "cp_1", type: "merchant" });
  });

  it("are answered by the brand at once in test and after the provider's delay in live", () => {
    const now = new Date("2026-01-05T12:00:00Z");
    expect(adoptionApproval("accept", 48, false, now)).toEqual({ approval: "accepted", due: null });
    expect(adoptionApproval("decline", 48, false, now)).toEqual({ approval: "declined", due: null });
    expect(adoptionApproval("decline", 12, true, now)).toEqual({ approval: "pending", due: new Date("2026-01-06T00:00:00Z") });
  });

  it.each<[string, string, string | null, boolean]>([
    ["open and not added", "2026-01-06T00:00:00Z", null, true],
    ["ending exactly now", "2026-01-05T12:00:00Z", null, true],
    ["ended", "2026-01-05T11:59:59Z", null, false],
    ["added already", "2026-01-06T00:00:00Z", "offer-1", false],
  ])("availability: %s", (_name, endAt, addedAs, available) => {
    expect(isAvailable(new Date(endAt), addedAs, new Date("2026-01-05T12:00:00Z"))).toBe(available);
  });
});
