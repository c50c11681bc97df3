// Sandboxes' limits and refusals, each saying what to do.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHarness, expectError, expectStatus, type Harness } from "../../support/harness.ts";

let h: Harness;
beforeAll(async () => {
  h = await createHarness({ env: { SANDBOXES_PER_ACCOUNT: "2" } });
});
afterAll(() => h.close());

describe("sandbox limits", () => {
  it("refuses a sandbox past the account's number with 409 naming the limit and how to delete one", async () => {
    const account = await h.createAccount();
    const client = account.as("test");
    await expectStatus(await client.post("/v1/sandboxes", { name: "a" }), 201);
    const b = await expectStatus<{ id: string }>(await client.post("/v1/sandboxes", { name: "b" }), 201);
    const message = await expectError(await client.post("/v1/sandboxes", { name: "c" }), 409, "conflict");
    expect(message).toContain("2, SANDBOXES_PER_ACCOUNT");
    expect(message).toContain("DELETE /v1/sandboxes/{id}");
    expect((await client.delete(`/v1/sandboxes/${b.id}`)).status).toBe(204);
    await expectStatus(await client.post("/v1/sandboxes", { name: "c" }), 201);
  });

  it("keeps names unique per account, and another account may use the same name", async () => {
    const [one, two] = [await h.createAccount(), await h.createAccount()];
    const first = await expectStatus<{ id: string }>(await one.as("test").post("/v1/sandboxes", { name: "ci" }), 201);
    const message = await expectError(await one.as("live").post("/v1/sandboxes", { name: "ci" }), 409, "conflict");
    expect(message).toContain(`name: this account already has a sandbox named "ci" (${first.id})`);
    await expectStatus(await two.as("test").post("/v1/sandboxes", { name: "ci" }), 201);
  });

  it("bounds the expiry to 30 days and names the field", async () => {
    const client = (await h.createAccount()).as("test");
    expect(await expectError(await client.post("/v1/sandboxes", { name: "long", expiresIn: 31 * 86_400 }), 400, "invalid_request")).toContain("expiresIn");
    expect(await expectError(await client.post("/v1/sandboxes", { name: "short", expiresIn: 5 }), 400, "invalid_request")).toContain("expiresIn");
    expect(await expectError(await client.post("/v1/sandboxes", {}), 400, "invalid_request")).toContain("name");
    expect(await expectError(await client.post("/v1/sandboxes", { name: "x", clock: { at: "tomorrow" } }), 400, "invalid_request")).toContain("clock.at");
  });
});

describe("what a sandbox's key may not do", () => {
  it("cannot make, list or delete sandboxes (403), nor name a sandbox header", async () => {
    const account = await h.createAccount();
    const s = await expectStatus<{ id: string; keys: { test: string } }>(await account.as("test").post("/v1/sandboxes", { name: "inner" }), 201);
    const inside = h.clientWithKey(s.keys.test);
    expect(await expectError(await inside.post("/v1/sandboxes", { name: "nested" }), 403, "forbidden")).toContain("use the key of the account");
    await expectError(await inside.get("/v1/sandboxes"), 403, "forbidden");
    await expectError(await inside.delete(`/v1/sandboxes/${s.id}`), 403, "forbidden");
    await expectError(await h.clientWithKey(s.keys.test, { "Cardlink-Sandbox": s.id }).get("/v1/account"), 400, "invalid_request");
  });

  it("names another account's sandbox in the header: 404", async () => {
    const [one, two] = [await h.createAccount(), await h.createAccount()];
    const s = await expectStatus<{ id: string }>(await one.as("test").post("/v1/sandboxes", { name: "theirs" }), 201);
    const message = await expectError(await h.clientWithKey(two.keys.test, { "Cardlink-Sandbox": s.id }).get("/v1/account"), 404, "resource_not_found");
    expect(message).toContain("Cardlink-Sandbox");
  });

  it("an account's own key cannot move the clock: its environments keep the service clock", async () => {
    const account = await h.createAccount();
    expect(await expectError(await account.as("test").post("/v1/clock/advance", { days: 1 }), 403, "forbidden")).toContain("POST /v1/sandboxes");
    const s = await expectStatus<{ keys: { test: string } }>(await account.as("test").post("/v1/sandboxes", { name: "mover" }), 201);
    await expectError(await h.clientWithKey(s.keys.test).post("/v1/clock/advance", {}), 400, "invalid_request");
    await expectError(await h.clientWithKey(s.keys.test).post("/v1/clock/advance", { days: 1, to: "2027-01-01T00:00:00Z" }), 400, "invalid_request");
  });
});
