// GET /programs/{programId}/hooks — the program's hooks, newest first, without their secrets.
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { ctxOf } from "../../context.ts";
import { commonErrors, jsonResponse, listOf, pageQuery, uuid } from "../../schemas.ts";
import { listHooks } from "../../../services/webhooks/index.ts";
import { HookSchema } from "./schemas.ts";

export const route = createRoute({
  method: "get",
  path: "/programs/{programId}/hooks",
  tags: ["Hooks"],
  summary: "List a program's hooks",
  description: "Secrets are left out of lists; `GET /hooks/{hookId}/secret` returns a hook's secret.",
  request: { params: z.object({ programId: uuid("programId") }), query: pageQuery },
  responses: { 200: jsonResponse(listOf(HookSchema, "HookList"), "A page of hooks."), ...commonErrors },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { limit = 100, start } = c.req.valid("query");
  return c.json(
    await listHooks(ctxOf(c.var.runtime, c.var.caller), c.req.valid("param").programId, { limit, start }),
    200,
  );
};
