// POST /transactions/{transactionId}/expire — the network withdraws a test purchase's authorisation now, as
// it does once the authorisation's expiry days pass uncleared (Lithic's simulated AUTHORIZATION_EXPIRY void).
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { commonErrors, invalidWhen, jsonResponse, uuid } from "../../schemas.ts";
import { expireTestPurchase } from "../../../services/simulator-control/index.ts";
import { AUTH_EXPIRY_DAYS } from "../../../domain/purchase-follow-ups.ts";
import { PendingTransactionSchema, TransactionSchema, followUpConflict } from "./schemas.ts";
import { answer, depsOf } from "./send.ts";

export const route = createRoute({
  method: "post",
  path: "/transactions/{transactionId}/expire",
  tags: ["Transactions"],
  summary: "Expire a test purchase's authorisation now",
  description:
    "The simulator sends the scheme's expiry of the authorisation (Visa AUTH_EXPIRY, Mastercard AUTHORIZATION_EXPIRY, Amex AUTH_EXPIRY) " +
    `now, as the network does by itself once it has been left uncleared for its \`authExpiryDays\` (default ${AUTH_EXPIRY_DAYS}) of your ` +
    "environment's clock. The purchase reads `expired: true` with `expiredAt`; with nothing of it cleared, its cashback is withdrawn " +
    "(`offer.qualified` false, cashback and fee 0, the reason in `offer.message`) and `transaction.auth.expired` goes out — once part of it " +
    "cleared, those clearings keep what they earned and only the rest of the hold is released. Its scheduled clearing is cancelled. " +
    "Expiring an expired purchase answers it again; a purchase cleared in full or voided is 409.",
  request: { params: z.object({ transactionId: uuid("transactionId") }) },
  responses: {
    200: jsonResponse(TransactionSchema, "The expired purchase."),
    202: jsonResponse(PendingTransactionSchema, "Sent; not recorded yet."),
    ...followUpConflict,
    ...commonErrors,
    400: invalidWhen(["transactionId: a transaction not made with POST /transactions/test"]),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) =>
  answer(c, await expireTestPurchase(depsOf(c), c.req.valid("param").transactionId), 200);
