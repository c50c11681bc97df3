// GET /hooks/{hookId} — one hook with its signing secret.
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { ctxOf } from "../../context.ts";
import { commonErrors, jsonResponse, uuid } from "../../schemas.ts";
import { getHook } from "../../../services/hooks.ts";
import { HookWithSecretSchema } from "./schemas.ts";

export const route = createRoute({
  method: "get",
  path: "/hooks/{hookId}",
  tags: ["Hooks"],
  summary: "Get a hook",
  request: { params: z.object({ hookId: uuid("hookId") }) },
  responses: { 200: jsonResponse(HookWithSecretSchema, "The hook and its signing secret."), ...commonErrors },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) =>
  c.json(await getHook(ctxOf(c.var.services, c.var.caller), c.req.valid("param").hookId), 200);
