// Idempotency-Key on the creating POSTs: replay, a different request under the same key, expiry after
// 24 hours of service time, keys per account and environment, a failed request freeing its key, and the
// header named on every POST of the OpenAPI description.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHarness, expectError, expectStatus, type Harness, type TestAccount } from "../../support/harness.ts";

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

const post = (account: TestAccount, env: "test" | "live", path: string, body: unknown, key: string) =>
  h.request("POST", path, { body, headers: { "Cardlink-Key": account.keys[env], "Idempotency-Key": key } });

async function programCount(account: TestAccount, env: "test" | "live" = "test") {
  return (await expectStatus<{ count: number }>(await account.as(env).get("/v1/programs"), 200)).count;
}

describe("Idempotency-Key", () => {
  it("replays the first answer for the same key and body, and creates nothing more", async () => {
    const account = await h.createAccount();
    const first = await post(account, "test", "/v1/programs", { name: "Rewards" }, "key-1");
    const created = await expectStatus<{ id: string }>(first, 201);
    const again = await post(account, "test", "/v1/programs", { name: "Rewards" }, "key-1");
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await expectStatus<{ id: string }>(again, 201)).toEqual(created);
    expect(await programCount(account)).toBe(1);
  });

  it("answers 422 naming the key when it comes back with a different body, and changes nothing", async () => {
    const account = await h.createAccount();
    await expectStatus(await post(account, "test", "/v1/programs", { name: "Rewards" }, "key-2"), 201);
    const message = await expectError(await post(account, "test", "/v1/programs", { name: "Other" }, "key-2"), 422, "idempotency_key_reused");
    expect(message).toContain("Idempotency-Key key-2");
    expect(await programCount(account)).toBe(1);
  });

  it("replays answers that were errors too, and a 400 is not a new program either", async () => {
    const account = await h.createAccount();
    await expectError(await post(account, "test", "/v1/programs", { name: "" }, "key-3"), 400, "invalid_request");
    await expectError(await post(account, "test", "/v1/programs", { name: "" }, "key-3"), 400, "invalid_request");
    expect(await programCount(account)).toBe(0);
  });

  it("claims the keys of requests that arrive together apart: each new key creates once, a repeated one once in all", async () => {
    const account = await h.createAccount();
    const answers = await Promise.all([
      ...Array.from({ length: 10 }, (_, i) => post(account, "test", "/v1/programs", { name: `Batch ${i}` }, `together-${i}`)),
      ...Array.from({ length: 5 }, () => post(account, "test", "/v1/programs", { name: "Same" }, "together-same")),
    ]);
    expect(answers.slice(0, 10).map((r) => r.status)).toEqual(Array(10).fill(201));
    const same = answers.slice(10);
    // The first of the repeated key creates; the others are told it is running (409) or get its answer replayed.
    expect(same.filter((r) => r.status === 201 && r.headers.get("Idempotent-Replayed") === null)).toHaveLength(1);
    for (const r of same) expect([201, 409]).toContain(r.status);
    expect(await programCount(account)).toBe(11);
  });

  it("forgets a key after 24 hours of service time", async () => {
    const account = await h.createAccount();
    await expectStatus(await post(account, "test", "/v1/programs", { name: "Day one" }, "key-4"), 201);
    await expectStatus(await h.admin("POST", "/admin/clock/advance", { hours: 23, minutes: 59 }), 200);
    await expectError(await post(account, "test", "/v1/programs", { name: "Day two" }, "key-4"), 422, "idempotency_key_reused");
    await expectStatus(await h.admin("POST", "/admin/clock/advance", { minutes: 1 }), 200);
    const later = await post(account, "test", "/v1/programs", { name: "Day two" }, "key-4");
    expect(later.headers.get("Idempotent-Replayed")).toBeNull();
    await expectStatus(later, 201);
    expect(await programCount(account)).toBe(2);
  });

  it("keeps keys per account and per environment", async () => {
    const [a, b] = [await h.createAccount(), await h.createAccount()];
    const mine = await expectStatus<{ id: string }>(await post(a, "test", "/v1/programs", { name: "Same" }, "shared-key"), 201);
    const theirs = await expectStatus<{ id: string }>(await post(b, "test", "/v1/programs", { name: "Same" }, "shared-key"), 201);
    const live = await expectStatus<{ id: string; live: boolean }>(await post(a, "live", "/v1/programs", { name: "Same" }, "shared-key"), 201);
    expect(new Set([mine.id, theirs.id, live.id]).size).toBe(3);
    expect(live.live).toBe(true);
    expect([await programCount(a), await programCount(b), await programCount(a, "live")]).toEqual([1, 1, 1]);
  });

  it("frees the key of a request that failed on a dependency, so the retry runs", async () => {
    const account = await h.createAccount();
    const { services } = h;
    const query = services.db.query.bind(services.db);
    // The next insert into programs fails as a closed connection would.
    let failNext = true;
    services.db.query = (async (text: string, params?: unknown[]) => {
      if (failNext && /insert into programs/i.test(text)) {
        failNext = false;
        throw Object.assign(new Error("write CONNECTION_CLOSED"), { code: "CONNECTION_CLOSED" });
      }
      return query(text, params);
    }) as typeof services.db.query;
    try {
      const failed = await post(account, "test", "/v1/programs", { name: "Retry me" }, "key-5");
      expect(failed.headers.get("Retry-After")).toBe("5");
      await expectError(failed, 503, "service_unavailable");
      // The api now answers 503 at once until its health watch finds the database back (it probes at once).
      for (let i = 0; i < 100 && !services.health.postgres.up; i++) await new Promise((r) => setTimeout(r, 50));
      expect(services.health.postgres.up).toBe(true);
      await expectStatus(await post(account, "test", "/v1/programs", { name: "Retry me" }, "key-5"), 201);
    } finally {
      services.db.query = query;
    }
    expect(await programCount(account)).toBe(1);
  });

  it("rejects a malformed key with a 400 naming the header", async () => {
    const account = await h.createAccount();
    const message = await expectError(await post(account, "test", "/v1/programs", { name: "X" }, "x".repeat(256)), 400, "invalid_request");
    expect(message).toMatch(/^Idempotency-Key:/);
  });

  it("is a reusable header parameter on every POST of /v1 in the OpenAPI description", async () => {
    const doc = await expectStatus<{
      paths: Record<string, Record<string, { parameters?: { $ref?: string }[]; responses?: Record<string, unknown> }>>;
      components: { parameters: Record<string, { name: string; in: string }> };
    }>(await h.request("GET", "/v1/openapi.json"), 200);
    expect(doc.components.parameters.IdempotencyKey).toMatchObject({ name: "Idempotency-Key", in: "header" });
    const posts = Object.entries(doc.paths).filter(([path, item]) => path.startsWith("/v1/") && item.post);
    expect(posts.length).toBeGreaterThan(10);
    for (const [path, item] of posts) {
      expect(item.post!.parameters, path).toContainEqual({ $ref: "#/components/parameters/IdempotencyKey" });
      expect(Object.keys(item.post!.responses ?? {}), path).toEqual(expect.arrayContaining(["422", "503"]));
    }
  });
});
