// The process's own routes: liveness, readiness (PostgreSQL and the bus, 503 with each state if one is down)
// and its Prometheus metrics.
import type { ApiRuntime } from "./context.ts";
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "./context.ts";
import { RETRY_AFTER_SECONDS } from "./errors.ts";

export function mountHealth(app: OpenAPIHono<AppEnv>, services: ApiRuntime): void {
  // Liveness: the process answers. Readiness: PostgreSQL and the bus answer too (503 with each state if not).
  app.get("/health", (c) => c.json({ status: "ok", time: services.clock.now().toISOString() }));
  app.get("/health/ready", async (c) => {
    const { ready, dependencies } = await services.health.ready();
    return c.json({ status: ready ? "ready" : "unavailable", dependencies }, ready ? 200 : 503, ready ? {} : { "Retry-After": String(RETRY_AFTER_SECONDS) });
  });

  // Prometheus metrics of this process (docs/operations.md): the API port is the api role's health port.
  app.get("/metrics", async (c) => {
    const { contentType, body } = await services.metrics.expose();
    return c.body(body, 200, { "content-type": contentType });
  });
}
