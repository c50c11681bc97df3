// GET /transactions/{transactionId}
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { ctxOf } from "../../context.ts";
import { commonErrors, jsonResponse, uuid } from "../../schemas.ts";
import { getTransaction } from "../../../services/transactions/index.ts";
import { TransactionSchema } from "./schemas.ts";

export const route = createRoute({
  method: "get",
  path: "/transactions/{transactionId}",
  tags: ["Transactions"],
  summary: "Get a transaction with its offer result",
  request: { params: z.object({ transactionId: uuid("transactionId") }) },
  responses: { 200: jsonResponse(TransactionSchema, "The transaction."), ...commonErrors },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) =>
  c.json(await getTransaction(ctxOf(c.var.runtime, c.var.caller), c.req.valid("param").transactionId), 200);
