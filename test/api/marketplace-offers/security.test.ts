// Marketplace offers, access: the admin routes need the admin token; a publisher adopts only into its own
// programs, and only offers that exist and have not ended.
import { describe, expect, it } from "vitest";
import { expectError, type Harness } from "../../support/harness.ts";
import { localIn, world } from "../../support/offers-world.ts";
import { provide, useMarketplaceHarness } from "./provide.ts";

let h: Harness;
useMarketplaceHarness((opened) => (h = opened));

describe("marketplace offers (admin)", () => {
  it("needs the admin token", async () => {
    const w = await world(h);
    await expectError(await h.request("POST", "/admin/marketplace-offers", { body: {}, headers: { "Cardlink-Key": w.acct.keys.test } }), 401, "unauthorized");
  });
});

describe("adopting a marketplace offer", () => {
  it("refuses ended offers, other accounts' programs and unknown offers", async () => {
    const w = await world(h);
    const ended = await provide({ startDate: localIn(h, -30), endDate: localIn(h, -1) });
    expect(await expectError(await w.client.post(`/v1/marketplace-offers/${ended.id}/programs/${w.programId}`), 409, "conflict")).toMatch(/ended/);
    const other = await world(h);
    const open = await provide();
    await expectError(await w.client.post(`/v1/marketplace-offers/${open.id}/programs/${other.programId}`), 404, "resource_not_found");
    await expectError(await w.client.post(`/v1/marketplace-offers/${w.brandId}/programs/${w.programId}`), 404, "resource_not_found");
  });
});
