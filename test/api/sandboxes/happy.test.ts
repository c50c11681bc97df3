// Sandboxes: made with an account's key, isolated, each with a clock of its own that moves alone.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHarness, expectError, expectStatus, type Harness, type TestAccount } from "../../support/harness.ts";

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

interface Made {
  id: string;
  name: string;
  keys: { test: string; live: string };
  clock: { now: string; frozen: boolean };
  expiresAt: string;
  created: string;
}
interface Time {
  now: string;
  frozen: boolean;
  sandbox: string | null;
  serviceNow: string;
}
const DAY = 86_400_000;
const SERVICE_NOW = "2026-01-05T12:00:00.000Z";

const make = async (account: TestAccount, body: Record<string, unknown>) => expectStatus<Made>(await account.as("test").post("/v1/sandboxes", body), 201);
const timeOf = async (key: string) => expectStatus<Time>(await h.clientWithKey(key).get("/v1/clock"), 200);

describe("a sandbox", () => {
  it("is made with its own test and live keys, listed and read without them, and deleted with everything in it", async () => {
    const account = await h.createAccount();
    const made = await make(account, { name: "ci-1", expiresIn: 3600 });
    expect(made).toMatchObject({ name: "ci-1", clock: { now: SERVICE_NOW, frozen: false }, expiresAt: "2026-01-05T13:00:00.000Z" });
    expect(made.keys.test).toMatch(/^sk_test_/);
    expect(made.keys.live).toMatch(/^sk_live_/);
    const { keys, ...shown } = made;
    expect(await expectStatus(await account.as("live").get(`/v1/sandboxes/${made.id}`), 200)).toEqual(shown);
    expect(await expectStatus(await account.as("test").get("/v1/sandboxes"), 200)).toEqual({ items: [shown], count: 1 });

    const inside = h.clientWithKey(keys.test);
    const program = await expectStatus<{ id: string }>(await inside.post("/v1/programs", { name: "Sandboxed" }), 201);
    await expectStatus(await inside.get(`/v1/programs/${program.id}`), 200);
    // The account's own key does not see it; with the sandbox header it acts in the sandbox.
    await expectError(await account.as("test").get(`/v1/programs/${program.id}`), 404, "resource_not_found");
    await expectStatus(await h.clientWithKey(account.keys.test, { "Cardlink-Sandbox": made.id }).get(`/v1/programs/${program.id}`), 200);

    expect((await account.as("test").delete(`/v1/sandboxes/${made.id}`)).status).toBe(204);
    await expectError(await inside.get("/v1/programs"), 401, "unauthorized");
    await expectError(await h.clientWithKey(keys.live).get("/v1/account"), 401, "unauthorized");
    await expectError(await account.as("test").get(`/v1/sandboxes/${made.id}`), 404, "resource_not_found");
    const left = await h.services.db.query("select id from programs where id = $1", [program.id]);
    expect(left).toEqual([]);
  });

  it("has its account's tier: a premium account's sandbox reads MID insights with its live key", async () => {
    const account = await h.createAccount({ tier: "premium" });
    const made = await make(account, { name: "premium" });
    const inside = h.clientWithKey(made.keys.live);
    const program = await expectStatus<{ id: string }>(await inside.post("/v1/programs", { name: "Insights" }), 201);
    const res = await h.request("GET", `/v1/programs/${program.id}/mid-insights`, {
      headers: { Authorization: `Bearer ${made.keys.live}`, "Cardlink-Version": "2024-11-25" },
    });
    expect(await expectStatus<{ count: number }>(res, 200)).toMatchObject({ count: 0 });
  });
});

describe("a sandbox's clock", () => {
  it("starts at the service time, at an instant, or frozen at one, and the account keeps the service clock", async () => {
    const account = await h.createAccount();
    expect(await timeOf(account.keys.test)).toEqual({ now: SERVICE_NOW, frozen: true, sandbox: null, serviceNow: SERVICE_NOW });
    const at = await make(account, { name: "at", clock: { at: "2027-03-01T09:00:00Z" } });
    expect(at.clock).toEqual({ now: "2027-03-01T09:00:00.000Z", frozen: false });
    const frozen = await make(account, { name: "frozen", clock: { at: "2025-12-01T00:00:00Z", frozen: true } });
    expect(await timeOf(frozen.keys.live)).toEqual({ now: "2025-12-01T00:00:00.000Z", frozen: true, sandbox: frozen.id, serviceNow: SERVICE_NOW });
  });

  it("moves one sandbox alone, never back, and the operator's advance moves every environment", async () => {
    const account = await h.createAccount();
    // A day-long advance by the operator below: they live a week.
    const s = await make(account, { name: "s", clock: { frozen: true }, expiresIn: 7 * 86_400 });
    const t = await make(account, { name: "t", clock: { frozen: true }, expiresIn: 7 * 86_400 });
    const moved = await expectStatus<Time>(await h.clientWithKey(s.keys.test).post("/v1/clock/advance", { days: 15 }), 200);
    expect(moved).toEqual({ now: new Date(Date.parse(SERVICE_NOW) + 15 * DAY).toISOString(), frozen: true, sandbox: s.id, serviceNow: SERVICE_NOW });
    expect((await timeOf(t.keys.test)).now).toBe(SERVICE_NOW);
    expect((await timeOf(account.keys.test)).now).toBe(SERVICE_NOW);
    expect(h.services.clock.now().toISOString()).toBe(SERVICE_NOW);

    const to = await expectStatus<Time>(await h.clientWithKey(s.keys.live).post("/v1/clock/advance", { to: "2026-02-01T00:00:00Z" }), 200);
    expect(to.now).toBe("2026-02-01T00:00:00.000Z");
    const back = await expectError(await h.clientWithKey(s.keys.live).post("/v1/clock/advance", { to: "2026-01-10T00:00:00Z" }), 400, "invalid_request");
    expect(back).toContain("to: the clock never goes back");

    await expectStatus(await h.admin("POST", "/admin/clock/advance", { days: 1 }), 200);
    expect((await timeOf(s.keys.test)).now).toBe("2026-02-02T00:00:00.000Z");
    expect((await timeOf(t.keys.test)).now).toBe("2026-01-06T12:00:00.000Z");
  });

  it("runs what fell due in the sandbox alone: a live brand's consent, and an offer's status", async () => {
    const account = await h.createAccount();
    const s = await make(account, { name: "due-s" });
    const t = await make(account, { name: "due-t" });
    const brandIn = async (key: string) => expectStatus<{ id: string; consent: string }>(await h.clientWithKey(key).post("/v1/brands", { name: "Consenting" }), 201);
    const [bs, bt] = [await brandIn(s.keys.live), await brandIn(t.keys.live)];
    expect([bs.consent, bt.consent]).toEqual(["requested", "requested"]);
    await expectStatus(await h.clientWithKey(s.keys.live).post("/v1/clock/advance", { days: 4 }), 200);
    const consent = async (key: string, id: string) => (await expectStatus<{ consent: string }>(await h.clientWithKey(key).get(`/v1/brands/${id}`), 200)).consent;
    expect(await consent(s.keys.live, bs.id)).toBe("approved");
    expect(await consent(t.keys.live, bt.id)).toBe("requested");
  });

  it("decides its own brand's consent with its key; an account's key may not", async () => {
    const account = await h.createAccount();
    const s = await make(account, { name: "consent" });
    const brand = await expectStatus<{ id: string }>(await h.clientWithKey(s.keys.live).post("/v1/brands", { name: "Mine" }), 201);
    const decided = await expectStatus<{ consent: string }>(await h.clientWithKey(s.keys.live).post(`/v1/brands/${brand.id}/consent`, { decision: "declined" }), 200);
    expect(decided.consent).toBe("declined");
    const own = await expectStatus<{ id: string }>(await account.as("live").post("/v1/brands", { name: "Own" }), 201);
    await expectError(await account.as("live").post(`/v1/brands/${own.id}/consent`, { decision: "approved" }), 403, "forbidden");
  });

  it("is read from the database at each request, so a restarted or second api process agrees on it", async () => {
    const account = await h.createAccount();
    const s = await make(account, { name: "shared", clock: { at: "2026-06-01T00:00:00Z", frozen: true } });
    await h.services.db.query("update accounts set clock_offset_ms = clock_offset_ms + $2 where id = $1", [s.id, DAY]);
    expect((await timeOf(s.keys.test)).now).toBe("2026-06-02T00:00:00.000Z");
  });
});

describe("a sandbox's expiry", () => {
  it("deletes it once its time is over, by the workers' due work", async () => {
    const account = await h.createAccount();
    const s = await make(account, { name: "short", expiresIn: 60 });
    await expectStatus(await h.admin("POST", "/admin/clock/advance", { minutes: 2 }), 200);
    await expectError(await h.clientWithKey(s.keys.test).get("/v1/account"), 401, "unauthorized");
    await expectError(await account.as("test").get(`/v1/sandboxes/${s.id}`), 404, "resource_not_found");
  });
});
