// The dashboard at /dashboard: server-rendered pages over the API, served by the api role. Every read
// and action is an in-process call of the API's own routes as the signed-in caller.
import { Hono, type ErrorHandler, type MiddlewareHandler, type Next } from "hono";
import { csrf } from "hono/csrf";
import type { AppEnv } from "../api/context.ts";
import { PageError, type DashboardDeps, type DashContext, type DashEnv } from "./context.ts";
import { readSession, sessionSecret, takeFlash } from "./session.ts";
import { favicon, mountAssets } from "./assets.ts";
import { requestIsHttps } from "../api/middleware/security-headers.ts";
import { mountSignIn, mountSignOut } from "./pages/sign-in.tsx";
import { homePage } from "./pages/home.tsx";
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
import { Layout } from "./layout.tsx";

/** Same-origin pages, scripts and styles only: nothing the browser loads comes from elsewhere. */
const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

export function mountDashboard(app: Hono<AppEnv>, options: Omit<DashboardDeps, "secret">) {
  const deps: DashboardDeps = { ...options, secret: sessionSecret(options.adminToken) };
  const dash = new Hono<DashEnv>();
  dash.use("*", guard(deps));
  mountAssets(dash);
  mountSignIn(dash);
  // Everything below needs a session; without one a page leads to sign-in and an action is refused.
  dash.use("*", requireSession);
  mountSignOut(dash);
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
  dash.onError(showError);

  app.route("/dashboard", dash);
  app.get("/favicon.ico", () => favicon());
  app.get("/", (c) => {
    c.header("Content-Security-Policy", CSP);
    return c.html(homePage(c.var.runtime.config.SERVICE_NAME));
  });
}

/** What every answer of the dashboard carries (its dependencies, its security headers), and a form posted from another site refused. */
function guard(deps: DashboardDeps): MiddlewareHandler<DashEnv> {
  // The page's own origin; behind a TLS proxy (TRUST_PROXY) the browser's is https while the proxied request is http.
  const refuseCrossSite = csrf({
    origin: (origin, c) => {
      const own = new URL(c.req.url);
      if (requestIsHttps(c)) own.protocol = "https:";
      return origin === own.origin || origin === new URL(c.req.url).origin;
    },
  });
  return async (c, next) => {
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
  };
}

/** The session a page or an action runs in: a key's pages for a key, the operator's for the admin token. */
async function requireSession(c: DashContext, next: Next) {
  const session = await readSession(c, c.var.deps.secret, c.var.runtime.db);
  if (!session) {
    if (c.req.method === "GET" && !c.req.path.endsWith("/stream")) return c.redirect("/dashboard/sign-in", 303);
    return c.text("Sign in first.", 401);
  }
  c.set("session", session);
  if (session.kind === "key" && session.lostSandbox) return leaveLostSandbox(c, session);
  const flash = await takeFlash(c, c.var.deps.secret);
  if (flash) c.set("flash", flash);
  const operatorPage = c.req.path.startsWith("/dashboard/operator");
  if (operatorPage !== (session.kind === "operator")) {
    return c.redirect(session.kind === "operator" ? "/dashboard/operator" : "/dashboard", 303);
  }
  await next();
}

/** A read a page could not do without is the page, with the API's status and message; anything else is ours. */
const showError: ErrorHandler<DashEnv> = (err, c) => {
  if (err instanceof PageError && c.var.session) {
    return c.html(<Layout c={c} title="Not available" error={`${err.error.code}: ${err.error.message}`} />, err.status as 400);
  }
  c.var.runtime.log.error({ err, path: c.req.path }, "dashboard error");
  return c.text("Something went wrong on our side.", 500);
};
