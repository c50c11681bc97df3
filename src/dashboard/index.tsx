// The dashboard at /dashboard: server-rendered pages over the API, served by the api role. Every read
// and action is an in-process call of the API's own routes as the signed-in caller.
import { createHash, timingSafeEqual } from "node:crypto";
import { Hono } from "hono";
import { csrf } from "hono/csrf";
import type { AppEnv } from "../api/context.ts";
import { ApiError } from "../api/errors.ts";
import { clientAddress } from "../api/middleware/rate-limit.ts";
import { PageError, type DashboardDeps, type DashEnv } from "./context.ts";
import { endSession, keyCaller, readSession, sessionSecret, startSession, takeFlash } from "./session.ts";
import { favicon, mountAssets } from "./assets.ts";
import { requestIsHttps } from "../api/middleware/security-headers.ts";
import { signInPage } from "./pages/sign-in.tsx";
import { mountOverview } from "./pages/overview.tsx";
import { mountTransactions } from "./pages/transactions/routes.tsx";
import { mountCards } from "./pages/cards.tsx";
import { mountWebhooks } from "./pages/webhooks.tsx";
import { mountEvents } from "./pages/events.tsx";
import { mountRequests } from "./pages/requests.tsx";
import { mountOffers } from "./pages/offers/routes.tsx";
import { mountBrands } from "./pages/brands.tsx";
import { mountPrograms } from "./pages/programs.tsx";
import { mountLocations } from "./pages/locations.tsx";
import { mountMidInsights } from "./pages/mid-insights.tsx";
import { mountOperator } from "./pages/operator.tsx";
import { mountMissingTransactionRequests } from "./pages/missing-transaction-requests.tsx";
import { mountSandboxes } from "./pages/sandboxes.tsx";
import { mountMail } from "./pages/mail.tsx";
import { leaveLostSandbox, mountEnvironment } from "./environment.ts";
import { DOCTYPE, HeadBasics, Layout } from "./layout.tsx";

/** Same-origin pages, scripts and styles only: nothing the browser loads comes from elsewhere. */
const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

const digest = (s: string) => createHash("sha256").update(s).digest();

export function mountDashboard(app: Hono<AppEnv>, options: Omit<DashboardDeps, "secret">) {
  const deps: DashboardDeps = { ...options, secret: sessionSecret(options.adminToken) };
  const dash = new Hono<DashEnv>();
  // The page's own origin; behind a TLS proxy (TRUST_PROXY) the browser's is https while the proxied request is http.
  const refuseCrossSite = csrf({
    origin: (origin, c) => {
      const own = new URL(c.req.url);
      if (requestIsHttps(c)) own.protocol = "https:";
      return origin === own.origin || origin === new URL(c.req.url).origin;
    },
  });

  dash.use("*", async (c, next) => {
    c.set("deps", deps);
    c.header("Content-Security-Policy", CSP);
    c.header("X-Content-Type-Options", "nosniff");
    c.header("Referrer-Policy", "same-origin");
    c.header("Cache-Control", "no-store");
    // A form posted from another site is refused before anything else runs (Origin / Sec-Fetch-Site).
    try {
      await refuseCrossSite(c, async () => {});
    } catch {
      return c.text("Cross-site form posts are refused.", 403);
    }
    await next();
  });

  mountAssets(dash);

  dash.get("/sign-in", (c) => c.html(signInPage(c.var.services.config.SERVICE_NAME)));
  dash.post("/sign-in", async (c) => {
    // A failed sign-in spends the address's failed-authentication budget, as a wrong API key does; an
    // address that has spent it is refused before the secret is checked.
    const address = clientAddress(c);
    const failures = c.var.services.addressLimits.failedAuth;
    const refused = (err: unknown) => {
      if (!(err instanceof ApiError)) throw err;
      return c.html(signInPage(c.var.services.config.SERVICE_NAME, err.message), 429, err.headers);
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
    const name = c.var.services.config.SERVICE_NAME;
    if (secret && timingSafeEqual(digest(secret), digest(options.adminToken))) {
      await startSession(c, deps.secret, c.var.services.db, "operator");
      return c.redirect("/dashboard/operator", 303);
    }
    const caller = secret ? await keyCaller(c.var.services.db, secret) : undefined;
    if (!caller) {
      if (address) failures.take(address);
      return c.html(signInPage(name, "That is neither a current API key nor the admin token."), 401);
    }
    await startSession(c, deps.secret, c.var.services.db, { keyId: caller.keyId });
    return c.redirect("/dashboard", 303);
  });

  // Everything below needs a session; without one a page leads to sign-in and an action is refused.
  dash.use("*", async (c, next) => {
    const session = await readSession(c, deps.secret, c.var.services.db);
    if (!session) {
      if (c.req.method === "GET" && !c.req.path.endsWith("/stream")) return c.redirect("/dashboard/sign-in", 303);
      return c.text("Sign in first.", 401);
    }
    c.set("session", session);
    if (session.kind === "key" && session.lostSandbox) return leaveLostSandbox(c, session);
    const flash = await takeFlash(c, deps.secret);
    if (flash) c.set("flash", flash);
    const operatorPage = c.req.path.startsWith("/dashboard/operator");
    if (operatorPage !== (session.kind === "operator")) {
      return c.redirect(session.kind === "operator" ? "/dashboard/operator" : "/dashboard", 303);
    }
    await next();
  });

  dash.post("/sign-out", async (c) => {
    await endSession(c, deps.secret, c.var.services.db);
    return c.redirect("/dashboard/sign-in", 303);
  });

  mountEnvironment(dash);
  mountOverview(dash);
  mountPrograms(dash);
  mountTransactions(dash);
  mountCards(dash);
  mountWebhooks(dash);
  mountEvents(dash);
  mountRequests(dash);
  mountOffers(dash);
  mountBrands(dash);
  mountLocations(dash);
  mountMidInsights(dash);
  mountMail(dash);
  mountMissingTransactionRequests(dash);
  mountSandboxes(dash);
  mountOperator(dash);

  dash.onError((err, c) => {
    if (err instanceof PageError && c.var.session) {
      return c.html(<Layout c={c} title="Not available" error={`${err.error.code}: ${err.error.message}`} />, err.status as 400);
    }
    c.var.services.log.error({ err, path: c.req.path }, "dashboard error");
    return c.text("Something went wrong on our side.", 500);
  });

  app.route("/dashboard", dash);
  app.get("/favicon.ico", () => favicon());
  app.get("/", (c) => {
    c.header("Content-Security-Policy", CSP);
    return c.html(homePage(c.var.services.config.SERVICE_NAME));
  });
}

/** The front door: where to go from `http://localhost:3000/`. */
const homePage = (name: string) => (
  <>
    {DOCTYPE}
  <html lang="en">
    <head>
      <HeadBasics />
      <title>{name}</title>
    </head>
    <body>
      <main id="main" class="narrow">
        <h1>{name}</h1>
        <p>A card-linking service and the Visa, Mastercard and Amex networks behind it, simulated.</p>
        <ul class="doors">
          <li>
            <a href="/dashboard">Dashboard</a> — sign in with the test key <code>npm start</code> printed, and follow a
            transaction from purchase to delivered webhook.
          </li>
          <li>
            <a href="/docs">API docs</a> — every route of <code>/v1</code>, with its rules and examples (
            <a href="/v1/openapi.json">OpenAPI 3.1</a>).
          </li>
        </ul>
      </main>
    </body>
  </html>
  </>
);
