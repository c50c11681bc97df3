// GET /programs/{programId}/transactions — the program's transactions, newest first.
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { ctxOf } from "../../context.ts";
import { commonErrors, jsonResponse, listOf, limitParam, startParam, uuid } from "../../schemas.ts";
import { listProgramTransactions } from "../../../services/transactions/index.ts";
import { TransactionSchema } from "./schemas.ts";

const query = z.object({
  limit: limitParam,
  start: startParam,
  cardId: z.uuid({ message: "must be a UUID" }).optional().openapi({ param: { name: "cardId", in: "query" } }),
  locationId: z.uuid({ message: "must be a UUID" }).optional().openapi({ param: { name: "locationId", in: "query" } }),
});

export const route = createRoute({
  method: "get",
  path: "/programs/{programId}/transactions",
  tags: ["Transactions"],
  summary: "List a program's transactions",
  request: { params: z.object({ programId: uuid("programId") }), query },
  responses: { 200: jsonResponse(listOf(TransactionSchema, "TransactionList"), "A page of transactions."), ...commonErrors },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { limit = 100, start, cardId, locationId } = c.req.valid("query");
  const page = await listProgramTransactions(
    ctxOf(c.var.runtime, c.var.caller),
    c.req.valid("param").programId,
    { ...(cardId ? { cardId } : {}), ...(locationId ? { locationId } : {}) },
    { limit, start },
  );
  return c.json(page, 200);
};
