// POST /transactions/{transactionId}/clear — the network's clearing of a test purchase, now: the whole
// amount at once, or part of it (an authorisation may clear more than once, up to its amount).
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { commonErrors, invalidWhen, jsonResponse, optionalJsonBody, uuid } from "../../schemas.ts";
import { clearTestPurchase } from "../../../services/simulator-control/index.ts";
import { PendingTransactionSchema, TransactionSchema, followUpConflict } from "./schemas.ts";
import { answer, depsOf, purchaseAmountSchema } from "./send.ts";

const body = z
  .strictObject({
    amount: purchaseAmountSchema
      .optional()
      .openapi({ description: "How much of the authorisation to clear, in whole cents; what is left of it when absent." }),
  })
  .openapi("TestClearing", { example: { amount: 30 } });

export const route = createRoute({
  method: "post",
  path: "/transactions/{transactionId}/clear",
  tags: ["Transactions"],
  summary: "Clear a test purchase now, in whole or in part",
  description:
    "The simulator sends the scheme's clearing message (Visa settlement, Mastercard clearing, Amex submission) now instead of at its scheduled time, which it replaces. " +
    "Clearing the whole amount at once (no `amount`, or the purchase's amount) gives the same transaction its clearing stage and webhooks: 200 with the purchase. " +
    "Clearing part of it, as networks do for tips left out or split shipments, is a clearing of its own: a new transaction (`auth` false, `cleared` true, " +
    "`authTransactionId` naming the purchase, its own `transaction.clearing` webhook), qualified against the purchase's offer on its own amount, " +
    "the purchase rewarded once across its clearings: 201 with that transaction. An authorisation may be cleared again up to its amount " +
    "(Mastercard gives each clearing its own transaction sequence number); the purchase's `clearedAmount` adds them up. " +
    "Clearing a cleared purchase again without `amount` answers it again; clearing more than remains, or a voided purchase, is 409.",
  request: {
    params: z.object({ transactionId: uuid("transactionId") }),
    body: optionalJsonBody(body),
  },
  responses: {
    200: jsonResponse(TransactionSchema, "The purchase, cleared in one."),
    201: jsonResponse(TransactionSchema, "The clearing of part of the purchase: a transaction of its own."),
    202: jsonResponse(PendingTransactionSchema, "Sent; not recorded yet."),
    ...followUpConflict,
    ...commonErrors,
    400: invalidWhen(["transactionId: a transaction not made with POST /transactions/test", "amount: more than 2 decimal places (the networks carry whole cents)"]),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const sent = await clearTestPurchase(depsOf(c), c.req.valid("param").transactionId, c.req.valid("json")?.amount);
  return sent.created ? answer(c, sent, 201) : answer(c, sent, 200);
};
