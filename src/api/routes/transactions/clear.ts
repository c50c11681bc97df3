// POST /transactions/{transactionId}/clear — the network's clearing of a test purchase, now: the whole
// amount at once, part of it (an authorisation may clear more than once, up to its amount), or more than it
// by a tip (up to TIP_BOUND above it); sent twice when asked (a duplicate clearing).
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { commonErrors, invalidWhen, jsonResponse, optionalJsonBody, uuid } from "../../schemas.ts";
import { clearTestPurchase } from "../../../services/simulator-control/index.ts";
import { PendingTransactionSchema, TransactionSchema, followUpConflict } from "./schemas.ts";
import { answer, depsOf, purchaseAmountSchema } from "./send.ts";
import { TIP_BOUND } from "../../../domain/purchase-follow-ups.ts";

const body = z
  .strictObject({
    amount: purchaseAmountSchema.optional().openapi({
      description:
        "How much to clear, in whole cents; what is left of the authorisation when absent. Less than what is left clears part of it; " +
        `more clears it with a tip: the clearings of an authorisation may come to at most ${TIP_BOUND * 100}% above its authorised amount ` +
        "(increments included), the tolerance networks give restaurants, taxis and fuel pumps.",
    }),
    duplicate: z.boolean({ message: "must be true or false" }).optional().openapi({
      description:
        "true: the network sends this clearing twice, the second time as networks resend one — its own message id, the clearing's " +
        "reference (Visa's acquirer reference number, Mastercard's transaction sequence number, Amex's ROC id). Cardlink records and " +
        "rewards it once: one clearing, one `transaction.clearing` webhook.",
    }),
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
    "Clearing part of it (a tip left out, split shipments) or more than it (a tip added, up to " + `${TIP_BOUND * 100}% above the authorised amount` + ") " +
    "is a clearing of its own: a new transaction (`auth` false, `cleared` true, " +
    "`authTransactionId` naming the purchase, its own `transaction.clearing` webhook), qualified against the purchase's offer on its own amount — " +
    "what clears is what earns — the purchase rewarded once across its clearings: 201 with that transaction. An authorisation may be cleared again up to its amount " +
    "(Mastercard gives each clearing its own transaction sequence number); the purchase's `clearedAmount` adds them up. " +
    "A purchase billed in another currency clears in the purchase's own amount and currency, the billed amount beside them in the native message. " +
    "Clearing a cleared purchase again without `amount` answers it again; clearing more than the bound allows, a voided or an expired purchase, is 409.",
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
  const body = c.req.valid("json");
  const sent = await clearTestPurchase(depsOf(c), c.req.valid("param").transactionId, body?.amount, body?.duplicate);
  return sent.created ? answer(c, sent, 201) : answer(c, sent, 200);
};
