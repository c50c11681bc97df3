// GET /hooks/{hookId}/secret — a hook's signing secret, on a route of its own (as Svix does), so the hook
// record can be read, listed and logged without spreading the key.
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { ctxOf } from "../../context.ts";
import { commonErrors, jsonResponse, uuid } from "../../schemas.ts";
import { getHookSecret } from "../../../services/webhooks/index.ts";
import { HookSecretSchema } from "./schemas.ts";

export const route = createRoute({
  method: "get",
  path: "/hooks/{hookId}/secret",
  tags: ["Hooks"],
  summary: "Get a hook's signing secret",
  description:
    "The Standard Webhooks signing secret of the hook. It is returned here and when the hook is created, never by " +
    "`GET /hooks/{hookId}` or the list.",
  request: { params: z.object({ hookId: uuid("hookId") }) },
  responses: { 200: jsonResponse(HookSecretSchema, "The hook's signing secret."), ...commonErrors },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) =>
  c.json(await getHookSecret(ctxOf(c.var.runtime, c.var.caller), c.req.valid("param").hookId), 200);
