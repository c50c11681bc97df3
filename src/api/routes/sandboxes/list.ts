// GET /sandboxes — the account's sandboxes, newest first (their keys were shown once, at creation).
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { commonErrors, jsonResponse, listOf, pageQuery } from "../../schemas.ts";
import { listSandboxes } from "../../../services/accounts/index.ts";
import { owner, SandboxSchema, forbiddenToSandboxes } from "./schemas.ts";

export const route = createRoute({
  method: "get",
  path: "/sandboxes",
  tags: ["Sandboxes"],
  summary: "List sandboxes",
  request: { query: pageQuery },
  responses: { 200: jsonResponse(listOf(SandboxSchema, "SandboxList"), "A page of the account's sandboxes."), ...commonErrors, ...forbiddenToSandboxes },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { limit = 100, start } = c.req.valid("query");
  return c.json(await listSandboxes(c.var.runtime.db, owner(c.var.caller), { limit, start }, c.var.runtime.clock), 200);
};
