// Marketplace offers, refusals: 400 naming the field for an invalid provider offer, 409 naming the rule
// for an adoption that breaks rule 4 and for changes to an adopted copy that are the provider's.
import { describe, expect, it } from "vitest";
import { expectError, expectStatus, type Harness } from "../../support/harness.ts";
import { expect400, localIn, world, type Offer } from "../../support/offers-world.ts";
import { provide, useMarketplaceHarness } from "./provide.ts";

let h: Harness;
useMarketplaceHarness((opened) => (h = opened));

describe("marketplace offers (admin)", () => {
  it.each<[string, Record<string, unknown>, string]>([
    ["supplier missing", { supplier: undefined }, "supplier: required"],
    ["supplier type card-linking", { supplier: { id: "x", type: "card-linking", name: "X" } }, "supplier.type: must be merchant or affiliate"],
    ["feeSplit", { feeSplit: 1 }, "feeSplit: unknown field"],
    ["channel unknown", { channels: ["mail"] }, "channels.0: must be online or in-store"],
    ["targeting to above 365", { targeting: { name: "lapsed", from: 1, to: 400 } }, "targeting.to: must be at most 365 days"],
    ["maxRewardAmount on amount", { type: { name: "amount", value: 5, maxRewardAmount: 1 } }, "type.maxRewardAmount: only for discount offers"],
  ])("400 for %s", async (_name, over, message) => {
    const res = await h.admin("POST", "/admin/marketplace-offers", {
      name: "x",
      brandName: "x",
      countryCode: "GBR",
      startDate: "2026-01-01T00:00:00",
      type: { name: "discount", value: 5 },
      supplier: { id: "cp", type: "merchant", name: "M" },
      ...over,
    });
    await expect400(res, message);
  });
});

describe("adopting a marketplace offer", () => {
  it("keeps rule 4 with the publisher's own offers of the brand", async () => {
    const w = await world(h);
    await w.offer({ startDate: localIn(h, -1), activation: { enabled: false } });
    const m = await provide({ brandName: "Coffee House", activation: { enabled: true } });
    expect(await expectError(await w.client.post(`/v1/marketplace-offers/${m.id}/programs/${w.programId}`), 409, "conflict")).toMatch(/^activation\.enabled/);
  });

  it("cannot be deleted by the publisher and only its metadata is the publisher's to change", async () => {
    const w = await world(h);
    const m = await provide();
    const offer = await expectStatus<Offer>(await w.client.post(`/v1/marketplace-offers/${m.id}/programs/${w.programId}`), 201);
    expect(await expectError(await w.client.delete(`/v1/offers/${offer.id}`), 409, "conflict")).toMatch(
      /comes from the marketplace .* only self-sourced offers you created can be deleted/,
    );
    expect((await expectStatus<Offer>(await w.client.patch(`/v1/offers/${offer.id}`, { metadata: { shelf: 2 } }), 200)).metadata).toEqual({ shelf: 2 });
    await expect400(await w.client.patch(`/v1/offers/${offer.id}`, { endDate: localIn(h, 400) }), "endDate: set by the content provider");
    await expectStatus(await w.client.get(`/v1/offers/${offer.id}`), 200);
  });
});
