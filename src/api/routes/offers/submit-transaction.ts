// POST /offers/{offerId}/transactions — the publisher reports a purchase for an offer whose
// transaction data it sources itself (transactionSource "oaas").
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { ctxOf } from "../../context.ts";
import { invalid, notFound } from "../../errors.ts";
import { commonErrors, errorResponse, invalidWhen, jsonBody, jsonResponse, trimmedText, uuid } from "../../schemas.ts";
import { getOffer } from "../../../services/offers/index.ts";
import { getLinkedCard } from "../../../services/catalog/index.ts";
import { ownedBy } from "../../middleware/owned.ts";
import { getTransaction } from "../../../services/transactions/index.ts";
import { processSubmission } from "../../../qualifier/index.ts";
import { TransactionSchema } from "../transactions/schemas.ts";

const body = z
  .strictObject({
    cardId: z.uuid({ message: "must be a UUID" }).openapi({ description: "The enrolled card that made the purchase." }),
    amount: z.number().positive("must be greater than 0"),
    datetime: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/, "must be YYYY-MM-DDThh:mm:ss, local to where the purchase was made")
      .openapi({ maxLength: 19 }),
    targetingTag: z.enum(["new", "lapsed", "existing"], { message: "must be new, lapsed or existing" }).nullable().optional().openapi({
      description: "The customer segment you assign; compared with the offer's targeting (not checked against history).",
    }),
    reference: trimmedText(200).openapi({
      description: "Your id for the purchase. Submitting the same reference again returns the transaction already recorded.",
      example: "order-20260105-0042",
    }),
  })
  .openapi("PublisherTransaction", {
    example: { cardId: "3f2b9c1e-8d4a-4b6e-9f1a-2c3d4e5f6a7b", amount: 42, datetime: "2026-01-05T12:30:00", targetingTag: "new", reference: "order-42" },
  });

export const route = createRoute({
  method: "post",
  path: "/offers/{offerId}/transactions",
  tags: ["Offers"],
  summary: "Submit a transaction for an oaas offer",
  description:
    "For offers with `transactionSource: \"oaas\"`, which have no linked locations (`locationsTotal` is -1): you " +
    "report the purchases you see. Each is decided against this offer by the same rules as network traffic " +
    "(dates, days of week, minimum amount, activation, targeting tag, return period), recorded as a cleared " +
    "transaction without a location, and reported with `transaction.clearing` (and `transaction.clearing.qualified`). " +
    "201 with the new transaction; 200 with the one already recorded for this `reference`.",
  middleware: [ownedBy("offerId", getOffer)] as const,
  request: { params: z.object({ offerId: uuid("offerId") }), body: jsonBody(body) },
  responses: {
    201: jsonResponse(TransactionSchema, "The transaction with its offer result."),
    200: jsonResponse(TransactionSchema, "The transaction already recorded for this reference."),
    ...commonErrors,
    400: invalidWhen(["offerId: an offer whose transactionSource is not oaas"]),
    409: errorResponse("conflict: `cardId` is a card whose enrolment failed (`status` failed): it is not linked."),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const ctx = ctxOf(c.var.runtime, c.var.caller);
  const offer = await getOffer(ctx, c.req.valid("param").offerId);
  if (offer.transactionSource !== "oaas") {
    throw invalid("offerId", "transactions can be submitted only for offers with transactionSource oaas; others receive network transactions at their locations");
  }
  const input = c.req.valid("json");
  // A card whose enrolment failed takes part in nothing (409, saying why).
  await getLinkedCard(ctx, input.cardId);
  // Decided and written by the qualifier's steps, as network transactions are.
  const done = await processSubmission(ctx, offer, { ...input, targetingTag: input.targetingTag ?? null });
  if ("missing" in done) throw notFound("card", input.cardId);
  return c.json(await getTransaction(ctx, done.transactionId), done.created ? 201 : 200);
};
