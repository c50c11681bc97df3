// GET /sandboxes/{sandboxId}
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { commonErrors, jsonResponse, uuid } from "../../schemas.ts";
import { getSandbox } from "../../../services/accounts/index.ts";
import { owner, SandboxSchema, forbiddenToSandboxes } from "./schemas.ts";

export const route = createRoute({
  method: "get",
  path: "/sandboxes/{sandboxId}",
  tags: ["Sandboxes"],
  summary: "Get a sandbox",
  request: { params: z.object({ sandboxId: uuid("sandboxId") }) },
  responses: { 200: jsonResponse(SandboxSchema, "The sandbox."), ...commonErrors, ...forbiddenToSandboxes },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) =>
  c.json(await getSandbox(c.var.runtime.db, owner(c.var.caller), c.req.valid("param").sandboxId, c.var.runtime.clock), 200);
