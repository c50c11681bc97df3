// The Hono application: conventions shared by every route (request ids, errors, auth, OpenAPI).
import { HTTPException } from "hono/http-exception";
import type { Services } from "./context.ts";
import { ApiError, type ErrorBody } from "./errors.ts";
import { router } from "./router.ts";
import { SUPPORTED_VERSIONS, adminAuth, insightsAuth, keyAuth } from "./middleware/auth.ts";
import { randomBase62 } from "../store/ids.ts";
import { mountAdmin } from "./routes/admin/index.ts";
import { mountV1 } from "./routes/index.ts";
import { mountDocs } from "./docs.ts";
import { mountDashboard } from "../dashboard/index.tsx";

const MID_INSIGHTS_PATH = /^\/v1\/programs\/[^/]+\/mid-insights(\/.*)?$/;

export function createApp(services: Services, options: { adminToken: string }) {
  const app = router();

  app.use("*", async (c, next) => {
    const requestId = `req_${randomBase62(16)}`;
    c.set("requestId", requestId);
    c.set("services", services);
    c.header("Request-Id", requestId);
    await next();
  });

  app.onError((err, c) => {
    const requestId = c.get("requestId") ?? "unknown";
    let error: ApiError;
    if (err instanceof ApiError) error = err;
    else if (err instanceof HTTPException && err.status < 500) {
      error = new ApiError(err.status === 400 ? "invalid_request" : "unsupported_media_type", `body: ${err.message}`);
    } else {
      services.log.error({ err, requestId, path: c.req.path }, "unhandled error");
      error = new ApiError("internal_error", "Something went wrong on our side; the request id helps us find it.");
    }
    const body: ErrorBody = { error: { code: error.code, message: error.message, requestId } };
    return c.json(body, error.status, error.headers);
  });

  app.notFound((c) => {
    const body: ErrorBody = {
      error: {
        code: "route_not_found",
        message: `No route ${c.req.method} ${c.req.path}.`,
        requestId: c.get("requestId") ?? "unknown",
      },
    };
    return c.json(body, 404);
  });

  app.get("/health", (c) => c.json({ status: "ok", time: services.clock.now().toISOString() }));

  app.openAPIRegistry.registerComponent("securitySchemes", "ServiceKey", {
    type: "apiKey",
    in: "header",
    name: `${services.config.SERVICE_NAME}-Key`,
    description: "Your secret key, sk_test_… or sk_live_…; the key's environment scopes what you read and write.",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "LiveBearer", {
    type: "http",
    scheme: "bearer",
    description: "The live secret key (sk_live_…), for MID insights.",
  });
  app.openAPIRegistry.registerComponent("parameters", "Version", {
    name: `${services.config.SERVICE_NAME}-Version`,
    in: "header",
    required: true,
    description: `The API version, YYYY-MM-DD (MID insights). Supported: ${SUPPORTED_VERSIONS.join(", ")}; a missing or unknown version is 400 naming them.`,
    schema: { type: "string", enum: [...SUPPORTED_VERSIONS], example: SUPPORTED_VERSIONS[0] },
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "AdminToken", {
    type: "http",
    scheme: "bearer",
    description: "The operator's ADMIN_TOKEN.",
  });
  app.doc31("/v1/openapi.json", {
    openapi: "3.1.0",
    info: {
      title: `${services.config.SERVICE_NAME} card-linking API`,
      version: "1.0.0",
      description:
        "Card-linked offers, MID insights, missing transaction requests and locations over simulated Visa, " +
        "Mastercard and Amex networks. Errors are `{error: {code, message, requestId}}`; lists are " +
        "`{items, count, last}` with `limit` (1-100, default 100) and the `start` cursor taken from `last`.",
    },
    servers: [{ url: "/" }],
    security: [{ ServiceKey: [] }],
  });
  mountDocs(app);

  app.use("/v1/*", async (c, next) => {
    if (c.req.path === "/v1/openapi.json") return next();
    return MID_INSIGHTS_PATH.test(c.req.path) ? insightsAuth(c, next) : keyAuth(c, next);
  });
  app.use("/admin/*", adminAuth(options.adminToken));

  mountV1(app);
  mountAdmin(app);
  mountDashboard(app, { adminToken: options.adminToken, fetch: (request, env) => app.fetch(request, env) });
  return app;
}
