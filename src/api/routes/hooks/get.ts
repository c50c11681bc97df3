// GET /hooks/{hookId} — one hook, without its signing secret (GET /hooks/{hookId}/secret has it).
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { ctxOf } from "../../context.ts";
import { commonErrors, jsonResponse, uuid } from "../../schemas.ts";
import { getHook } from "../../../services/webhooks/index.ts";
import { HookSchema } from "./schemas.ts";

export const route = createRoute({
  method: "get",
  path: "/hooks/{hookId}",
  tags: ["Hooks"],
  summary: "Get a hook",
  description: "The hook without its signing secret: `GET /hooks/{hookId}/secret` returns that.",
  request: { params: z.object({ hookId: uuid("hookId") }) },
  responses: { 200: jsonResponse(HookSchema, "The hook."), ...commonErrors },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) =>
  c.json(await getHook(ctxOf(c.var.runtime, c.var.caller), c.req.valid("param").hookId), 200);
