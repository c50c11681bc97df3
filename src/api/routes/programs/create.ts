// POST /programs — create a program in the key's environment.
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { ctxOf } from "../../context.ts";
import { commonErrors, jsonBody, jsonResponse } from "../../schemas.ts";
import { createProgram } from "../../../services/catalog/index.ts";
import { ProgramSchema, metadataSchema, programName } from "./schemas.ts";

const body = z.strictObject({ name: programName, metadata: metadataSchema }).openapi("ProgramCreate", {
  example: { name: "Rewards UK", metadata: { region: "uk" } },
});

export const route = createRoute({
  method: "post",
  path: "/programs",
  tags: ["Programs"],
  summary: "Create a program",
  request: { body: jsonBody(body) },
  responses: { 201: jsonResponse(ProgramSchema, "The program."), ...commonErrors },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const program = await createProgram(ctxOf(c.var.runtime, c.var.caller), c.req.valid("json"));
  return c.json(program, 201);
};
