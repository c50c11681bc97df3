import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHarness, expectError, expectStatus, type Client, type Harness } from "../../support/harness.ts";

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

type Brand = { id: string; name: string; logoUrl: string | null; consent: string; live: boolean; metadata: unknown; updated: string };
const HOUR = 3_600_000;

/**
 * The `brand.consent` events of the client's environment, oldest first: a brand belongs to no program, so
 * its events are in every program's list (a program is made to read them).
 */
async function consentEvents(client: Client): Promise<{ created: string; payload: { data: Brand } }[]> {
  const program = await expectStatus<{ id: string }>(await client.post("/v1/programs", { name: "Events" }), 201);
  const page = await expectStatus<{ items: { created: string; payload: { data: Brand } }[] }>(
    await client.get(`/v1/programs/${program.id}/webhook-events?event=brand.consent`),
    200,
  );
  return page.items.reverse();
}

describe("brands", () => {
  it("creates a test brand with consent approved at once, and reads and lists it", async () => {
    const client = (await h.createAccount()).as("test");
    const brand = await expectStatus<Brand>(
      await client.post("/v1/brands", { name: "Coffee House", logoUrl: "https://example.com/logo.png", metadata: { tier: "gold" } }),
      201,
    );
    expect(brand).toMatchObject({
      name: "Coffee House",
      logoUrl: "https://example.com/logo.png",
      consent: "approved",
      live: false,
      metadata: { tier: "gold" },
    });
    expect(await expectStatus<Brand>(await client.get(`/v1/brands/${brand.id}`), 200)).toEqual(brand);
    // A test brand consents at once, as Fidel's test environment does: its brand.consent came with it.
    expect((await consentEvents(client)).map((e) => e.payload.data)).toEqual([brand]);
    const other = await expectStatus<Brand>(await client.post("/v1/brands", { name: "Bakery" }), 201);
    expect(other.logoUrl).toBeNull();
    const list = await expectStatus<{ items: Brand[]; count: number; last?: string }>(await client.get("/v1/brands?limit=1"), 200);
    expect(list.count).toBe(2);
    // Newest first; the frozen clock gives both the same created time, and the id breaks the tie.
    const [first, second] = [brand, other].sort((a, b) => (a.id < b.id ? 1 : -1));
    expect(list.items.map((b) => b.id)).toEqual([first!.id]);
    const rest = await expectStatus<{ items: Brand[] }>(await client.get(`/v1/brands?limit=1&start=${list.last}`), 200);
    expect(rest.items.map((b) => b.id)).toEqual([second!.id]);
  });

  it("requests consent in live and lets the simulated brand approve it 1 to 3 days later on the service clock", async () => {
    const client = (await h.createAccount()).as("live");
    const brand = await expectStatus<Brand>(await client.post("/v1/brands", { name: "Live brand" }), 201);
    expect(brand).toMatchObject({ consent: "requested", live: true });
    await h.services.clock.advance(24 * HOUR - 1000);
    expect((await expectStatus<Brand>(await client.get(`/v1/brands/${brand.id}`), 200)).consent).toBe("requested");
    await h.services.clock.advance(2 * 24 * HOUR + 1000);
    const approved = await expectStatus<Brand>(await client.get(`/v1/brands/${brand.id}`), 200);
    expect(approved.consent).toBe("approved");
    // Approved at the brand's answer time, not at the end of the jump.
    expect(Date.parse(approved.updated)).toBeLessThanOrEqual(h.services.clock.now().getTime());
    expect(Date.parse(approved.updated)).toBeGreaterThanOrEqual(Date.parse(brand.updated) + 24 * HOUR);
    // Told once, at the brand's answer time.
    expect((await consentEvents(client)).map((e) => [e.created, e.payload.data])).toEqual([[approved.updated, approved]]);
  });

  it("lets the operator approve or decline at once with POST /admin/brands/{brandId}/consent", async () => {
    const client = (await h.createAccount()).as("live");
    const brand = await expectStatus<Brand>(await client.post("/v1/brands", { name: "Decided" }), 201);
    const declined = await expectStatus<Brand>(
      await h.admin("POST", `/admin/brands/${brand.id}/consent`, { decision: "declined" }),
      200,
    );
    expect(declined.consent).toBe("declined");
    // A decided brand is no longer waiting for the simulated answer.
    await h.services.clock.advance(4 * 24 * HOUR);
    expect((await expectStatus<Brand>(await client.get(`/v1/brands/${brand.id}`), 200)).consent).toBe("declined");
    const approved = await expectStatus<Brand>(
      await h.admin("POST", `/admin/brands/${brand.id}/consent`, { decision: "approved" }),
      200,
    );
    expect(approved.consent).toBe("approved");
    // Each answer that changed the consent is told; approving it again changes nothing and tells nothing.
    await expectStatus(await h.admin("POST", `/admin/brands/${brand.id}/consent`, { decision: "approved" }), 200);
    expect((await consentEvents(client)).map((e) => e.payload.data.consent)).toEqual(["declined", "approved"]);

    expect(await expectError(await h.admin("POST", `/admin/brands/${brand.id}/consent`, { decision: "maybe" }), 400, "invalid_request")).toMatch(
      /^decision: must be approved or declined/,
    );
    await expectError(
      await h.admin("POST", "/admin/brands/3f2b9c1e-8d4a-4b6e-9f1a-2c3d4e5f6a7b/consent", { decision: "approved" }),
      404,
      "resource_not_found",
    );
    await expectError(
      await h.request("POST", `/admin/brands/${brand.id}/consent`, { body: { decision: "approved" } }),
      401,
      "unauthorized",
    );
    await expectError(
      await h.request("POST", `/admin/brands/${brand.id}/consent`, {
        body: { decision: "approved" },
        headers: { Authorization: `Bearer ${(await h.createAccount()).keys.live}` },
      }),
      401,
      "unauthorized",
    );
  });

  it("names the field in validation errors", async () => {
    const client = (await h.createAccount()).as("test");
    const bad = async (body: unknown) => expectError(await client.post("/v1/brands", body), 400, "invalid_request");
    expect(await bad({})).toMatch(/^name: required/);
    expect(await bad({ name: "  " })).toMatch(/^name: must not be empty/);
    expect(await bad({ name: "x".repeat(201) })).toMatch(/^name: must be at most 200/);
    expect(await bad({ name: "B", logoUrl: "ftp://example.com/logo.png" })).toMatch(/^logoUrl: must be an http or https URL/);
    expect(await bad({ name: "B", logoUrl: "not a url" })).toMatch(/^logoUrl:/);
    expect(await bad({ name: "B", metadata: "x" })).toMatch(/^metadata:/);
    expect(await bad({ name: "B", consent: "approved" })).toMatch(/consent: unknown field/);
    expect(await expectError(await client.get("/v1/brands?limit=0"), 400, "invalid_request")).toMatch(/^limit:/);
    expect(await expectError(await client.get("/v1/brands/nope"), 400, "invalid_request")).toMatch(/^brandId: must be a UUID/);
  });

  it("keeps brands to their account and environment", async () => {
    const owner = await h.createAccount();
    const stranger = await h.createAccount();
    const brand = await expectStatus<Brand>(await owner.as("test").post("/v1/brands", { name: "Mine" }), 201);
    await expectError(await stranger.as("test").get(`/v1/brands/${brand.id}`), 404, "resource_not_found");
    await expectError(await owner.as("live").get(`/v1/brands/${brand.id}`), 404, "resource_not_found");
    expect((await expectStatus<{ count: number }>(await owner.as("live").get("/v1/brands"), 200)).count).toBe(0);
    expect((await expectStatus<{ count: number }>(await stranger.as("test").get("/v1/brands"), 200)).count).toBe(0);
    await expectError(await h.request("GET", "/v1/brands"), 401, "unauthorized");
  });
});
