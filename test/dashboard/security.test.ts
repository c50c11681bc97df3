// Dashboard security over HTTP: no page or action without a session, a signed session cookie that
// holds no key, test sessions never see live data, another account's ids are not found, and forms
// posted from another site are refused.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHarness, ADMIN_TOKEN, type Harness, type TestAccount } from "../support/harness.ts";
import { seedGraph, type Graph } from "../support/fixtures.ts";
import { createWebApp } from "../../src/app/http.ts";

const ORIGIN = "http://cardlink.test";

let h: Harness;
let app: ReturnType<typeof createWebApp>;
let owner: TestAccount;
let other: TestAccount;
let testGraph: Graph;
let liveGraph: Graph;

/** A same-origin form post or page view, as the browser sends it. */
function send(path: string, init: { method?: string; cookie?: string; form?: Record<string, string>; origin?: string } = {}) {
  const headers: Record<string, string> = {};
  if (init.cookie) headers.cookie = init.cookie;
  let body: string | undefined;
  if (init.form) {
    headers["content-type"] = "application/x-www-form-urlencoded";
    headers.origin = init.origin ?? ORIGIN;
    body = new URLSearchParams(init.form).toString();
  }
  return app.request(`${ORIGIN}${path}`, { method: init.method ?? (init.form ? "POST" : "GET"), headers, body, redirect: "manual" });
}

async function signIn(secret: string): Promise<{ res: Response; cookie: string }> {
  const res = await send("/dashboard/sign-in", { form: { secret } });
  const setCookie = res.headers.get("set-cookie") ?? "";
  return { res, cookie: setCookie.split(";")[0]! };
}

beforeAll(async () => {
  h = await createHarness();
  app = createWebApp(h.services, { adminToken: ADMIN_TOKEN });
  owner = await h.createAccount({ tier: "premium" });
  other = await h.createAccount({ tier: "premium" });
  testGraph = await seedGraph(owner.as("test"), h);
  liveGraph = await seedGraph(owner.as("live"), h);
});
afterAll(() => h.close());

const PAGES = [
  "/dashboard",
  "/dashboard/transactions",
  "/dashboard/webhooks",
  "/dashboard/events",
  "/dashboard/requests",
  "/dashboard/offers",
  "/dashboard/offers/new",
  "/dashboard/locations",
  "/dashboard/mid-insights",
  "/dashboard/mail",
  "/dashboard/missing-transaction-requests",
  "/dashboard/operator",
];
const ACTIONS = [
  "/dashboard/programs",
  "/dashboard/offers",
  "/dashboard/transactions/test",
  "/dashboard/webhooks",
  "/dashboard/locations/sync",
  "/dashboard/mid-insights/export",
  "/dashboard/missing-transaction-requests",
  "/dashboard/operator/clock",
  "/dashboard/operator/accounts",
];

describe("dashboard sessions", () => {
  it("without a session every page leads to sign-in and every action is refused", async () => {
    for (const path of PAGES) {
      const res = await send(path);
      expect(res.status, path).toBe(303);
      expect(res.headers.get("location"), path).toBe("/dashboard/sign-in");
    }
    for (const path of ACTIONS) {
      const res = await send(path, { form: { name: "x" } });
      expect(res.status, path).toBe(401);
    }
    expect((await send(`/dashboard/transactions/stream?program=${testGraph.programId}`)).status).toBe(401);
  });

  it("a wrong key does not sign in; a forged or altered cookie is no session", async () => {
    const wrong = await signIn("sk_test_notakey");
    expect(wrong.res.status).toBe(401);
    expect(await wrong.res.text()).toContain("neither a current API key nor the admin token");
    const { cookie } = await signIn(owner.keys.test);
    const [name, value] = cookie.split("=");
    // Another session id under the same signature: the id's first character changed.
    const altered = `${name}=${value!.replace(/^(.)/, (d: string) => (d === "A" ? "B" : "A"))}`;
    expect(altered).not.toBe(cookie);
    expect((await send("/dashboard", { cookie: altered })).status).toBe(303);
    expect((await send("/dashboard", { cookie: `${name}=operator%7C1.abc` })).status).toBe(303);
  });

  it("the session cookie is signed, HttpOnly, SameSite=Strict and holds no key", async () => {
    const { res } = await signIn(owner.keys.test);
    expect(res.status).toBe(303);
    const setCookie = res.headers.get("set-cookie")!;
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Strict/);
    expect(setCookie).not.toContain(owner.keys.test);
    expect(setCookie).not.toContain(owner.keys.test.slice(8));
    const admin = await signIn(ADMIN_TOKEN);
    expect(admin.res.headers.get("location")).toBe("/dashboard/operator");
    expect(admin.res.headers.get("set-cookie")).not.toContain(ADMIN_TOKEN);
  });

  it("signing out ends the session in the browser", async () => {
    const { cookie } = await signIn(owner.keys.test);
    const out = await send("/dashboard/sign-out", { cookie, form: {} });
    expect(out.status).toBe(303);
    expect(out.headers.get("set-cookie")).toMatch(/cardlink_session=;.*Max-Age=0/);
  });

  it("a form posted from another site is refused before it runs", async () => {
    const { cookie } = await signIn(owner.keys.test);
    const before = (await (await owner.as("test").get("/v1/programs")).json()) as { count: number };
    const res = await send("/dashboard/programs", { cookie, form: { name: "Cross-site" }, origin: "http://evil.example" });
    expect(res.status).toBe(403);
    const noOrigin = await app.request(`${ORIGIN}/dashboard/programs`, {
      method: "POST",
      headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
      body: "name=Cross-site",
    });
    expect(noOrigin.status).toBe(403);
    const after = (await (await owner.as("test").get("/v1/programs")).json()) as { count: number };
    expect(after.count).toBe(before.count);
    const sameSite = await send("/dashboard/programs", { cookie, form: { name: "Same site" } });
    expect(sameSite.status).toBe(303);
  });
});

describe("what a session can see", () => {
  it("a test-key session never shows live data", async () => {
    const { cookie } = await signIn(owner.keys.test);
    const programs = await send("/dashboard/transactions", { cookie });
    const html = await programs.text();
    expect(html).toContain("TEST environment");
    expect(html).toContain(testGraph.programId);
    expect(html).not.toContain(liveGraph.programId);
    for (const path of [
      `/dashboard/transactions?program=${liveGraph.programId}`,
      `/dashboard/transactions/${liveGraph.transactionId}`,
      `/dashboard/offers/${liveGraph.offerId}`,
      `/dashboard/webhooks/${liveGraph.hookId}`,
      `/dashboard/events?program=${liveGraph.programId}`,
    ]) {
      const res = await send(path, { cookie });
      expect(res.status, path).toBe(404);
      expect(await res.text(), path).toContain("resource_not_found");
    }
  });

  it("another account's ids answer not found, pages and actions alike", async () => {
    const { cookie } = await signIn(other.keys.test);
    for (const path of [
      `/dashboard/locations?program=${testGraph.programId}`,
      `/dashboard/transactions/${testGraph.transactionId}`,
      `/dashboard/offers/${testGraph.offerId}`,
      `/dashboard/webhooks/${testGraph.hookId}`,
      `/dashboard/events?program=${testGraph.programId}`,
    ]) {
      const res = await send(path, { cookie });
      expect(res.status, path).toBe(404);
    }
    const del = await send(`/dashboard/offers/${testGraph.offerId}/delete`, { cookie, form: {} });
    expect(del.status).toBe(303);
    const flashed = await send(del.headers.get("location")!, { cookie: `${cookie}; ${del.headers.get("set-cookie")!.split(";")[0]}` });
    expect(await flashed.text()).toContain(`No offer with id ${testGraph.offerId}`);
    expect((await owner.as("test").get(`/v1/offers/${testGraph.offerId}`)).status).toBe(200);
  });

  it("a key session cannot reach the operator pages, nor the operator the program pages", async () => {
    const key = await signIn(owner.keys.test);
    const op = await send("/dashboard/operator", { cookie: key.cookie });
    expect(op.headers.get("location")).toBe("/dashboard");
    expect((await send("/dashboard/operator/clock", { cookie: key.cookie, form: { days: "1" } })).status).toBe(303);
    const admin = await signIn(ADMIN_TOKEN);
    expect((await send("/dashboard/transactions", { cookie: admin.cookie })).headers.get("location")).toBe("/dashboard/operator");
    expect(h.services.clock.now().toISOString()).toBe("2026-01-05T12:00:00.000Z");
  });
});

describe("what pages load", () => {
  const EXTERNAL = /(?:src|href|action|formaction)\s*=\s*["']?(?:https?:)?\/\//gi;

  it("no page references an external URL: every script, style and link is the service's own", async () => {
    const key = await signIn(owner.keys.live);
    const admin = await signIn(ADMIN_TOKEN);
    const pages: [string, string | undefined][] = [
      ["/", undefined],
      ["/docs", undefined],
      ["/dashboard/sign-in", undefined],
      ...PAGES.filter((p) => p !== "/dashboard/operator").map((p): [string, string] => [p, key.cookie]),
      [`/dashboard/transactions/${liveGraph.transactionId}`, key.cookie],
      [`/dashboard/offers/${liveGraph.offerId}`, key.cookie],
      [`/dashboard/webhooks/${liveGraph.hookId}`, key.cookie],
      ["/dashboard/offers?group=marketplace", key.cookie],
      ["/dashboard/operator", admin.cookie],
    ];
    for (const [path, cookie] of pages) {
      const res = await send(path, { cookie });
      expect(res.status, path).toBe(200);
      const html = await res.text();
      expect(html.match(EXTERNAL), path).toBeNull();
      for (const asset of html.matchAll(/(?:src|href)="(\/[^"]*\.(?:js|css|png))"/g)) {
        expect((await send(asset[1]!)).status, asset[1]).toBe(200);
      }
    }
    const swagger = await (await send("/docs/assets/swagger-ui-bundle.js")).text();
    expect(swagger.length).toBeGreaterThan(100_000);
  });

  it("dashboard pages forbid loading from elsewhere (Content-Security-Policy)", async () => {
    const { cookie } = await signIn(owner.keys.test);
    const res = await send("/dashboard/transactions", { cookie });
    expect(res.headers.get("content-security-policy")).toContain("default-src 'self'");
    expect(res.headers.get("content-security-policy")).toContain("script-src 'self'");
  });
});
