// POST /transactions/{transactionId}/clear — the network's clearing of a test purchase, now.
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { commonErrors, invalidWhen, jsonResponse, uuid } from "../../schemas.ts";
import { clearTestPurchase } from "../../../services/test-transactions.ts";
import { PendingTransactionSchema, TransactionSchema, followUpConflict } from "./schemas.ts";
import { answer, depsOf } from "./send.ts";

export const route = createRoute({
  method: "post",
  path: "/transactions/{transactionId}/clear",
  tags: ["Transactions"],
  summary: "Clear a test purchase now",
  description: "The simulator sends the scheme's clearing message (Visa settlement, Mastercard clearing, Amex submission) now instead of at its scheduled time; the same transaction gets its clearing stage and webhook. " +
    "Clearing a cleared purchase answers it again; a voided purchase cannot clear (409).",
  request: { params: z.object({ transactionId: uuid("transactionId") }) },
  responses: {
    200: jsonResponse(TransactionSchema, "The cleared transaction."),
    202: jsonResponse(PendingTransactionSchema, "Sent; not recorded yet."),
    ...followUpConflict,
    ...commonErrors,
    400: invalidWhen(["transactionId: a transaction not made with POST /transactions/test"]),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) =>
  answer(c, await clearTestPurchase(depsOf(c), c.req.valid("param").transactionId), 200);
