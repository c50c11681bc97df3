// The Hono application's root: the middleware every request passes, in order, and the mounts — the error
// contract (answers.ts), the 405 table (methods.ts), health and metrics, the OpenAPI document and its docs,
// /v1, /admin, and what the caller mounts beside them (the composition root mounts the dashboard).
import type { ApiRuntime } from "./context.ts";
import type { MiddlewareHandler } from "hono";
import { unavailable } from "./errors.ts";
import { router } from "./router.ts";
import { adminAuth, insightsAuth, keyAuth } from "./middleware/auth.ts";
import { randomBase62 } from "../platform/ids.ts";
import { mountAdmin } from "./routes/admin/index.ts";
import { mountV1 } from "./routes/index.ts";
import { mountDocs } from "./docs.ts";
import { idempotency } from "./middleware/idempotency.ts";
import { guardInput, limitBody } from "./middleware/input.ts";
import { strictTransport } from "./middleware/security-headers.ts";
import { requestMetrics } from "./middleware/metrics.ts";
import { recordRequests } from "./middleware/request-log.ts";
import { admitted } from "./middleware/admission.ts";
import { answerErrors } from "./answers.ts";
import { methodTable } from "./methods.ts";
import { mountHealth } from "./health.ts";
import { mountOpenApi } from "./openapi.ts";

const MID_INSIGHTS_PATH = /^\/v1\/programs\/[^/]+\/mid-insights(\/.*)?$/;

export type Router = ReturnType<typeof router>;

/** `mount` adds what serves beside /v1 and /admin (the dashboard), before the 405 table learns the routes. */
export function createApp(services: ApiRuntime, options: { adminToken: string; mount?: (app: Router) => void }) {
  const app = router();
  const methods = methodTable();

  app.use("*", requestMetrics(services.metrics));
  app.use("*", async (c, next) => {
    const requestId = `req_${randomBase62(16)}`;
    c.set("requestId", requestId);
    c.set("runtime", services);
    c.header("Request-Id", requestId);
    await next();
  });
  app.use("*", strictTransport);
  app.use("*", limitBody);
  app.use("*", methods.middleware);
  answerErrors(app, services);

  mountHealth(app, services);
  mountOpenApi(app, services.config.SERVICE_NAME);
  mountDocs(app);

  // While PostgreSQL is known to be down, answer 503 at once instead of queueing behind a pool that is
  // reconnecting; the health watch probes it with backoff and lets requests through when it is back.
  const whileDatabaseUp: MiddlewareHandler = async (c, next) => {
    if (!services.health.postgres.up && c.req.path !== "/v1/openapi.json") throw unavailable();
    return next();
  };
  // Outside everything that may refuse a request, so the log has its answer whatever it is.
  app.use("/v1/*", recordRequests);
  app.use("/v1/*", whileDatabaseUp);
  app.use("/admin/*", whileDatabaseUp);
  app.use("/v1/*", async (c, next) => {
    if (c.req.path === "/v1/openapi.json") return next();
    return MID_INSIGHTS_PATH.test(c.req.path) ? insightsAuth(c, next) : keyAuth(c, next);
  });
  app.use("/v1/*", idempotency);
  app.use("/v1/transactions/*", admitted(services.admission));
  app.use("/admin/*", adminAuth(options.adminToken));

  app.use("/v1/*", guardInput);
  app.use("/admin/*", guardInput);

  mountV1(app);
  mountAdmin(app);
  options.mount?.(app);
  methods.learn(app.routes);
  return app;
}
