// GET /transactions/{transactionId}/qualification — how the qualifier decided a transaction: every offer it
// weighed with its award or why it lost, and the scheme's native message of each stage. A read of its own,
// so the Transaction record and its webhooks stay as integrators know them.
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { ctxOf } from "../../context.ts";
import { commonErrors, jsonResponse, uuid } from "../../schemas.ts";
import { getTransactionQualification } from "../../../services/transactions/index.ts";
import { CONSIDERED_LIMIT } from "../../../domain/qualification.ts";
import { SCHEMES } from "../../../domain/scheme.ts";

const ConsideredOfferSchema = z
  .object({
    offerId: z.uuid(),
    offerName: z.string().nullable().openapi({ description: "The offer's name; null once the offer is deleted (the id stays)." }),
    outcome: z.enum(["won", "lost", "rejected"]).openapi({
      description:
        "`won`: the offer the transaction is decided on (its result is the transaction's `offer`); `lost`: eligible, but another offer paid " +
        "more cashback (or as much and is more recent); `rejected`: one of the offer's rules refused the transaction.",
    }),
    cashback: z.number().nullable().openapi({ description: "What the offer pays (won) or would have paid (lost); null when rejected.", example: 4.2 }),
    performanceFee: z.number().nullable().openapi({ description: "Its performance fee, as cashback.", example: 0.84 }),
    reason: z.string().nullable().openapi({
      description: "Why it lost or was rejected, in the words of the transaction's `offer.message`; null for the winner.",
      example: "Paid less than the winning offer: cashback 2 vs 4.2 GBP.",
    }),
  })
  .openapi("ConsideredOffer");

const NativeMessageSchema = z
  .object({
    stage: z.enum(["auth", "increment", "clearing", "void", "expiry", "refund"]).openapi({
      description: "The stage of the transaction the message made: `increment` an incremental authorisation, `expiry` the network's withdrawal of the authorisation.",
    }),
    scheme: z.enum(SCHEMES),
    kind: z.string().nullable().openapi({
      description:
        "The scheme's own name for the message (its `messageType`): Visa AUTH, INCREMENTAL_AUTH, SETTLEMENT, REFUND, VOID, AUTH_EXPIRY; Mastercard " +
        "AUTHORIZATION, INCREMENTAL_AUTHORIZATION, CLEARING, REFUND, REVERSAL, AUTHORIZATION_EXPIRY; Amex AUTH, INCREMENTAL_AUTH, SUBMISSION, CREDIT, " +
        "REVERSAL, AUTH_EXPIRY.",
      example: "AUTH",
    }),
    value: z.record(z.string(), z.unknown()).openapi({ description: "The message as the network sent it, in the scheme's own shape and field names." }),
  })
  .openapi("NativeMessage");

export const TransactionQualificationSchema = z
  .object({
    transactionId: z.uuid(),
    considered: z.array(ConsideredOfferSchema).nullable().openapi({
      description:
        `Every live offer of the location the qualifier weighed for this transaction: the winner first, then the offers that would have paid ` +
        `(most first), then the rejected ones (most recent first); at most ${CONSIDERED_LIMIT}. A clearing of part of an authorisation lists the ` +
        "authorisation's offer only (it is decided on that offer). Empty when no live offer applied; null on a refund (it reverses its " +
        "purchase's award; see the purchase) and on transactions recorded before Cardlink kept this.",
    }),
    moreConsidered: z.number().int().openapi({ description: `How many more offers were weighed than the ${CONSIDERED_LIMIT} listed.`, example: 0 }),
    nativeMessages: z.array(NativeMessageSchema).openapi({
      description:
        "The network's own message each stage was made from, as Cardlink received it, in stage order: a purchase keeps its auth, its first " +
        "increment, its clearing (and a void or its expiry); a clearing of its own and a refund keep their own. The first message of a stage is kept. Empty for a " +
        "transaction a publisher submitted (no network message) and for transactions recorded before Cardlink kept them.",
    }),
  })
  .openapi("TransactionQualification", {
    example: {
      transactionId: "5be80cb4-97fc-8d3f-9a87-9b4d90c1dd88",
      considered: [
        { offerId: "6ad60367-50cc-4f65-850d-97519fe5b4e9", offerName: "10% off coffee", outcome: "won", cashback: 4.2, performanceFee: 0.84, reason: null },
        {
          offerId: "0f1c7a58-3c5e-4b1f-8d61-1f3b7f9d2a10",
          offerName: "2 off any drink",
          outcome: "lost",
          cashback: 2,
          performanceFee: 0,
          reason: "Paid less than the winning offer: cashback 2 vs 4.2 GBP.",
        },
        {
          offerId: "9a3e2d11-5b7c-4e0a-a9f2-6c8d1e4b7f33",
          offerName: "Mastercard weekend",
          outcome: "rejected",
          cashback: null,
          performanceFee: null,
          reason: "The offer is not available on visa cards.",
        },
      ],
      moreConsidered: 0,
      nativeMessages: [
        {
          stage: "auth",
          scheme: "visa",
          kind: "AUTH",
          value: {
            messageId: "482913570123456-A",
            messageType: "AUTH",
            transactionId: "482913570123456",
            originalTransactionId: null,
            cardId: "a5b88be7-93e0-428d-affd-963dc68565df",
            cardFirstSix: "444400",
            cardLastFour: "4008",
            amount: 42,
            currencyCode: "GBP",
            transactionDateTime: "2026-01-05T12:30:00",
            processedAt: "2026-01-05T12:30:00.412Z",
            authCode: "OBIUV7",
            cardPresent: true,
            wallet: null,
            merchant: {
              vmid: "12345678",
              vsid: "87654321",
              caid: "982434798595147",
              acquirerBin: "412345",
              name: "COFFEE HOUSE LONDON",
              city: "London",
              postcode: "SW1A 1AA",
              countryCode: "GBR",
              mcc: "5814",
            },
            settlementDate: null,
            targetingTag: null,
          },
        },
      ],
    },
  });

export const route = createRoute({
  method: "get",
  path: "/transactions/{transactionId}/qualification",
  tags: ["Transactions"],
  summary: "How a transaction was qualified: the offers weighed and the network's messages",
  description:
    "Every offer the qualifier weighed for the transaction — the winner with its award, the others with what they would have paid or why " +
    "a rule rejected them — and the scheme's native message of each stage as the network sent it (Visa, Mastercard or Amex field names). " +
    "Read-only, for understanding a decision; none of it is in the Transaction record or its webhooks.",
  request: { params: z.object({ transactionId: uuid("transactionId") }) },
  responses: { 200: jsonResponse(TransactionQualificationSchema, "The transaction's qualification."), ...commonErrors },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) =>
  c.json(await getTransactionQualification(ctxOf(c.var.runtime, c.var.caller), c.req.valid("param").transactionId), 200);
