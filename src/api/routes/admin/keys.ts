// The operator's key management: list an account's keys, rotate the key of an environment (the old
// one answers 401 at once), revoke one key. Keys are shown once, when issued; only digests are kept.
import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { notFound } from "../../errors.ts";
import { commonErrors, jsonBody, jsonResponse, uuid } from "../../schemas.ts";
import { listKeys, revokeKey, rotateKey } from "../../../services/accounts/index.ts";
import { rememberDemoKey } from "../../../platform/config/credentials.ts";

const environment = z.enum(["test", "live"], { message: "must be test or live" });

const KeySchema = z
  .object({
    id: z.uuid(),
    environment,
    hint: z.string().openapi({ description: "The key's last four characters.", example: "7Qx2" }),
    created: z.string().openapi({ format: "date-time" }),
    revoked: z.string().nullable().openapi({ format: "date-time", description: "When the key stopped working; null while it works." }),
  })
  .openapi("ApiKey");

const accountParams = z.object({ accountId: uuid("accountId") });

const list = createRoute({
  method: "get",
  path: "/accounts/{accountId}/keys",
  tags: ["Admin"],
  summary: "List an account's keys",
  description: "Current and revoked keys, newest first. The keys themselves are never shown again: only their last four characters.",
  security: [{ AdminToken: [] }],
  request: { params: accountParams },
  responses: { 200: jsonResponse(z.object({ items: z.array(KeySchema) }).openapi("ApiKeyList"), "The keys."), ...commonErrors },
});

const rotate = createRoute({
  method: "post",
  path: "/accounts/{accountId}/keys/rotate",
  tags: ["Admin"],
  summary: "Rotate an account's key of one environment",
  description:
    "Issues a new secret key for the environment and revokes every current key of that environment in the same " +
    "transaction: from the next request on the old key answers 401 `unauthorized`, and its dashboard sessions end " +
    "(an open live feed closes within a second). The new key is shown once, here.",
  security: [{ AdminToken: [] }],
  request: { params: accountParams, body: jsonBody(z.strictObject({ environment })) },
  responses: {
    201: jsonResponse(
      KeySchema.extend({
        key: z.string().openapi({ example: "sk_test_8fJ2kQ…", description: "The new key; shown once." }),
        revokedKeys: z.array(KeySchema).openapi({ description: "The keys this rotation revoked." }),
      }).openapi("RotatedApiKey"),
      "The new key.",
    ),
    ...commonErrors,
  },
});

const revoke = createRoute({
  method: "delete",
  path: "/accounts/{accountId}/keys/{keyId}",
  tags: ["Admin"],
  summary: "Revoke one key",
  description:
    "The key answers 401 `unauthorized` from the next request on, and its dashboard sessions end (an open live feed " +
    "closes within a second). Revoking a revoked key changes nothing.",
  security: [{ AdminToken: [] }],
  request: { params: z.object({ accountId: uuid("accountId"), keyId: uuid("keyId") }) },
  responses: { 200: jsonResponse(KeySchema, "The revoked key."), ...commonErrors },
});

export function mountKeys(r: OpenAPIHono<AppEnv>) {
  r.openapi(list, async (c) => {
    const { accountId } = c.req.valid("param");
    const items = await listKeys(c.var.runtime.db, accountId);
    if (!items) throw notFound("account", accountId);
    return c.json({ items }, 200);
  });
  r.openapi(rotate, async (c) => {
    const { db, clock, config } = c.var.runtime;
    const { accountId } = c.req.valid("param");
    const { environment } = c.req.valid("json");
    const rotated = await rotateKey(db, accountId, environment, clock.now());
    if (!rotated) throw notFound("account", accountId);
    rememberDemoKey(config, accountId, environment, rotated.key);
    return c.json({ ...rotated.info, key: rotated.key, revokedKeys: rotated.revoked }, 201);
  });
  r.openapi(revoke, async (c) => {
    const { db, clock } = c.var.runtime;
    const { accountId, keyId } = c.req.valid("param");
    const key = await revokeKey(db, accountId, keyId, clock.now());
    if (!key) throw notFound("key", keyId);
    return c.json(key, 200);
  });
}
