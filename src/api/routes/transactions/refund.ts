// POST /transactions/{transactionId}/refund — a refund of a test purchase, a negative transaction.
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { commonErrors, invalidWhen, jsonResponse, optionalJsonBody, uuid } from "../../schemas.ts";
import { refundTestPurchase } from "../../../services/simulator-control/index.ts";
import { getTransaction } from "../../../services/transactions/index.ts";
import { ownedBy } from "../../middleware/owned.ts";
import { PendingTransactionSchema, TransactionSchema, followUpConflict } from "./schemas.ts";
import { answer, depsOf, purchaseAmountSchema } from "./send.ts";

const body = z
  .strictObject({
    amount: purchaseAmountSchema.optional().openapi({ description: "How much to refund, in whole cents; what is left of the purchase when absent." }),
  })
  .openapi("TestRefund", { example: { amount: 10 } });

export const route = createRoute({
  method: "post",
  path: "/transactions/{transactionId}/refund",
  tags: ["Transactions"],
  summary: "Refund a test purchase",
  description: "The simulator sends the scheme's refund (Visa refund, Mastercard refund, Amex credit) as a negative transaction; the qualifier links it to the purchase and reverses its award in proportion. " +
    "Several partial refunds may follow one purchase up to its amount; a refund of more than remains, of a fully refunded or of a voided purchase is 409.",
  middleware: [ownedBy("transactionId", getTransaction)] as const,
  request: {
    params: z.object({ transactionId: uuid("transactionId") }),
    body: optionalJsonBody(body),
  },
  responses: {
    201: jsonResponse(TransactionSchema, "The refund transaction."),
    202: jsonResponse(PendingTransactionSchema, "Sent; not recorded yet."),
    ...followUpConflict,
    ...commonErrors,
    400: invalidWhen(["transactionId: a transaction not made with POST /transactions/test", "amount: more than 2 decimal places (the networks carry whole cents)"]),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) =>
  answer(c, await refundTestPurchase(depsOf(c), c.req.valid("param").transactionId, c.req.valid("json")?.amount), 201);
