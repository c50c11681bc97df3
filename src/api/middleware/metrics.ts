// Counts and times every answered request by method, route template and status (cardlink_http_… metrics),
// and notes when the request arrived, for the hops a request starts (a test purchase's command).
import type { Context, MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import type { Metrics } from "../../platform/metrics/index.ts";
import type { AppEnv } from "../context.ts";

/**
 * The route template a request reached (`/v1/cards/:cardId`): the last matched route that is an endpoint
 * rather than a middleware; `unmatched` for paths no route answers, so labels stay bounded whatever is asked.
 */
function routeOf(c: Context<AppEnv>): string {
  const routes = matchedRoutes(c);
  for (let i = routes.length - 1; i >= 0; i--) {
    const route = routes[i]!;
    if (route.method !== "ALL" && !route.path.includes("*")) return route.path;
  }
  return "unmatched";
}

export const requestMetrics =
  (metrics: Metrics): MiddlewareHandler<AppEnv> =>
  async (c, next) => {
    const receivedMs = performance.now();
    c.set("receivedMs", receivedMs);
    try {
      await next();
    } finally {
      metrics.request(c.req.method, routeOf(c), c.res.status, (performance.now() - receivedMs) / 1000);
    }
  };
