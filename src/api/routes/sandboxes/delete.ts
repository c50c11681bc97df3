// DELETE /sandboxes/{sandboxId} — the sandbox and everything in it; its keys answer 401 at once.
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { commonErrors, uuid } from "../../schemas.ts";
import { deleteSandbox } from "../../../services/accounts/index.ts";
import { owner, forbiddenToSandboxes } from "./schemas.ts";
import { trySendCommands } from "../../../platform/network-outbox.ts";

export const route = createRoute({
  method: "delete",
  path: "/sandboxes/{sandboxId}",
  tags: ["Sandboxes"],
  summary: "Delete a sandbox",
  description: "Removes its records, hooks and pending deliveries, and the networks forget it; its keys answer 401 from the next request on.",
  request: { params: z.object({ sandboxId: uuid("sandboxId") }) },
  responses: { 204: { description: "Deleted." }, ...commonErrors, ...forbiddenToSandboxes },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { db, bus, clock } = c.var.runtime;
  const command = await deleteSandbox(db, owner(c.var.caller), c.req.valid("param").sandboxId, clock.now());
  await trySendCommands(db, bus, clock.now(), [command]);
  return c.body(null, 204);
};
