import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_TOKEN, createHarness, expectError, expectStatus, type Harness } from "../../support/harness.ts";
import { sha256 } from "../../../src/platform/ids.ts";

let h: Harness;
beforeAll(async () => {
  h = await createHarness(); // frozen clock at 2026-01-05T12:00:00Z
});
afterAll(() => h.close());

const UNKNOWN = "3f2b9c1e-8d4a-4b6e-9f1a-2c3d4e5f6a7b";

const expect400 = async (res: Response, text: string) => expect(await expectError(res, 400, "invalid_request")).toContain(text);

type Account = { id: string; name: string; tier: string; email: string | null; keys: { test: string; live: string } };

describe("admin", () => {
  it("needs the admin token", async () => {
    const body = { name: "Acme" };
    await expectError(await h.request("POST", "/admin/accounts", { body }), 401, "unauthorized");
    await expectError(
      await h.request("POST", "/admin/accounts", { body, headers: { Authorization: "Bearer adm_wrong_token_000000000000" } }),
      401,
      "unauthorized",
    );
    await expectError(await h.request("POST", "/admin/accounts", { body, headers: { Authorization: ADMIN_TOKEN } }), 401, "unauthorized");
    const acct = await h.createAccount();
    // An account's secret key is not an admin token.
    await expectError(
      await h.request("GET", "/admin/clock", { headers: { Authorization: `Bearer ${acct.keys.live}` } }),
      401,
      "unauthorized",
    );
    await expectError(await h.request("GET", "/admin/clock", { headers: { "Cardlink-Key": acct.keys.test } }), 401, "unauthorized");
    await expectError(await h.request("POST", "/admin/clock/advance", { body: { days: 1 } }), 401, "unauthorized");
  });

  it("creates an account with a tier and test and live keys that work", async () => {
    const account = await expectStatus<Account>(
      await h.admin("POST", "/admin/accounts", { name: "Acme", tier: "premium", email: "ops@acme.example" }),
      201,
    );
    expect(account).toMatchObject({ name: "Acme", tier: "premium", email: "ops@acme.example" });
    expect(account.keys.test).toMatch(/^sk_test_[0-9A-Za-z]{32}$/);
    expect(account.keys.live).toMatch(/^sk_live_[0-9A-Za-z]{32}$/);
    const program = await expectStatus<{ live: boolean }>(
      await h.request("POST", "/v1/programs", { body: { name: "P" }, headers: { "Cardlink-Key": account.keys.live } }),
      201,
    );
    expect(program.live).toBe(true);
    const standard = await expectStatus<Account>(await h.admin("POST", "/admin/accounts", { name: "Default" }), 201);
    expect(standard.tier).toBe("standard");
  });

  it("lists accounts newest first, in pages, without their keys", async () => {
    const created = [
      await expectStatus<Account>(await h.admin("POST", "/admin/accounts", { name: "Listed one" }), 201),
      await expectStatus<Account>(await h.admin("POST", "/admin/accounts", { name: "Listed two" }), 201),
    ];
    const seen: Account[] = [];
    let start: string | undefined;
    do {
      const page: { items: Account[]; count: number; last?: string } = await expectStatus(
        await h.admin("GET", `/admin/accounts?limit=1${start ? `&start=${start}` : ""}`),
        200,
      );
      expect(page.items).toHaveLength(1);
      expect(page.items[0]).not.toHaveProperty("keys");
      seen.push(...page.items);
      start = page.last;
    } while (start);
    expect(new Set(seen.map((a) => a.id)).size).toBe(seen.length);
    expect(seen.map((a) => a.id)).toEqual(expect.arrayContaining(created.map((a) => a.id)));
    await expectError(await h.request("GET", "/admin/accounts"), 401, "unauthorized");
  });

  it("changes an account's tier", async () => {
    const account = await expectStatus<Account>(await h.admin("POST", "/admin/accounts", { name: "Upgrade" }), 201);
    const patched = await expectStatus<Account>(await h.admin("PATCH", `/admin/accounts/${account.id}`, { tier: "premium" }), 200);
    expect(patched).toMatchObject({ id: account.id, name: "Upgrade", tier: "premium" });
    expect(patched).not.toHaveProperty("keys");
    await expectError(
      await h.admin("PATCH", "/admin/accounts/3f2b9c1e-8d4a-4b6e-9f1a-2c3d4e5f6a7b", { tier: "premium" }),
      404,
      "resource_not_found",
    );
  });

  it("names the field in validation errors", async () => {
    const bad = async (method: string, path: string, body: unknown) => expectError(await h.admin(method, path, body), 400, "invalid_request");
    expect(await bad("POST", "/admin/accounts", {})).toMatch(/^name: required/);
    expect(await bad("POST", "/admin/accounts", { name: "A", tier: "gold" })).toMatch(/^tier: must be standard or premium/);
    expect(await bad("POST", "/admin/accounts", { name: "A", email: "nope" })).toMatch(/^email: must be an e-mail address/);
    expect(await bad("POST", "/admin/accounts", { name: "A", keys: {} })).toMatch(/keys: unknown field/);
    expect(await bad("PATCH", "/admin/accounts/xyz", { tier: "premium" })).toMatch(/^accountId: must be a UUID/);
    expect(await bad("POST", "/admin/clock/advance", {})).toMatch(/^body: give days, hours, minutes or seconds/);
    expect(await bad("POST", "/admin/clock/advance", { days: -1 })).toMatch(/^days: must be 0 or more/);
    expect(await bad("POST", "/admin/clock/advance", { weeks: 1 })).toMatch(/weeks: unknown field/);
  });

  it("keeps only digests of the keys at rest", async () => {
    const account = await expectStatus<Account>(await h.admin("POST", "/admin/accounts", { name: "Hashed" }), 201);
    const rows = await h.services.db.query<Record<string, unknown>>("select * from api_keys where account_id = $1", [account.id]);
    expect(rows).toHaveLength(2);
    const dump = JSON.stringify(rows);
    for (const key of [account.keys.test, account.keys.live]) {
      expect(dump).not.toContain(key);
      expect(dump).not.toContain(key.slice("sk_test_".length));
    }
    expect(rows.map((r) => r.hash).sort()).toEqual([sha256(account.keys.test), sha256(account.keys.live)].sort());
    expect(rows.map((r) => r.hint).sort()).toEqual([account.keys.test.slice(-4), account.keys.live.slice(-4)].sort());
  });

  it("rotates a key: the new one works, the old one answers 401 at once, the other environment is untouched", async () => {
    const account = await expectStatus<Account>(await h.admin("POST", "/admin/accounts", { name: "Rotating", tier: "premium" }), 201);
    const programs = (key: string) => h.request("GET", "/v1/programs", { headers: { "Cardlink-Key": key } });
    await expectStatus(await programs(account.keys.test), 200);
    type Key = { id: string; environment: string; hint: string; created: string; revoked: string | null };
    const rotated = await expectStatus<Key & { key: string; revokedKeys: Key[] }>(
      await h.admin("POST", `/admin/accounts/${account.id}/keys/rotate`, { environment: "test" }),
      201,
    );
    expect(rotated.key).toMatch(/^sk_test_[0-9A-Za-z]{32}$/);
    expect(rotated).toMatchObject({ environment: "test", hint: rotated.key.slice(-4), revoked: null });
    expect(rotated.revokedKeys).toEqual([expect.objectContaining({ environment: "test", hint: account.keys.test.slice(-4), revoked: h.services.clock.now().toISOString() })]);
    expect(await expectError(await programs(account.keys.test), 401, "unauthorized")).toMatch(/not a valid key/);
    await expectStatus(await programs(rotated.key), 200);
    await expectStatus(await programs(account.keys.live), 200);
    // Only the digest of the new key is kept.
    const dump = JSON.stringify(await h.services.db.query("select * from api_keys where account_id = $1", [account.id]));
    expect(dump).not.toContain(rotated.key.slice("sk_test_".length));
    expect(dump).toContain(sha256(rotated.key));
    const keys = await expectStatus<{ items: Key[] }>(await h.admin("GET", `/admin/accounts/${account.id}/keys`), 200);
    expect(keys.items.map((k) => [k.environment, k.revoked === null])).toEqual(
      expect.arrayContaining([["test", true], ["test", false], ["live", true]]),
    );
    expect(keys.items).toHaveLength(3);
    expect(JSON.stringify(keys)).not.toContain(rotated.key);
    await expect400(await h.admin("POST", `/admin/accounts/${account.id}/keys/rotate`, { environment: "prod" }), "environment: must be test or live");
    await expectError(await h.admin("POST", `/admin/accounts/${UNKNOWN}/keys/rotate`, { environment: "live" }), 404, "resource_not_found");
  });

  it("revokes one key at once, for the management header and for the MID insights Bearer scheme", async () => {
    const account = await expectStatus<Account>(await h.admin("POST", "/admin/accounts", { name: "Revoking", tier: "premium" }), 201);
    const program = await expectStatus<{ id: string }>(
      await h.request("POST", "/v1/programs", { body: { name: "P" }, headers: { "Cardlink-Key": account.keys.live } }),
      201,
    );
    const insights = () =>
      h.request("GET", `/v1/programs/${program.id}/mid-insights`, {
        headers: { Authorization: `Bearer ${account.keys.live}`, "Cardlink-Version": "2024-11-25" },
      });
    await expectStatus(await insights(), 200);
    const keys = await expectStatus<{ items: { id: string; environment: string }[] }>(await h.admin("GET", `/admin/accounts/${account.id}/keys`), 200);
    const live = keys.items.find((k) => k.environment === "live")!;
    const revoked = await expectStatus<{ revoked: string }>(await h.admin("DELETE", `/admin/accounts/${account.id}/keys/${live.id}`), 200);
    expect(revoked.revoked).toBe(h.services.clock.now().toISOString());
    await expectError(await insights(), 401, "unauthorized");
    await expectError(await h.request("GET", "/v1/programs", { headers: { "Cardlink-Key": account.keys.live } }), 401, "unauthorized");
    await expectStatus(await h.request("GET", "/v1/programs", { headers: { "Cardlink-Key": account.keys.test } }), 200);
    // Revoking again keeps the first revocation time; another account's key is not found.
    expect((await expectStatus<{ revoked: string }>(await h.admin("DELETE", `/admin/accounts/${account.id}/keys/${live.id}`), 200)).revoked).toBe(revoked.revoked);
    const other = await expectStatus<Account>(await h.admin("POST", "/admin/accounts", { name: "Other" }), 201);
    await expectError(await h.admin("DELETE", `/admin/accounts/${other.id}/keys/${live.id}`), 404, "resource_not_found");
  });

  it("reads and advances the frozen service clock", async () => {
    const before = await expectStatus<{ now: string; mode: string; speed: number }>(await h.admin("GET", "/admin/clock"), 200);
    expect(before).toMatchObject({ mode: "frozen", speed: 0 });
    const after = await expectStatus<{ now: string; mode: string }>(
      await h.admin("POST", "/admin/clock/advance", { days: 1, hours: 2, minutes: 3, seconds: 4 }),
      200,
    );
    expect(Date.parse(after.now) - Date.parse(before.now)).toBe(((24 + 2) * 60 + 3) * 60_000 + 4000);
    const again = await expectStatus<{ now: string }>(await h.admin("GET", "/admin/clock"), 200);
    expect(again.now).toBe(after.now);
    // Records written after the jump carry the new service time.
    const acct = await h.createAccount();
    const program = await expectStatus<{ created: string }>(await acct.as("test").post("/v1/programs", { name: "Later" }), 201);
    expect(program.created).toBe(after.now);
  });
});
