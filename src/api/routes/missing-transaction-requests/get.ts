// GET /missing-transaction-requests/{requestId}
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { ctxOf } from "../../context.ts";
import { commonErrors, jsonResponse, uuid } from "../../schemas.ts";
import { getMissingTransactionRequest } from "../../../services/missing-transactions/index.ts";
import { MissingTransactionRequestSchema } from "./schemas.ts";

export const route = createRoute({
  method: "get",
  path: "/missing-transaction-requests/{requestId}",
  tags: ["Missing transaction requests"],
  summary: "Get a missing transaction request and its current status",
  request: { params: z.object({ requestId: uuid("requestId") }) },
  responses: { 200: jsonResponse(MissingTransactionRequestSchema, "The request."), ...commonErrors },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) =>
  c.json(await getMissingTransactionRequest(ctxOf(c.var.runtime, c.var.caller), c.req.valid("param").requestId), 200);
