// The offer routes' isolation: another account's brand is not the caller's, and a listing shows only the
// key's account and environment.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHarness, expectStatus, type Harness } from "../../support/harness.ts";
import { expect400, world, type Offer } from "../../support/offers-world.ts";

let h: Harness;
beforeAll(async () => {
  h = await createHarness(); // service clock frozen at 2026-01-05T12:00:00Z
});
afterAll(() => h.close());

type Page<T> = { items: T[]; count: number; last?: string };

describe("POST /offers", () => {
  it("400 for a brand that is not the caller's", async () => {
    const w = await world(h);
    const other = await world(h);
    await expect400(await w.createOffer({ brandId: other.brandId }), "brandId: no brand with this id");
  });
});

describe("GET /offers", () => {
  it("shows only the key's environment and account", async () => {
    const w = await world(h);
    await w.offer();
    const other = await world(h);
    expect((await expectStatus<Page<Offer>>(await other.client.get("/v1/offers"), 200)).count).toBe(0);
    expect((await expectStatus<Page<Offer>>(await w.acct.as("live").get("/v1/offers"), 200)).count).toBe(0);
  });
});
