// GET /programs — the caller's programs in the key's environment, newest first.
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { ctxOf } from "../../context.ts";
import { commonErrors, jsonResponse, listOf, pageQuery } from "../../schemas.ts";
import { listPrograms } from "../../../services/catalog/index.ts";
import { ProgramSchema } from "./schemas.ts";

export const route = createRoute({
  method: "get",
  path: "/programs",
  tags: ["Programs"],
  summary: "List programs",
  request: { query: pageQuery },
  responses: { 200: jsonResponse(listOf(ProgramSchema, "ProgramList"), "A page of programs."), ...commonErrors },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { limit = 100, start } = c.req.valid("query");
  return c.json(await listPrograms(ctxOf(c.var.runtime, c.var.caller), { limit, start }), 200);
};
