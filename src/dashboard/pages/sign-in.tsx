// Signing in and out: an API key (test or live) for the program pages, or the admin token for the
// operator pages. The key is checked once and never kept: the session names it by id.
import { createHash, timingSafeEqual } from "node:crypto";
import type { Hono } from "hono";
import { ApiError } from "../../api/errors.ts";
import { clientAddress } from "../../api/middleware/rate-limit.ts";
import type { DashContext, DashEnv } from "../context.ts";
import { endSession, keyCaller, startSession } from "../session.ts";
import { DOCTYPE, HeadBasics } from "../layout.tsx";

const digest = (s: string) => createHash("sha256").update(s).digest();

/** The sign-in page and its form: before any session, so the session check comes after these routes. */
export function mountSignIn(dash: Hono<DashEnv>) {
  dash.get("/sign-in", (c) => c.html(signInPage(c.var.runtime.config.SERVICE_NAME)));
  dash.post("/sign-in", signIn);
}

/** Signing out: an action of a session, so after the session check. */
export function mountSignOut(dash: Hono<DashEnv>) {
  dash.post("/sign-out", signOut);
}

async function signIn(c: DashContext) {
  // A failed sign-in spends the address's failed-authentication budget, as a wrong API key does; an
  // address that has spent it is refused before the secret is checked.
  const address = clientAddress(c);
  const failures = c.var.runtime.addressLimits.failedAuth;
  const refused = (err: unknown) => {
    if (!(err instanceof ApiError)) throw err;
    return c.html(signInPage(c.var.runtime.config.SERVICE_NAME, err.message), 429, err.headers);
  };
  if (address) {
    try {
      failures.check(address);
    } catch (err) {
      return refused(err);
    }
  }
  const body = await c.req.parseBody();
  const secret = typeof body.secret === "string" ? body.secret.trim() : "";
  const name = c.var.runtime.config.SERVICE_NAME;
  if (secret && timingSafeEqual(digest(secret), digest(c.var.deps.adminToken))) {
    await startSession(c, c.var.deps.secret, c.var.runtime.db, "operator");
    return c.redirect("/dashboard/operator", 303);
  }
  const caller = secret ? await keyCaller(c.var.runtime.db, secret) : undefined;
  if (!caller) {
    if (address) failures.take(address);
    return c.html(signInPage(name, "That is neither a current API key nor the admin token."), 401);
  }
  await startSession(c, c.var.deps.secret, c.var.runtime.db, { keyId: caller.keyId });
  return c.redirect("/dashboard", 303);
}

async function signOut(c: DashContext) {
  await endSession(c, c.var.deps.secret, c.var.runtime.db);
  return c.redirect("/dashboard/sign-in", 303);
}

export const signInPage = (serviceName: string, error?: string) => (
  <>
    {DOCTYPE}
  <html lang="en">
    <head>
      <HeadBasics />
      <title>{`Sign in · ${serviceName} dashboard`}</title>
    </head>
    <body>
      <main id="main" class="narrow">
        <h1>{serviceName} dashboard</h1>
        <p>
          Sign in with a secret API key — <code>sk_test_…</code> for the test environment, <code>sk_live_…</code> for live —
          or with the admin token for the operator pages. <code>npm start</code> prints both.
        </p>
        {error && (
          <p class="flash flash-error" role="alert">
            {error}
          </p>
        )}
        <form method="post" action="/dashboard/sign-in">
          <div class="field">
            <label for="secret">API key or admin token</label>
            <input id="secret" name="secret" type="password" autocomplete="off" required autofocus />
          </div>
          <button type="submit">Sign in</button>
        </form>
        <p>
          <a href="/docs">API docs</a>
        </p>
      </main>
    </body>
  </html>
  </>
);
