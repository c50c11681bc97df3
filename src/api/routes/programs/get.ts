// GET /programs/{programId}
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { ctxOf } from "../../context.ts";
import { commonErrors, jsonResponse, uuid } from "../../schemas.ts";
import { getProgram } from "../../../services/catalog/index.ts";
import { ProgramSchema } from "./schemas.ts";

export const route = createRoute({
  method: "get",
  path: "/programs/{programId}",
  tags: ["Programs"],
  summary: "Get a program",
  request: { params: z.object({ programId: uuid("programId") }) },
  responses: { 200: jsonResponse(ProgramSchema, "The program."), ...commonErrors },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) =>
  c.json(await getProgram(ctxOf(c.var.runtime, c.var.caller), c.req.valid("param").programId), 200);
