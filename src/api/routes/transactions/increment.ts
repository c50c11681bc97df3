// POST /transactions/{transactionId}/increment — an incremental authorisation of a test purchase (a hotel
// stay extended, a car hire kept longer): more authorised on the same purchase, before it clears.
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { commonErrors, invalidWhen, jsonBody, jsonResponse, uuid } from "../../schemas.ts";
import { incrementTestPurchase } from "../../../services/simulator-control/index.ts";
import { getTransaction } from "../../../services/transactions/index.ts";
import { ownedBy } from "../../middleware/owned.ts";
import { PendingTransactionSchema, TransactionSchema, followUpConflict } from "./schemas.ts";
import { answer, depsOf, purchaseAmountSchema } from "./send.ts";

const body = z
  .strictObject({
    amount: purchaseAmountSchema.openapi({ description: "How much more to authorise, in whole cents." }),
  })
  .openapi("TestIncrement", { example: { amount: 80 } });

export const route = createRoute({
  method: "post",
  path: "/transactions/{transactionId}/increment",
  tags: ["Transactions"],
  summary: "Increment a test purchase's authorisation",
  description:
    "The simulator sends the scheme's incremental authorisation (Visa INCREMENTAL_AUTH, Mastercard INCREMENTAL_AUTHORIZATION, Amex " +
    "INCREMENTAL_AUTH) for `amount` more on the purchase, as Marqeta and Lithic simulate it. It is no transaction of its own: the purchase's " +
    "`amount` becomes the new authorised total and the purchase is decided again on it against the offer it was decided on — rewarded " +
    "once, counted once on an activation; when that makes it qualify, its `transaction.auth.qualified` goes out then. Its clearing " +
    "follows with the new amount. 200 with the purchase; an increment after any clearing, of a voided or of an expired purchase is 409.",
  middleware: [ownedBy("transactionId", getTransaction)] as const,
  request: {
    params: z.object({ transactionId: uuid("transactionId") }),
    body: jsonBody(body),
  },
  responses: {
    200: jsonResponse(TransactionSchema, "The purchase with its new authorised amount."),
    202: jsonResponse(PendingTransactionSchema, "Sent; not recorded yet."),
    ...followUpConflict,
    ...commonErrors,
    400: invalidWhen(["transactionId: a transaction not made with POST /transactions/test", "amount: more than 2 decimal places (the networks carry whole cents)"]),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) =>
  answer(c, await incrementTestPurchase(depsOf(c), c.req.valid("param").transactionId, c.req.valid("json").amount), 200);
