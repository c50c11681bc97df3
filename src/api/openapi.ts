// The OpenAPI document at /v1/openapi.json: generated from the routes' schemas, with the components every
// route shares (keys, the version header, Idempotency-Key, the webhook events) and the answers every
// operation can give whatever its route.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "./context.ts";
import { SUPPORTED_VERSIONS } from "./middleware/auth.ts";
import { IDEMPOTENCY_HEADER } from "./middleware/idempotency.ts";
import { registerWebhooks } from "./webhook-payloads.ts";

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

export function mountOpenApi(app: OpenAPIHono<AppEnv>, serviceName: string): void {
  app.openAPIRegistry.registerComponent("securitySchemes", "ServiceKey", {
    type: "apiKey",
    in: "header",
    name: `${serviceName}-Key`,
    description: "Your secret key, sk_test_… or sk_live_…; the key's environment scopes what you read and write.",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "LiveBearer", {
    type: "http",
    scheme: "bearer",
    description: "The live secret key (sk_live_…), for MID insights.",
  });
  app.openAPIRegistry.registerComponent("parameters", "Version", {
    name: `${serviceName}-Version`,
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
      title: `${serviceName} card-linking API`,
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
}
