import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHarness, expectError, expectStatus, type Harness } from "../../support/harness.ts";

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

type Program = { id: string; name: string; live: boolean; status: string; metadata: unknown };

describe("programs", () => {
  it("creates, reads, lists and renames a program in the key's environment", async () => {
    const acct = await h.createAccount();
    const created = await expectStatus<Program>(
      await acct.as("test").post("/v1/programs", { name: "Rewards", metadata: { a: 1 } }),
      201,
    );
    expect(created).toMatchObject({ name: "Rewards", live: false, status: "idle", metadata: { a: 1 } });
    const fetched = await expectStatus<Program>(await acct.as("test").get(`/v1/programs/${created.id}`), 200);
    expect(fetched).toEqual(created);
    const renamed = await expectStatus<Program>(
      await acct.as("test").patch(`/v1/programs/${created.id}`, { name: "Rewards 2" }),
      200,
    );
    expect(renamed.name).toBe("Rewards 2");
    expect(renamed.metadata).toEqual({ a: 1 });
    const live = await expectStatus<Program>(await acct.as("live").post("/v1/programs", { name: "Live" }), 201);
    expect(live.live).toBe(true);
    const list = await expectStatus<{ items: Program[]; count: number }>(await acct.as("test").get("/v1/programs"), 200);
    expect(list.items.map((p) => p.id)).toEqual([created.id]);
    expect(list.count).toBe(1);
  });

  it("pages with limit and the start cursor, newest first, without repeats", async () => {
    const client = (await h.createAccount()).as("test");
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await expectStatus<Program>(await client.post("/v1/programs", { name: `P${i}` }), 201)).id);
    }
    const seen: string[] = [];
    let path = "/v1/programs?limit=2";
    for (;;) {
      const page = await expectStatus<{ items: Program[]; count: number; last?: string }>(await client.get(path), 200);
      expect(page.count).toBe(5);
      seen.push(...page.items.map((p) => p.id));
      if (!page.last) break;
      path = `/v1/programs?limit=2&start=${encodeURIComponent(page.last)}`;
    }
    expect(new Set(seen).size).toBe(5);
    expect(seen.sort()).toEqual([...ids].sort());
  });

  it("names the field in validation errors", async () => {
    const client = (await h.createAccount()).as("test");
    expect(await expectError(await client.post("/v1/programs", {}), 400, "invalid_request")).toMatch(/^name: required/);
    expect(await expectError(await client.post("/v1/programs", { name: "" }), 400, "invalid_request")).toMatch(/^name:/);
    expect(await expectError(await client.post("/v1/programs", { name: "x", colour: 1 }), 400, "invalid_request")).toMatch(
      /colour: unknown field/,
    );
    expect(await expectError(await client.get("/v1/programs?limit=101"), 400, "invalid_request")).toMatch(/^limit:/);
    expect(await expectError(await client.get("/v1/programs?limit=abc"), 400, "invalid_request")).toMatch(/^limit:/);
    expect(await expectError(await client.get("/v1/programs?start=%%%"), 400, "invalid_request")).toMatch(/^start:/);
    expect(await expectError(await client.get("/v1/programs/not-a-uuid"), 400, "invalid_request")).toMatch(/^programId:/);
  });

  it("answers a test sync at once and allows one live sync at a time, telling each move with program.status", async () => {
    const acct = await h.createAccount();
    const testProgram = await expectStatus<Program>(await acct.as("test").post("/v1/programs", { name: "T" }), 201);
    const statusEvents = async (key: "test" | "live", programId: string) =>
      (
        await expectStatus<{ items: { payload: { data: Program & { sync: { status: string } } } }[] }>(
          await acct.as(key).get(`/v1/programs/${programId}/webhook-events?event=program.status`),
          200,
        )
      ).items
        .map((e) => [e.payload.data.status, e.payload.data.sync.status])
        // Moves told in one instant of a frozen clock have no order of their own.
        .sort();
    // The test networks answer at once: it starts and ends in one request, both moves told.
    const synced = await expectStatus<Program & { sync: { status: string } }>(
      await acct.as("test").patch(`/v1/programs/${testProgram.id}`, { status: "syncing" }),
      200,
    );
    expect(synced).toMatchObject({ status: "idle", sync: { status: "completed" } });
    expect(await statusEvents("test", testProgram.id)).toEqual([
      ["idle", "completed"],
      ["syncing", "running"],
    ]);
    const liveProgram = await expectStatus<Program>(await acct.as("live").post("/v1/programs", { name: "L" }), 201);
    const brand = await expectStatus<{ id: string }>(await acct.as("live").post("/v1/brands", { name: "B" }), 201);
    await expectStatus(await h.admin("POST", `/admin/brands/${brand.id}/consent`, { decision: "approved" }), 200);
    const location = { address: "2 Market Street", brandId: brand.id, city: "Leeds", countryCode: "GBR", postcode: "LS1 6AA" };
    await expectStatus(await acct.as("live").post(`/v1/programs/${liveProgram.id}/locations`, location), 201);
    const syncing = await expectStatus<Program>(
      await acct.as("live").patch(`/v1/programs/${liveProgram.id}`, { status: "syncing" }),
      200,
    );
    expect(syncing.status).toBe("syncing");
    expect(await statusEvents("live", liveProgram.id)).toEqual([["syncing", "running"]]);
    await expectError(await acct.as("live").patch(`/v1/programs/${liveProgram.id}`, { status: "syncing" }), 409, "conflict");
    await expectError(await acct.as("live").patch(`/v1/programs/${liveProgram.id}`, { status: "idle" }), 400, "invalid_request");
  });
});

describe("account", () => {
  it("tells the key's account id, tier and environment", async () => {
    const acct = await h.createAccount({ tier: "premium", name: "Acme" });
    expect(await expectStatus(await acct.as("test").get("/v1/account"), 200)).toEqual({ id: acct.id, name: "Acme", tier: "premium", live: false });
    expect(await expectStatus(await acct.as("live").get("/v1/account"), 200)).toMatchObject({ id: acct.id, live: true });
  });
});
