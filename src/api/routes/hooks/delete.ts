// DELETE /hooks/{hookId} — stop deliveries to a hook.
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { ctxOf } from "../../context.ts";
import { commonErrors, uuid } from "../../schemas.ts";
import { deleteHook } from "../../../services/webhooks/index.ts";

export const route = createRoute({
  method: "delete",
  path: "/hooks/{hookId}",
  tags: ["Hooks"],
  summary: "Delete a hook",
  request: { params: z.object({ hookId: uuid("hookId") }) },
  responses: { 204: { description: "Deleted." }, ...commonErrors },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  await deleteHook(ctxOf(c.var.runtime, c.var.caller), c.req.valid("param").hookId);
  return c.body(null, 204);
};
