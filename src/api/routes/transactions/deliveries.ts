// GET /transactions/{transactionId}/deliveries — the deliveries of the transaction's webhook events.
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { ctxOf } from "../../context.ts";
import { commonErrors, jsonResponse, listOf, pageQuery, uuid } from "../../schemas.ts";
import { listTransactionDeliveries } from "../../../services/webhooks/index.ts";
import { DeliverySchema } from "../webhook-events/list-deliveries.ts";

export const route = createRoute({
  method: "get",
  path: "/transactions/{transactionId}/deliveries",
  tags: ["Transactions"],
  summary: "List the webhook deliveries of a transaction",
  description:
    "Every delivery of the transaction's events (`transaction.auth`, `transaction.clearing`, `transaction.refund` " +
    "and their `.qualified` events) to your hooks, newest first, each with its attempts and next retry.",
  request: { params: z.object({ transactionId: uuid("transactionId") }), query: pageQuery },
  responses: {
    200: jsonResponse(listOf(DeliverySchema, "TransactionDeliveryList"), "A page of deliveries, newest first."),
    ...commonErrors,
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { limit = 100, start } = c.req.valid("query");
  const ctx = ctxOf(c.var.runtime, c.var.caller);
  return c.json(await listTransactionDeliveries(ctx, c.req.valid("param").transactionId, { limit, start }), 200);
};
