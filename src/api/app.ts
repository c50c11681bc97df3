// The Hono application: conventions shared by every route (request ids, errors, auth, OpenAPI).
import { swaggerUI } from "@hono/swagger-ui";
import { HTTPException } from "hono/http-exception";
import type { Services } from "./context.ts";
import { ApiError, type ErrorBody } from "./errors.ts";
import { router } from "./router.ts";
import { SUPPORTED_VERSIONS, adminAuth, insightsAuth, keyAuth } from "./middleware/auth.ts";
import { randomBase62 } from "../store/ids.ts";
import { mountAdmin } from "./routes/admin/index.ts";
import { mountV1 } from "./routes/index.ts";
import { guardInput, limitBody } from "./middleware/input.ts";

const MID_INSIGHTS_PATH = /^\/v1\/programs\/[^/]+\/mid-insights(\/.*)?$/;

const routePattern = (path: string) =>
  new RegExp(`^${path.split("/").map((seg) => (seg.startsWith(":") ? "[^/]+" : seg.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))).join("/")}$`);

const methodNotAllowed = (method: string, path: string, allowed: string[]) =>
  new ApiError("method_not_allowed", `${method} is not allowed on ${path}; use ${allowed.join(", ")}.`, { Allow: allowed.join(", ") });

export function createApp(services: Services, options: { adminToken: string }) {
  const app = router();

  app.use("*", async (c, next) => {
    const requestId = `req_${randomBase62(16)}`;
    c.set("requestId", requestId);
    c.set("services", services);
    c.header("Request-Id", requestId);
    await next();
  });
  app.use("*", limitBody);
  // A method the path does not answer is 405 before routing could take it to a parameterised path.
  let allowedMethods: (path: string) => string[] = () => [];
  app.use("*", async (c, next) => {
    const allowed = allowedMethods(c.req.path);
    if (allowed.length > 0 && !allowed.includes(c.req.method)) throw methodNotAllowed(c.req.method, c.req.path, allowed);
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
    const requestId = c.get("requestId") ?? "unknown";
    const body: ErrorBody = { error: { code: "route_not_found", message: `No route ${c.req.method} ${c.req.path}.`, requestId } };
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
  app.get("/docs", swaggerUI({ url: "/v1/openapi.json" }));

  app.use("/v1/*", async (c, next) => {
    if (c.req.path === "/v1/openapi.json") return next();
    return MID_INSIGHTS_PATH.test(c.req.path) ? insightsAuth(c, next) : keyAuth(c, next);
  });
  app.use("/admin/*", adminAuth(options.adminToken));

  app.use("/v1/*", guardInput);
  app.use("/admin/*", guardInput);

  mountV1(app);
  mountAdmin(app);

  // The methods each route path answers, for 405 and its Allow header on the others (HEAD with GET).
  // A path is matched by its most specific route paths (fewest parameters): /transactions/test is not
  // /transactions/{transactionId}.
  const routes = new Map<string, { pattern: RegExp; params: number; methods: Set<string> }>();
  for (const { method, path } of app.routes) {
    if (method === "ALL" || path.includes("*")) continue;
    const entry = routes.get(path) ?? { pattern: routePattern(path), params: (path.match(/:/g) ?? []).length, methods: new Set<string>() };
    entry.methods.add(method);
    if (method === "GET") entry.methods.add("HEAD");
    routes.set(path, entry);
  }
  allowedMethods = (path: string): string[] => {
    const matching = [...routes.values()].filter((route) => route.pattern.test(path));
    const fewest = Math.min(...matching.map((route) => route.params));
    return [...new Set(matching.filter((route) => route.params === fewest).flatMap((route) => [...route.methods]))];
  };
  return app;
}
