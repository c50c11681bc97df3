// Rule: requests are limited per account (its test and live keys together, on every replica), and what has
// no account per client address (failed authentications, dashboard sign-ins, /admin); test purchases are
// admitted in fair turns, so one account cannot spend another's budget or fill the pipeline for it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { request as httpRequest } from "node:http";
import { serve, type ServerType } from "@hono/node-server";
import { startRoles, type RunningRoles } from "../../../src/app/roles.ts";
import { ADMIN_TOKEN, createHarness, expectError, expectStatus, type Harness } from "../../support/harness.ts";
import { assembleRuntime } from "../../../src/app/runtime.ts";
import { createWebApp } from "../../../src/app/http.ts";
import { takeTokens } from "../../../src/services/accounts/rate-limits.ts";
import { world } from "../../support/offers-world.ts";
import { infra } from "../../support/infra.ts";

// A burst of 2 that refills one token every 100 s: the third quick request of an account is over.
const TIGHT = { RATE_LIMIT_PER_SECOND: "0.01", RATE_LIMIT_BURST: "2" };

describe.each(["pglite", ...(infra.databaseUrl ? (["postgres"] as const) : [])] as const)("per account on %s", (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({ engine, env: TIGHT });
  });
  afterAll(() => h.close());

  it("counts the test and live keys of an account together, on every api replica", async () => {
    // A second api process of the same deployment: its own services and app over the same database (on
    // PostgreSQL; PGlite's database is one process's, and its limit is kept in that process's memory).
    const replica =
      engine === "pglite"
        ? { request: (path: string, init: { headers: Record<string, string> }) => h.request("GET", path, { headers: init.headers }) }
        : createWebApp(assembleRuntime({ config: h.config, db: h.services.db, clock: h.services.clock, bus: h.services.bus }), { adminToken: ADMIN_TOKEN });
    const acct = await h.createAccount();
    await expectStatus(await acct.as("test").get("/v1/programs"), 200);
    await expectStatus(await replica.request("/v1/programs", { headers: { "Cardlink-Key": acct.keys.live } }), 200);
    const limited = await replica.request("/v1/programs", { headers: { "Cardlink-Key": acct.keys.test } });
    expect(await expectError(limited, 429, "rate_limit_exceeded")).toMatch(/^Too many requests for this account; retry after \d+s\.$/);
    expect(Number(limited.headers.get("Retry-After"))).toBeGreaterThanOrEqual(90);
    await expectError(await acct.as("live").get("/v1/programs"), 429, "rate_limit_exceeded");
    // Another account has its own budget.
    await expectStatus(await (await h.createAccount()).as("test").get("/v1/programs"), 200);
  });

  it("grants a batch of concurrent requests exactly the burst, in one statement", async () => {
    const key = `batch-${engine}-${Date.now()}`;
    const [first] = await takeTokens(h.services.db, [{ key, count: 5 }], { perSecond: 0.01, burst: 3 });
    expect(first).toMatchObject({ key, granted: 3 });
    const concurrent = await Promise.all(Array.from({ length: 4 }, () => takeTokens(h.services.db, [{ key, count: 1 }], { perSecond: 0.01, burst: 3 })));
    expect(concurrent.flat().reduce((sum, a) => sum + a.granted, 0)).toBe(0);
  });
});

describe("per client address, and test purchases in fair turns", () => {
  let h: Harness;
  let server: ServerType;
  let base: string;
  let roles: RunningRoles;
  beforeAll(async () => {
    // /admin is limited per address with the per-account budget: 40 at once, 20 a second.
    // Test purchases: four in flight in all, four more of an account may wait.
    h = await createHarness({
      env: { RATE_LIMIT_PER_SECOND: "20", RATE_LIMIT_BURST: "40", ADMISSION_MAX_IN_FLIGHT: "4", ADMISSION_MIN_IN_FLIGHT: "1", ADMISSION_QUEUE_PER_ACCOUNT: "4" },
    });
    // The networks answer onboarding; no qualifier runs, so a test purchase waits its whole wait (202).
    roles = await startRoles(h.services, ["simulators", "workers"]);
    const app = createWebApp(h.services, { adminToken: ADMIN_TOKEN });
    await new Promise<void>((resolve) => {
      server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, (info) => {
        base = `http://127.0.0.1:${info.port}`;
        resolve();
      });
    });
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await roles.stop();
    await h.close();
  });

  /** A request from `from` (an address of the loopback network), so each test is a client of its own. */
  const send = (from: string, path: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) =>
    new Promise<{ status: number; retryAfter: string | undefined }>((resolve, reject) => {
      const req = httpRequest(`${base}${path}`, { method: init.method ?? "GET", headers: init.headers, localAddress: from }, (res) => {
        res.resume();
        res.on("end", () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers["retry-after"] as string | undefined }));
      });
      req.on("error", reject);
      req.end(init.body);
    });
  const statuses = async (n: number, request: () => Promise<{ status: number }>) => {
    const seen: number[] = [];
    for (let i = 0; i < n; i++) seen.push((await request()).status);
    return seen;
  };

  it("refuses failed authentications beyond the address's burst, before looking keys up", async () => {
    const burst = h.config.AUTH_FAILURE_LIMIT_BURST;
    const from = "127.0.0.2";
    const seen = await statuses(burst + 5, () => send(from, "/v1/programs", { headers: { "Cardlink-Key": "sk_test_not_a_key" } }));
    expect(seen.slice(0, burst)).toEqual(Array(burst).fill(401));
    // A token refills every few seconds: at most one more 401 while these are sent.
    expect(seen.filter((s) => s === 429).length).toBeGreaterThanOrEqual(4);
    const limited = await send(from, "/admin/accounts", { headers: { Authorization: "Bearer wrong" } });
    expect(limited.status).toBe(429);
    expect(Number(limited.retryAfter)).toBeGreaterThanOrEqual(1);
    // A request without credentials guesses nothing and is not limited; another address is not refused.
    expect((await send(from, "/v1/programs")).status).toBe(401);
    expect((await send("127.0.0.3", "/v1/programs", { headers: { "Cardlink-Key": "sk_test_not_a_key" } })).status).toBe(401);
  });

  it("limits failed dashboard sign-ins per address", async () => {
    const burst = h.config.AUTH_FAILURE_LIMIT_BURST;
    const seen = await statuses(burst + 2, () =>
      send("127.0.0.4", "/dashboard/sign-in", {
        method: "POST",
        body: "secret=nope",
        headers: { Origin: base, "content-type": "application/x-www-form-urlencoded" },
      }),
    );
    expect(seen.slice(0, burst)).toEqual(Array(burst).fill(401));
    expect(seen.at(-1)).toBe(429);
  });

  it("limits /admin per address", async () => {
    const burst = h.config.RATE_LIMIT_BURST;
    // All at once: the burst is answered, what the refill has not covered meanwhile is refused.
    const seen = await Promise.all(
      Array.from({ length: burst * 2 }, () => send("127.0.0.5", "/admin/clock", { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } })),
    );
    expect(seen.filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(burst);
    expect(seen.filter((r) => r.status === 429).length).toBeGreaterThan(0);
    expect(seen.every((r) => r.status === 200 || r.status === 429)).toBe(true);
  });

  it("lets a busy account's test purchases wait their turn, refuses it past its own queue (its sandboxes with it), and starts another account's at once", async () => {
    const busy = await world(h);
    const purchase = (client: typeof busy.client, w: typeof busy) => client.post("/v1/transactions/test", { cardId: w.cardId, locationId: w.locationId, amount: 12 });
    const admissionOf = (accountId: string) => h.services.admission.state().accounts.get(accountId);
    // No qualifier runs: every purchase holds its place until its wait ends (202).
    const held = Array.from({ length: 8 }, () => purchase(busy.client, busy));
    await expect.poll(() => admissionOf(busy.acct.id), { timeout: 4_000, interval: 50 }).toMatchObject({ inFlight: 4, waiting: 4 });
    const refused = await purchase(busy.client, busy);
    expect(await expectError(refused, 429, "rate_limit_exceeded")).toBe(
      "Too many test purchases waiting for this account (4 wait behind its 4 in flight, its fair share of a busy service); retry after 1s.",
    );
    expect(refused.headers.get("Retry-After")).toBe("1");
    // A sandbox's purchases count toward its owner's turn.
    const sandbox = await expectStatus<{ keys: { test: string } }>(await busy.client.post("/v1/sandboxes", { name: "ci" }), 201);
    await expectError(await purchase(h.clientWithKey(sandbox.keys.test), busy), 429, "rate_limit_exceeded");

    // Another account is under its share: its purchase starts while the busy account's wait.
    const other = await world(h);
    const otherPurchase = purchase(other.client, other);
    await expect.poll(() => admissionOf(other.acct.id)?.inFlight, { timeout: 4_000, interval: 50 }).toBe(1);
    expect(admissionOf(busy.acct.id)).toMatchObject({ inFlight: 4, waiting: 4 });
    const metrics = await (await h.request("GET", "/metrics")).text();
    expect(metrics).toContain(`cardlink_admission_requests_total{account="${busy.acct.id}",outcome="refused"} 2`);
    expect(metrics).toContain(`cardlink_admission_requests_total{account="${other.acct.id}",outcome="admitted"} 1`);

    // Nothing that waited is lost: every purchase is answered once its turn comes.
    expect((await otherPurchase).status).toBe(202);
    expect((await Promise.all(held)).map((r) => r.status)).toEqual(Array(8).fill(202));
  }, 30_000);
});
