// The Hono application: conventions shared by every route (request ids, errors, auth, OpenAPI).
import { HTTPException } from "hono/http-exception";
import type { MiddlewareHandler } from "hono";
import type { Services } from "../app/services.ts";
import { ApiError, fromDomainError, RETRY_AFTER_SECONDS, unavailable, type ErrorBody } from "./errors.ts";
import { DomainError } from "../domain/errors.ts";
import { router } from "./router.ts";
import { SUPPORTED_VERSIONS, adminAuth, inProcessApi, insightsAuth, keyAuth } from "./middleware/auth.ts";
import { randomBase62 } from "../services/ids.ts";
import { mountAdmin } from "./routes/admin/index.ts";
import { mountV1 } from "./routes/index.ts";
import { registerWebhooks } from "./webhook-events.ts";
import { mountDocs } from "./docs.ts";
import { mountDashboard } from "../dashboard/index.tsx";
import { IDEMPOTENCY_HEADER, idempotency } from "./middleware/idempotency.ts";
import { guardInput, limitBody } from "./middleware/input.ts";
import { strictTransport } from "./middleware/security-headers.ts";
import { requestMetrics } from "./middleware/metrics.ts";
import { testPurchaseCap } from "./middleware/concurrency.ts";

const MID_INSIGHTS_PATH = /^\/v1\/programs\/[^/]+\/mid-insights(\/.*)?$/;

const routePattern = (path: string) =>
  new RegExp(`^${path.split("/").map((seg) => (seg.startsWith(":") ? "[^/]+" : seg.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))).join("/")}$`);

/**
 * zod's int() is a safe integer: a whole number beyond ±(2^53 - 1) is refused. Every integer schema of the
 * document without its own bound gets that one, so the document accepts no integer the server refuses.
 */
function boundIntegers(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) boundIntegers(item);
    return;
  }
  if (node === null || typeof node !== "object") return;
  const schema = node as Record<string, unknown>;
  const type = schema.type;
  if (type === "integer" || (Array.isArray(type) && type.includes("integer"))) {
    if (schema.minimum === undefined && schema.exclusiveMinimum === undefined) schema.minimum = Number.MIN_SAFE_INTEGER;
    if (schema.maximum === undefined && schema.exclusiveMaximum === undefined) schema.maximum = Number.MAX_SAFE_INTEGER;
  }
  for (const value of Object.values(schema)) boundIntegers(value);
}

/** Whether a request carries a body by its headers (a length above 0, or chunked). */
const hasBody = (request: Request) => {
  const length = request.headers.get("content-length");
  return (length !== null && length.trim() !== "0") || request.headers.has("transfer-encoding");
};

const methodNotAllowed = (method: string, path: string, allowed: string[]) =>
  new ApiError("method_not_allowed", `${method} is not allowed on ${path}; use ${allowed.join(", ")}.`, { Allow: allowed.join(", ") });

export function createApp(services: Services, options: { adminToken: string }) {
  const app = router();

  app.use("*", requestMetrics(services.metrics));
  app.use("*", async (c, next) => {
    const requestId = `req_${randomBase62(16)}`;
    c.set("requestId", requestId);
    c.set("services", services);
    c.header("Request-Id", requestId);
    await next();
  });
  app.use("*", strictTransport);
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
    else if (err instanceof DomainError) error = fromDomainError(err);
    else if (services.health.report(err)) {
      // A dependency is down: the request made nothing (state is written before anything is published)
      // and can be retried once it is back.
      services.log.debug({ err, requestId, path: c.req.path }, "dependency unavailable");
      error = unavailable();
    } else if (err instanceof HTTPException && err.status === 415 && !hasBody(c.req.raw)) {
      // A route that takes a JSON body, sent none under another Content-Type: the body is missing (400),
      // as it is without a Content-Type; 415 is for a body that is there in another media type.
      error = new ApiError("invalid_request", "body: required, a JSON object sent with Content-Type: application/json");
    } else if (err instanceof HTTPException && err.status < 500) {
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
  registerWebhooks(app);
  app.openAPIRegistry.registerComponent("parameters", "IdempotencyKey", {
    name: IDEMPOTENCY_HEADER,
    in: "header",
    required: false,
    description:
      "Makes a retry safe: the same key with the same request (method, path, body) answers the first answer again, " +
      "with `Idempotent-Replayed: true`; the same key with another request is 422 `idempotency_key_reused` naming the key; " +
      "409 while the first request with the key is still running. A request that failed (5xx, 429) made nothing and frees " +
      "its key. Keys are kept per account and environment for 24 hours of service time. 1-255 visible ASCII characters.",
    schema: { type: "string", minLength: 1, maxLength: 255, pattern: "^[!-~]{1,255}$", example: "5f1c1c2e-8f7b-4a57-9c0e-2f4b6f1f9a10" },
  });
  const openApiConfig = {
    openapi: "3.1.0" as const,
    info: {
      title: `${services.config.SERVICE_NAME} card-linking API`,
      version: "1.0.0",
      description:
        "Card-linked offers, MID insights, missing transaction requests and locations over simulated Visa, " +
        "Mastercard and Amex networks. Errors are `{error: {code, message, requestId}}`; lists are " +
        "`{items, count, last}` with `limit` (1-100, default 100) and the `start` cursor taken from `last`. " +
        "No string may contain U+0000 (NUL): a request with one is 400 naming the field. Rules a schema cannot " +
        "state (one field against another, or against stored state) are listed in each operation's description; " +
        "breaking one is 400 naming the field and the rule.",
    },
    servers: [{ url: "/" }],
    security: [{ ServiceKey: [] }],
  };
  // Generated from the routes' schemas; every POST of /v1 accepts the Idempotency-Key header (one middleware
  // serves them all), so the document names it on each of them here rather than in every route file.
  app.get("/v1/openapi.json", (c) => {
    const doc = app.getOpenAPI31Document(openApiConfig);
    // Answers every operation can give whatever its route: 503 while a dependency is down, and on a POST
    // 422 for an Idempotency-Key reused with another request (same error body as the route's 400).
    const errorAnswer = (op: { responses?: Record<string, unknown> }, description: string) => {
      const invalidAnswer = op.responses?.["400"] as { content?: unknown } | undefined;
      return { description, ...(invalidAnswer?.content ? { content: invalidAnswer.content } : {}) };
    };
    for (const [path, item] of Object.entries(doc.paths ?? {})) {
      if (!path.startsWith("/v1/")) continue;
      for (const op of [item.get, item.post, item.patch, item.put, item.delete]) {
        if (op?.responses && !op.responses["503"]) {
          op.responses["503"] = errorAnswer(op, "A dependency (PostgreSQL, the bus) is unavailable; nothing was changed. Retry after Retry-After seconds.");
        }
      }
      if (!item.post) continue;
      item.post.parameters = [...(item.post.parameters ?? []), { $ref: "#/components/parameters/IdempotencyKey" }];
      if (item.post.responses && !item.post.responses["422"]) {
        item.post.responses["422"] = errorAnswer(item.post, "idempotency_key_reused: the Idempotency-Key was used with a different request; the message names it.");
      }
    }
    boundIntegers(doc);
    return c.json(doc);
  });
  mountDocs(app);

  // While PostgreSQL is known to be down, answer 503 at once instead of queueing behind a pool that is
  // reconnecting; the health watch probes it with backoff and lets requests through when it is back.
  const whileDatabaseUp: MiddlewareHandler = async (c, next) => {
    if (!services.health.postgres.up && c.req.path !== "/v1/openapi.json") throw unavailable();
    return next();
  };
  app.use("/v1/*", whileDatabaseUp);
  app.use("/admin/*", whileDatabaseUp);
  app.use("/v1/*", async (c, next) => {
    if (c.req.path === "/v1/openapi.json") return next();
    return MID_INSIGHTS_PATH.test(c.req.path) ? insightsAuth(c, next) : keyAuth(c, next);
  });
  app.use("/v1/*", idempotency);
  app.use("/v1/transactions/*", testPurchaseCap(services.config.TEST_PURCHASE_CONCURRENCY));
  app.use("/admin/*", adminAuth(options.adminToken));

  app.use("/v1/*", guardInput);
  app.use("/admin/*", guardInput);

  mountV1(app);
  mountAdmin(app);
  mountDashboard(app, { adminToken: options.adminToken, api: inProcessApi(app, services.config.SERVICE_NAME) });

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
