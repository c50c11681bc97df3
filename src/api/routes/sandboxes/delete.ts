// DELETE /sandboxes/{sandboxId} — the sandbox and everything in it; its keys answer 401 at once.
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { commonErrors, uuid } from "../../schemas.ts";
import { deleteSandbox } from "../../../services/accounts/index.ts";
import { owner } from "./schemas.ts";

export const route = createRoute({
  method: "delete",
  path: "/sandboxes/{sandboxId}",
  tags: ["Sandboxes"],
  summary: "Delete a sandbox",
  description: "Removes its records, hooks and pending deliveries, and the networks forget it; its keys answer 401 from the next request on.",
  request: { params: z.object({ sandboxId: uuid("sandboxId") }) },
  responses: { 204: { description: "Deleted." }, ...commonErrors },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { sandboxId } = c.req.valid("param");
  await deleteSandbox(c.var.services.db, owner(c.var.caller), sandboxId);
  await c.var.services.simulators.forgetEnvironment(sandboxId.toLowerCase());
  return c.body(null, 204);
};
