// The Requests page over HTTP: a 400 an integrator's code received is found again with the filters and
// opened with the body it sent (card number masked) and the answer; a request's page links the webhook events
// it caused; the dashboard's own calls are in the log under their source, left out by default.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_TOKEN, createHarness, expectStatus, type Harness } from "../support/harness.ts";
import { createWebApp } from "../../src/app/http.ts";

const ORIGIN = "http://cardlink.test";

let h: Harness;
let app: ReturnType<typeof createWebApp>;
beforeAll(async () => {
  h = await createHarness();
  app = createWebApp(h.services, { adminToken: ADMIN_TOKEN });
});
afterAll(() => h.close());

async function signIn(secret: string): Promise<string> {
  const res = await app.request(`${ORIGIN}/dashboard/sign-in`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: ORIGIN },
    body: new URLSearchParams({ secret }).toString(),
    redirect: "manual",
  });
  expect(res.status).toBe(303);
  return (res.headers.get("set-cookie") ?? "").split(";")[0]!;
}

/** A page's text with the entities Hono's JSX escapes turned back. */
async function page(cookie: string, path: string): Promise<string> {
  await h.services.requestLog.flush();
  const res = await app.request(`${ORIGIN}${path}`, { headers: { cookie } });
  expect(res.status, path).toBe(200);
  return (await res.text()).replace(/&#39;/g, "'").replace(/&quot;/g, '"').replace(/&amp;/g, "&");
}

describe("the Requests page", () => {
  it("finds a 400 again with the filters and opens it with the body it sent, card number masked", async () => {
    const account = await h.createAccount();
    const client = account.as("test");
    const program = await expectStatus<{ id: string }>(await client.post("/v1/programs", { name: "Dashboard log" }), 201);
    const refused = await client.post(`/v1/programs/${program.id}/cards`, { number: "4444000000004009", expMonth: 12, expYear: 2030, countryCode: "GBR", termsOfUse: true });
    expect(refused.status).toBe(400);
    const id = refused.headers.get("Request-Id")!;
    const cookie = await signIn(account.keys.test);

    const list = await page(cookie, "/dashboard/requests?status=4xx");
    expect(list).toContain(`data-request="${id}"`);
    expect(list).toContain(`<code>/v1/programs/${program.id}/cards</code>`);
    expect(list).toContain('href="/dashboard/requests"');
    expect(list.match(/data-request="/g)).toHaveLength(1);

    const one = await page(cookie, `/dashboard/requests/${id}`);
    expect(one).toContain('"number": "************4009"');
    expect(one).toContain("number: fails the Luhn check");
    expect(one).not.toContain("4444000000004009");
    expect(one).toContain("None: the request made or changed nothing that sends webhooks.");

    // The pages just opened called the API for the session: in the log as the dashboard's, shown when asked for.
    expect((await page(cookie, "/dashboard/requests")).match(/data-request="/g)).toHaveLength(2);
    expect(await page(cookie, "/dashboard/requests?source=dashboard")).toContain("<code>/v1/sandboxes</code>");
  });

  it("links from a request to the webhook events it caused", async () => {
    const account = await h.createAccount();
    const client = account.as("test");
    const program = await expectStatus<{ id: string }>(await client.post("/v1/programs", { name: "Linked" }), 201);
    const brand = await expectStatus<{ id: string }>(await client.post("/v1/brands", { name: "Linked brand" }), 201);
    const created = await client.post(`/v1/programs/${program.id}/locations`, { brandId: brand.id, address: "2 Log Street", city: "London", postcode: "E1 6AN", countryCode: "GBR" });
    expect(created.status).toBe(201);
    const cookie = await signIn(account.keys.test);
    const one = await page(cookie, `/dashboard/requests/${created.headers.get("Request-Id")}`);
    const links = [...one.matchAll(/<a href="\/dashboard\/events\/([0-9a-f-]{36})" aria-label="Open event location\.status/g)];
    expect(links).toHaveLength(3);
  });
});
