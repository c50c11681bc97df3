// Sandboxes in the dashboard over HTTP: the Sandboxes page (list, limit, create with the keys once,
// delete after a confirmation), the environment switcher kept in the session, every page inside a
// sandbox, the sandbox's clock and its advance form, a sandbox's own key, a sandbox deleted while chosen,
// and cross-site posts refused.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHarness, ADMIN_TOKEN, expectStatus, type Client, type Harness, type TestAccount } from "../support/harness.ts";
import { CARD_NUMBERS, seedGraph, type Graph } from "../support/fixtures.ts";
import { createWebApp } from "../../src/app/http.ts";

const ORIGIN = "http://cardlink.test";

let h: Harness;
let app: ReturnType<typeof createWebApp>;

interface Created {
  id: string;
  keys: { test: string; live: string };
}

/** A same-origin form post or page view, as the browser sends it. */
function send(path: string, init: { cookie?: string; form?: Record<string, string>; origin?: string } = {}) {
  const headers: Record<string, string> = {};
  if (init.cookie) headers.cookie = init.cookie;
  let body: string | undefined;
  if (init.form) {
    headers["content-type"] = "application/x-www-form-urlencoded";
    headers.origin = init.origin ?? ORIGIN;
    body = new URLSearchParams(init.form).toString();
  }
  return app.request(`${ORIGIN}${path}`, { method: init.form ? "POST" : "GET", headers, body, redirect: "manual" });
}

async function signIn(secret: string): Promise<string> {
  const res = await send("/dashboard/sign-in", { form: { secret } });
  expect(res.status).toBe(303);
  return (res.headers.get("set-cookie") ?? "").split(";")[0]!;
}

/** A page's text with the entities Hono's JSX escapes turned back, for matching against messages. */
const unescaped = (page: string) => page.replace(/&#39;/g, "'").replace(/&quot;/g, '"').replace(/&amp;/g, "&");

/** Posts a form and opens the page it leads to, with the flash message it set: that page's HTML. */
async function act(cookie: string, path: string, form: Record<string, string>): Promise<{ location: string; html: string }> {
  const res = await send(path, { cookie, form });
  expect(res.status, `${path}: ${await res.clone().text()}`).toBe(303);
  const location = res.headers.get("location")!;
  const flash = (res.headers.get("set-cookie") ?? "").split(";")[0]!;
  const page = await send(location, { cookie: flash ? `${cookie}; ${flash}` : cookie });
  return { location, html: unescaped(await page.text()) };
}

const html = async (cookie: string, path: string) => {
  const res = await send(path, { cookie });
  expect(res.status, path).toBe(200);
  return unescaped(await res.text());
};

/** A sandbox of `account` made over the API, with its keys. */
async function sandboxOf(account: TestAccount, name: string, clock?: { at?: string; frozen?: boolean }): Promise<Created> {
  return expectStatus<Created>(await account.as("test").post("/v1/sandboxes", { name, ...(clock ? { clock } : {}) }), 201);
}

/** Records in a sandbox's test environment, made with its own key: a program, card, hook, offer and transaction. */
async function seedSandbox(client: Client): Promise<Graph> {
  const made = async (path: string, body: unknown) => (await expectStatus<{ id: string }>(await client.post(path, body), 201)).id;
  const programId = await made("/v1/programs", { name: "Sandbox program" });
  const brandId = await made("/v1/brands", { name: "Sandbox brand" });
  const cardId = await made(`/v1/programs/${programId}/cards`, { number: CARD_NUMBERS.test, expMonth: 12, expYear: 2030, countryCode: "GBR", termsOfUse: true });
  const hookId = await made(`/v1/programs/${programId}/hooks`, { event: "transaction.auth", url: "http://127.0.0.1:4000/hook" });
  const account = await expectStatus<{ id: string }>(await client.get("/v1/account"), 200);
  const offerId = await made("/v1/offers", {
    brandId,
    countryCode: "GBR",
    name: "Sandbox oaas offer",
    publisherId: account.id,
    startDate: "2026-01-01T00:00:00",
    type: { name: "amount", value: 1 },
    transactionSource: "oaas",
  });
  const transactionId = await made(`/v1/offers/${offerId}/transactions`, { cardId, amount: 10, datetime: "2026-01-31T10:00:00", reference: "sandbox-1" });
  return { programId, hookId, offerId, transactionId };
}

const programCount = async (client: Client) => (await expectStatus<{ count: number }>(await client.get("/v1/programs"), 200)).count;

/** A fresh account for one test, with a graph of records in its own test environment. */
async function ownerWithGraph(): Promise<{ owner: TestAccount; accountGraph: Graph }> {
  const owner = await h.createAccount({ tier: "premium", name: "Sandbox owner" });
  return { owner, accountGraph: await seedGraph(owner.as("test"), h) };
}

beforeAll(async () => {
  h = await createHarness();
  app = createWebApp(h.services, { adminToken: ADMIN_TOKEN });
});
afterAll(() => h.close());

describe("the Sandboxes page", () => {
  it("creates a sandbox with the form, shows its keys once, lists it with its time and the limit, and deletes it after a confirmation", async () => {
    const account = await h.createAccount({ name: "Page account" });
    const cookie = await signIn(account.keys.test);
    expect(await html(cookie, "/dashboard/sandboxes")).toMatch(/<strong>0 of 10<\/strong> sandboxes used/);

    const created = await send("/dashboard/sandboxes", {
      cookie,
      form: { name: "ci-1", at: "2026-03-01T09:00", frozen: "true", expiresIn: "3600" },
    });
    expect(created.status).toBe(201);
    const page = await created.text();
    const [test, live] = [...page.matchAll(/<code class="secret">(sk_(?:test|live)_[^<]+)<\/code>/g)].map((m) => m[1]!);
    expect(test).toMatch(/^sk_test_/);
    expect(live).toMatch(/^sk_live_/);
    expect(page).toContain("its time is 2026-03-01T09:00:00.000Z (frozen)");
    expect(page).toContain("expires at 2026-01-05 13:00:00");
    // The keys are the sandbox's own, and never shown again.
    const clock = await expectStatus<{ now: string; frozen: boolean }>(await h.clientWithKey(test!).get("/v1/clock"), 200);
    expect(clock).toMatchObject({ now: "2026-03-01T09:00:00.000Z", frozen: true });

    const list = await html(cookie, "/dashboard/sandboxes");
    expect(list).toMatch(/<strong>1 of 10<\/strong> sandboxes used/);
    expect(list).toContain("ci-1");
    expect(list).toContain("2026-03-01 09:00:00");
    expect(list).toContain("frozen");
    expect(list).not.toContain(test!);
    const id = list.match(/data-sandbox="([^"]+)"/)![1]!;

    const confirm = await html(cookie, `/dashboard/sandboxes/${id}/delete`);
    expect(confirm).toContain("Delete sandbox ci-1?");
    expect(confirm).toContain("Its keys stop");
    const deleted = await act(cookie, `/dashboard/sandboxes/${id}/delete`, {});
    expect(deleted.location).toBe("/dashboard/sandboxes");
    expect(deleted.html).toContain("Sandbox deleted, with everything in it.");
    expect(deleted.html).toMatch(/<strong>0 of 10<\/strong> sandboxes used/);
    expect((await h.clientWithKey(test!).get("/v1/programs")).status).toBe(401);
  });

  it("shows the API's message when a name is taken or the limit is reached", async () => {
    const account = await h.createAccount({ name: "Limit account" });
    const cookie = await signIn(account.keys.test);
    for (let i = 0; i < 10; i++) await sandboxOf(account, String.fromCharCode(97 + i));
    const taken = await act(cookie, "/dashboard/sandboxes", { name: "a" });
    expect(taken.html).toContain('this account already has a sandbox named "a"');
    const full = await act(cookie, "/dashboard/sandboxes", { name: "z" });
    expect(full.html).toContain("This account has 10 sandboxes, the most it may have (10, SANDBOXES_PER_ACCOUNT)");
    expect(full.html).toMatch(/<strong>10 of 10<\/strong> sandboxes used/);
    expect(full.html).toContain("The account has as many sandboxes as it may");
    await act(cookie, `/dashboard/sandboxes/${full.html.match(/data-sandbox="([^"]+)"/)![1]}/delete`, {});
    const refused = await act(cookie, "/dashboard/sandboxes", { name: "k", expiresIn: "30" });
    expect(refused.html).toContain("expiresIn: must be at least 60 seconds");
  });
});

describe("the environment switcher", () => {
  it("switches the session into a sandbox and back; what is made there stays there", async () => {
    const { owner, accountGraph } = await ownerWithGraph();
    const sandbox = await sandboxOf(owner, "switch-me");
    const cookie = await signIn(owner.keys.test);
    const before = await html(cookie, "/dashboard");
    expect(before).toContain("TEST environment — Sandbox owner (premium)");
    expect(before).toMatch(/<option value="" selected="">Sandbox owner \(the account's own\)<\/option>/);
    expect(before).toContain(`<option value="${sandbox.id}">Sandbox switch-me</option>`);
    expect(before).not.toContain('id="sandbox-now"');

    const switched = await act(cookie, "/dashboard/environment", { sandbox: sandbox.id, back: "/dashboard/offers" });
    expect(switched.location).toBe("/dashboard/offers");
    expect(switched.html).toContain("Now in sandbox switch-me (TEST)");
    expect(switched.html).toContain("TEST environment — sandbox switch-me of Sandbox owner (premium)");
    expect(switched.html).toContain("env-sandbox");
    expect(switched.html).toContain('id="sandbox-now">2026-01-05T12:00:00.000Z</strong>');
    expect(switched.html).not.toContain(accountGraph.programId);

    const made = await act(cookie, "/dashboard/programs", { name: "Made in the sandbox" });
    expect(made.html).toContain("Program created.");
    expect(await programCount(h.clientWithKey(sandbox.keys.test))).toBe(1);
    const accountPrograms = await expectStatus<{ items: { name: string }[] }>(await owner.as("test").get("/v1/programs"), 200);
    expect(accountPrograms.items.map((p) => p.name)).not.toContain("Made in the sandbox");

    const back = await act(cookie, "/dashboard/environment", { sandbox: "", back: "/dashboard" });
    expect(back.html).toContain("Now in the account's own TEST environment.");
    expect(back.html).toContain(accountGraph.programId);
    expect(back.html).not.toContain("Made in the sandbox");
  });

  it("keeps the choice per session, on the server: another sign-in starts in the key's own environment", async () => {
    const owner = await h.createAccount({ tier: "premium", name: "Sandbox owner" });
    const sandbox = await sandboxOf(owner, "per-session");
    const first = await signIn(owner.keys.test);
    await act(first, "/dashboard/environment", { sandbox: sandbox.id });
    const second = await signIn(owner.keys.test);
    expect(await html(first, "/dashboard/transactions")).toContain("sandbox per-session of Sandbox owner");
    expect(await html(second, "/dashboard/transactions")).toContain("TEST environment — Sandbox owner (premium)");
    // The cookie holds the session's id alone: no environment to alter in the browser.
    expect(decodeURIComponent(first)).not.toContain(sandbox.id);
  });

  it("a live key's session switches among the sandboxes in live", async () => {
    const owner = await h.createAccount({ tier: "premium", name: "Sandbox owner" });
    const sandbox = await sandboxOf(owner, "live-side");
    const cookie = await signIn(owner.keys.live);
    const switched = await act(cookie, "/dashboard/environment", { sandbox: sandbox.id });
    expect(switched.html).toContain("LIVE environment — sandbox live-side of Sandbox owner (premium)");
    await act(cookie, "/dashboard/programs", { name: "Live sandbox program" });
    const programs = await expectStatus<{ items: { live: boolean }[] }>(await h.clientWithKey(sandbox.keys.live).get("/v1/programs"), 200);
    expect(programs.items).toEqual([expect.objectContaining({ live: true })]);
    expect(await programCount(h.clientWithKey(sandbox.keys.test))).toBe(0);
    // MID insights (live, premium) answer for the sandbox too: its tier is its account's.
    expect(await html(cookie, "/dashboard/mid-insights")).toContain("LIVE environment — sandbox live-side");
  });

  it("refuses another account's sandbox with the API's message and stays where it was", async () => {
    const owner = await h.createAccount({ tier: "premium", name: "Sandbox owner" });
    const theirs = await sandboxOf(await h.createAccount({ name: "Someone else" }), "not-yours");
    const cookie = await signIn(owner.keys.test);
    const refused = await act(cookie, "/dashboard/environment", { sandbox: theirs.id });
    expect(refused.html).toContain(`No sandbox with id ${theirs.id}`);
    expect(refused.html).toContain("TEST environment — Sandbox owner (premium)");
  });

  it("returns only to a top-level page of the dashboard", async () => {
    const owner = await h.createAccount({ tier: "premium", name: "Sandbox owner" });
    const sandbox = await sandboxOf(owner, "no-open-redirect");
    const cookie = await signIn(owner.keys.test);
    for (const back of ["https://evil.example/", "//evil.example", "/dashboard/offers/abc", "/dashboard?program=x"]) {
      const res = await send("/dashboard/environment", { cookie, form: { sandbox: sandbox.id, back } });
      expect(res.headers.get("location"), back).toBe("/dashboard");
    }
  });
});

describe("inside a sandbox", () => {
  let owner: TestAccount;
  let accountGraph: Graph;
  let sandbox: Created;
  let graph: Graph;
  let cookie: string;

  beforeAll(async () => {
    ({ owner, accountGraph } = await ownerWithGraph());
    sandbox = await sandboxOf(owner, "every-page", { at: "2026-02-01T00:00:00Z", frozen: true });
    graph = await seedSandbox(h.clientWithKey(sandbox.keys.test));
    cookie = await signIn(owner.keys.test);
    await act(cookie, "/dashboard/environment", { sandbox: sandbox.id });
  });

  it("every page shows the sandbox's records, and the account's ids answer not found", async () => {
    for (const path of [
      "/dashboard",
      "/dashboard/transactions",
      "/dashboard/webhooks",
      "/dashboard/events",
      "/dashboard/offers",
      "/dashboard/offers/new",
      "/dashboard/locations",
      "/dashboard/missing-transaction-requests",
      "/dashboard/sandboxes",
      `/dashboard/transactions/${graph.transactionId}`,
      `/dashboard/offers/${graph.offerId}`,
      `/dashboard/webhooks/${graph.hookId}`,
    ]) {
      const page = await html(cookie, path);
      expect(page, path).toContain("sandbox every-page of Sandbox owner");
      expect(page, path).toContain('id="sandbox-now">2026-02-01T00:00:00.000Z</strong>');
      expect(page, path).not.toContain(accountGraph.programId);
    }
    expect(await html(cookie, "/dashboard/transactions")).toContain(graph.transactionId);
    // Times are named for the environment's clock: the sandbox's, not the service's.
    expect(await html(cookie, "/dashboard")).toContain("the sandbox's clock is at 2026-02-01 00:00");
    expect(await html(cookie, "/dashboard/events")).toContain("When (sandbox time)");
    for (const path of [`/dashboard/transactions/${accountGraph.transactionId}`, `/dashboard/offers/${accountGraph.offerId}`]) {
      const res = await send(path, { cookie });
      expect(res.status, path).toBe(404);
      expect(await res.text(), path).toContain("resource_not_found");
    }
  });

  it("the forms act in the sandbox: a hook added there is the sandbox's", async () => {
    const made = await send(`/dashboard/webhooks?program=${graph.programId}`, { cookie, form: { event: "transaction.auth", url: "http://127.0.0.1:4000/hook" } });
    expect(made.status).toBe(201);
    expect(await made.text()).toContain("sandbox every-page of Sandbox owner");
    const hooks = await expectStatus<{ count: number }>(await h.clientWithKey(sandbox.keys.test).get(`/v1/programs/${graph.programId}/hooks`), 200);
    expect(hooks.count).toBe(2);
  });

  it("the clock form moves the sandbox's time alone, by days and hours or to an instant, and shows the API's messages", async () => {
    const service = h.services.clock.now().toISOString();
    const moved = await act(cookie, "/dashboard/clock", { days: "2", hours: "3", back: `/dashboard/offers?program=${graph.programId}` });
    expect(moved.location).toBe(`/dashboard/offers?program=${graph.programId}`);
    expect(moved.html).toContain("Sandbox time is now 2026-02-03T03:00:00.000Z.");
    expect(moved.html).toContain('id="sandbox-now">2026-02-03T03:00:00.000Z</strong>');
    const to = await act(cookie, "/dashboard/clock", { to: "2026-02-10T08:30" });
    expect(to.html).toContain("Sandbox time is now 2026-02-10T08:30:00.000Z.");
    expect((await act(cookie, "/dashboard/clock", { hours: "-1" })).html).toContain("hours: must be 0 or more");
    expect((await act(cookie, "/dashboard/clock", { to: "2026-02-01T00:00" })).html).toContain("to: the clock never goes back");
    expect((await act(cookie, "/dashboard/clock", {})).html).toContain("give days, hours, minutes or seconds greater than 0, or `to`");
    expect(h.services.clock.now().toISOString()).toBe(service);
    const outside = await signIn(owner.keys.test);
    expect(await html(outside, "/dashboard")).not.toContain('id="sandbox-now"');
    expect((await act(outside, "/dashboard/clock", { days: "1" })).html).toContain("An account's own environments keep the service clock");
  });
});

describe("a session signed in with a sandbox's own key", () => {
  it("shows that sandbox only: no switcher, no Sandboxes page, the clock and its form", async () => {
    const owner = await h.createAccount({ tier: "premium", name: "Sandbox owner" });
    const sandbox = await sandboxOf(owner, "own-key", { at: "2026-04-01T00:00:00Z", frozen: true });
    const cookie = await signIn(sandbox.keys.test);
    const page = await html(cookie, "/dashboard");
    expect(page).toContain("TEST environment — sandbox own-key, signed in with its own key (premium)");
    expect(page).not.toContain('id="env-switch"');
    expect(page).not.toContain('href="/dashboard/sandboxes"');
    expect(page).toContain('id="sandbox-now">2026-04-01T00:00:00.000Z</strong>');
    const listing = await send("/dashboard/sandboxes", { cookie });
    expect(listing.status).toBe(403);
    expect(unescaped(await listing.text())).toContain("A sandbox's key cannot manage sandboxes");
    const elsewhere = await sandboxOf(owner, "own-key-sibling");
    expect((await act(cookie, "/dashboard/environment", { sandbox: elsewhere.id })).html).toContain("A sandbox's key cannot manage sandboxes");
    expect((await act(cookie, "/dashboard/clock", { days: "1" })).html).toContain("Sandbox time is now 2026-04-02T00:00:00.000Z.");
  });
});

describe("a sandbox deleted while a session is in it", () => {
  it("falls back to the account's environment with a message, and a form posted meanwhile is not run", async () => {
    const owner = await h.createAccount({ tier: "premium", name: "Sandbox owner" });
    const sandbox = await sandboxOf(owner, "short-lived");
    const cookie = await signIn(owner.keys.test);
    await act(cookie, "/dashboard/environment", { sandbox: sandbox.id });
    await expectStatus(await owner.as("test").delete(`/v1/sandboxes/${sandbox.id}`), 204);
    const programs = await programCount(owner.as("test"));
    const posted = await act(cookie, "/dashboard/programs", { name: "Meant for the sandbox" });
    expect(posted.location).toBe("/dashboard");
    expect(posted.html).toContain(`The sandbox you were in (${sandbox.id}) no longer exists: it was deleted or expired.`);
    expect(posted.html).toContain("The form was not sent.");
    expect(posted.html).toContain("TEST environment — Sandbox owner (premium)");
    expect(await programCount(owner.as("test"))).toBe(programs);
    expect(await html(cookie, "/dashboard/offers")).not.toContain("no longer exists");
  });

  it("deleting the sandbox the session is in from the Sandboxes page brings it back at once", async () => {
    const owner = await h.createAccount({ tier: "premium", name: "Sandbox owner" });
    const sandbox = await sandboxOf(owner, "deleted-here");
    const cookie = await signIn(owner.keys.test);
    await act(cookie, "/dashboard/environment", { sandbox: sandbox.id });
    const deleted = await act(cookie, `/dashboard/sandboxes/${sandbox.id}/delete`, {});
    expect(deleted.html).toContain("You are back in the account's own TEST environment.");
    expect(deleted.html).toContain("TEST environment — Sandbox owner (premium)");
    expect(deleted.html).not.toContain("deleted-here");
  });
});

describe("sandbox forms and sessions", () => {
  const ACTIONS = ["/dashboard/environment", "/dashboard/clock", "/dashboard/sandboxes"];

  it("without a session the page leads to sign-in and the actions are refused", async () => {
    expect((await send("/dashboard/sandboxes")).headers.get("location")).toBe("/dashboard/sign-in");
    for (const path of ACTIONS) expect((await send(path, { form: { name: "x" } })).status, path).toBe(401);
  });

  it("a form posted from another site is refused before it runs", async () => {
    const account = await h.createAccount({ name: "Cross-site account" });
    const cookie = await signIn(account.keys.test);
    for (const path of ACTIONS) {
      const res = await send(path, { cookie, form: { name: "cross-site", days: "1" }, origin: "http://evil.example" });
      expect(res.status, path).toBe(403);
    }
    const list = await expectStatus<{ count: number }>(await account.as("test").get("/v1/sandboxes"), 200);
    expect(list.count).toBe(0);
  });

  it("the operator's session does not reach the sandbox forms", async () => {
    const admin = await signIn(ADMIN_TOKEN);
    for (const path of ACTIONS) {
      const res = await send(path, { cookie: admin, form: { name: "operator", days: "1" } });
      expect(res.headers.get("location"), path).toBe("/dashboard/operator");
    }
  });
});
