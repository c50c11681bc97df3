// POST /transactions/{transactionId}/void — the network's reversal of a test purchase before it clears.
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { commonErrors, invalidWhen, jsonResponse, uuid } from "../../schemas.ts";
import { voidTestPurchase } from "../../../services/simulator-control/index.ts";
import { PendingTransactionSchema, TransactionSchema, followUpConflict } from "./schemas.ts";
import { answer, depsOf } from "./send.ts";

export const route = createRoute({
  method: "post",
  path: "/transactions/{transactionId}/void",
  tags: ["Transactions"],
  summary: "Void a test purchase",
  description:
    "The simulator sends the scheme's reversal (Visa and Amex void, Mastercard reversal) of an authorised purchase; its " +
    "scheduled clearing is cancelled and the transaction reads `voided: true`. Voiding a voided purchase answers it " +
    "again; a cleared purchase cannot be voided, refund it instead (409).",
  request: { params: z.object({ transactionId: uuid("transactionId") }) },
  responses: {
    200: jsonResponse(TransactionSchema, "The voided transaction."),
    202: jsonResponse(PendingTransactionSchema, "Sent; not recorded yet."),
    ...followUpConflict,
    ...commonErrors,
    400: invalidWhen(["transactionId: a transaction not made with POST /transactions/test"]),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) =>
  answer(c, await voidTestPurchase(depsOf(c), c.req.valid("param").transactionId), 200);
