// Rule: a dashboard session is a server-side record, deleted at sign-out and when its key is rotated or
// revoked, so no copy of the cookie outlives it, and an open live feed checks its session every tick.
// Behind a TLS proxy (TRUST_PROXY) the cookie is Secure and answers carry HSTS; /docs has a CSP too.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHarness, ADMIN_TOKEN, expectStatus, type Harness, type TestAccount } from "../support/harness.ts";
import { createWebApp } from "../../src/app/http.ts";

const ORIGIN = "http://cardlink.test";

let h: Harness;
let proxied: Harness;
beforeAll(async () => {
  [h, proxied] = await Promise.all([createHarness(), createHarness({ env: { TRUST_PROXY: "true" } })]);
});
afterAll(() => Promise.all([h.close(), proxied.close()]));

function client(harness: Harness) {
  const app = createWebApp(harness.services, { adminToken: ADMIN_TOKEN });
  const send = (path: string, init: { cookie?: string; form?: Record<string, string>; headers?: Record<string, string> } = {}) =>
    app.request(`${ORIGIN}${path}`, {
      method: init.form ? "POST" : "GET",
      headers: {
        ...init.headers,
        ...(init.cookie ? { cookie: init.cookie } : {}),
        ...(init.form ? { "content-type": "application/x-www-form-urlencoded", origin: ORIGIN } : {}),
      },
      ...(init.form ? { body: new URLSearchParams(init.form).toString() } : {}),
      redirect: "manual",
    });
  const signIn = async (secret: string, headers?: Record<string, string>) => {
    const res = await send("/dashboard/sign-in", { form: { secret }, ...(headers ? { headers } : {}) });
    expect(res.status).toBe(303);
    return { res, cookie: res.headers.get("set-cookie")!.split(";")[0]! };
  };
  const signedIn = async (cookie: string) => (await send("/dashboard", { cookie })).status === 200;
  return { send, signIn, signedIn };
}

const sessionsOf = async (harness: Harness, keyId: string) =>
  (await harness.services.db.query<{ n: number }>("select count(*)::int as n from dashboard_sessions where key_id = $1", [keyId]))[0]!.n;

async function keyIdOf(harness: Harness, acct: TestAccount, environment: "test" | "live") {
  const { items } = await expectStatus<{ items: { id: string; environment: string; revoked: string | null }[] }>(
    await harness.admin("GET", `/admin/accounts/${acct.id}/keys`),
    200,
  );
  return items.find((k) => k.environment === environment && !k.revoked)!.id;
}

describe("dashboard sessions end", () => {
  it("at sign-out, for every copy of the cookie", async () => {
    const { send, signIn, signedIn } = client(h);
    const acct = await h.createAccount();
    const { cookie } = await signIn(acct.keys.test);
    const copied = cookie;
    expect(await signedIn(copied)).toBe(true);
    expect((await send("/dashboard/sign-out", { cookie, form: {} })).status).toBe(303);
    expect(await signedIn(copied)).toBe(false);
    expect(await sessionsOf(h, await keyIdOf(h, acct, "test"))).toBe(0);
  });

  it("when the key is rotated or revoked", async () => {
    const { signIn, signedIn } = client(h);
    const acct = await h.createAccount();
    const test = await signIn(acct.keys.test);
    const live = await signIn(acct.keys.live);
    const [testKey, liveKey] = [await keyIdOf(h, acct, "test"), await keyIdOf(h, acct, "live")];
    await expectStatus(await h.admin("POST", `/admin/accounts/${acct.id}/keys/rotate`, { environment: "test" }), 201);
    expect(await sessionsOf(h, testKey)).toBe(0);
    expect(await signedIn(test.cookie)).toBe(false);
    expect(await signedIn(live.cookie)).toBe(true);
    await expectStatus(await h.admin("DELETE", `/admin/accounts/${acct.id}/keys/${liveKey}`), 200);
    expect(await sessionsOf(h, liveKey)).toBe(0);
    expect(await signedIn(live.cookie)).toBe(false);
  });

  it("and an open live feed closes when its key is revoked", async () => {
    const { send, signIn } = client(h);
    const acct = await h.createAccount();
    const programId = (await expectStatus<{ id: string }>(await acct.as("test").post("/v1/programs", { name: "Feed" }), 201)).id;
    const { cookie } = await signIn(acct.keys.test);
    const feed = await send(`/dashboard/transactions/stream?program=${programId}`, { cookie });
    expect(feed.status).toBe(200);
    const reader = feed.body!.getReader();
    await expectStatus(await h.admin("DELETE", `/admin/accounts/${acct.id}/keys/${await keyIdOf(h, acct, "test")}`), 200);
    let text = "";
    const ended = (async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return true;
        text += new TextDecoder().decode(value);
      }
    })();
    // The feed ticks every second: it ends at the next tick, well within this.
    const outcome = await Promise.race([ended, new Promise<false>((resolve) => setTimeout(() => resolve(false), 10_000))]);
    if (!outcome) await reader.cancel();
    expect(outcome).toBe(true);
    expect(text).toContain("event: signed-out");
  });
});

describe("behind a TLS proxy", () => {
  it("with TRUST_PROXY and X-Forwarded-Proto: https, the cookie is Secure and answers carry HSTS", async () => {
    const acct = await proxied.createAccount();
    const { res } = await client(proxied).signIn(acct.keys.test, { "x-forwarded-proto": "https" });
    expect(res.headers.get("set-cookie")).toMatch(/; Secure/);
    expect(res.headers.get("strict-transport-security")).toBe("max-age=31536000");
    const api = await proxied.request("GET", "/health", { headers: { "x-forwarded-proto": "https" } });
    expect(api.headers.get("strict-transport-security")).toBe("max-age=31536000");
  });

  it("with TRUST_PROXY, a form posted from the https page the browser sees is same-origin", async () => {
    const signIn = (harness: Harness, secret: string) =>
      createWebApp(harness.services, { adminToken: ADMIN_TOKEN }).request(`${ORIGIN}/dashboard/sign-in`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", origin: "https://cardlink.test", "x-forwarded-proto": "https" },
        body: new URLSearchParams({ secret }).toString(),
      });
    expect((await signIn(proxied, (await proxied.createAccount()).keys.test)).status).toBe(303);
    expect((await signIn(h, (await h.createAccount()).keys.test)).status).toBe(403);
  });

  it("without TRUST_PROXY the header is anyone's to send and changes nothing", async () => {
    const acct = await h.createAccount();
    const { res } = await client(h).signIn(acct.keys.test, { "x-forwarded-proto": "https" });
    expect(res.headers.get("set-cookie")).not.toMatch(/Secure/);
    expect(res.headers.get("strict-transport-security")).toBeNull();
  });
});

describe("/docs", () => {
  it("has a Content-Security-Policy that forbids framing", async () => {
    const res = await client(h).send("/docs");
    expect(res.status).toBe(200);
    const csp = res.headers.get("content-security-policy")!;
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("script-src 'self'");
  });
});
