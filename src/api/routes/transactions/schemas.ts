// The Transaction record with its offer result, as the API and the transaction webhooks carry it.
import { z } from "@hono/zod-openapi";
import { ErrorBodySchema } from "../../schemas.ts";

const nullableString = z.string().nullable();

const OfferResultSchema = z
  .object({
    id: z.uuid().nullable().openapi({ description: "The winning offer; when none qualified, the most recent rejecting one; null when no live offer applied." }),
    cashback: z.number().openapi({ example: 4.2 }),
    performanceFee: z.number().openapi({ example: 0.84 }),
    qualified: z.boolean(),
    qualificationDate: z.string().nullable().openapi({ description: "Creation date + returnPeriod days (YYYY-MM-DD); null without a return period.", example: null }),
    message: z.array(z.string()).openapi({ description: "Why it did not qualify (or when it will); empty when qualified." }),
  })
  .openapi("OfferResult");

export const TransactionSchema = z
  .object({
    id: z.uuid(),
    accountId: z.uuid(),
    programId: z.uuid(),
    live: z.boolean(),
    type: z.enum(["purchase", "refund"]).openapi({ description: "A refund is a negative transaction linked to its purchase." }),
    originalTransactionId: z.uuid().nullable().openapi({
      description:
        "On a refund: the purchase it refunds — the one the network named, else the one matched by card, location, MID, amount and time " +
        "(a purchase of the same card at the same location and MID, of the refund's amount, before it, not refunded yet; the latest of them). " +
        "Null when neither finds one (a partial refund the network did not link matches nothing).",
    }),
    refundTransactionId: z.uuid().nullable().openapi({ description: "On a purchase: its first refund (whose originalTransactionId names it); null until refunded." }),
    authTransactionId: z.uuid().nullable().openapi({
      description:
        "On a clearing of its own (part of an authorisation, or a second clearing): the authorisation it clears. Null on a purchase, whose " +
        "clearing of the whole amount at once is a stage of its own record (`cleared`), and on refunds.",
    }),
    clearedAmount: z.number().openapi({
      description: "On a purchase: how much of it has cleared so far, by its own clearing or by clearings of their own; on a clearing, its amount; 0 on a refund.",
      example: 12.5,
    }),
    datetime: z.string().openapi({ description: "Local to the location, YYYY-MM-DDThh:mm:ss.", example: "2026-01-05T12:30:00" }),
    created: z.string().openapi({ format: "date-time" }),
    updated: z.string().openapi({ format: "date-time" }),
    auth: z.boolean().openapi({ description: "The network's authorisation was received." }),
    cleared: z.boolean().openapi({
      description:
        "The network's clearing (Visa settlement, Amex submission) of this transaction was received: for a purchase, of its whole amount at once. " +
        "A purchase cleared in parts, or above its amount by a tip, stays false; each such clearing is a transaction of its own (see authTransactionId) " +
        "and clearedAmount adds them up. A clearing that came with no authorisation is `auth: false`, `cleared: true`, with no authTransactionId.",
    }),
    voided: z.boolean(),
    expired: z.boolean().openapi({
      description:
        "The network withdrew the authorisation, left uncleared for its expiry days (7 by default): with nothing of it cleared, its " +
        "cashback is withdrawn (see offer) and `transaction.auth.expired` was sent; once part of it cleared, only the rest of the hold.",
    }),
    expiredAt: z.string().nullable().openapi({ format: "date-time", description: "When the network withdrew the authorisation (service time); null until then.", example: null }),
    cardPresent: z.boolean(),
    amount: z.number().openapi({
      description: "A purchase's authorised amount, its increments included; a clearing's or a refund's own. Always in the purchase's own currency, never the cardholder's billed one.",
      example: 42,
    }),
    currency: z.string().openapi({ example: "GBP" }),
    wallet: nullableString.openapi({ example: "APPLE_PAY" }),
    targetingTag: z.enum(["new", "lapsed", "existing"]).nullable(),
    card: z.object({ id: z.uuid(), firstNumbers: z.string(), lastNumbers: z.string(), scheme: z.string(), metadata: z.record(z.string(), z.unknown()) }),
    brand: z.object({ id: z.uuid(), name: z.string(), logoUrl: nullableString }).nullable(),
    location: z
      .object({
        id: z.uuid(),
        address: z.string(),
        city: z.string(),
        postcode: z.string(),
        countryCode: z.string(),
        timezone: z.string(),
        geolocation: z.object({ latitude: z.number(), longitude: z.number() }).nullable(),
        metadata: z.record(z.string(), z.unknown()),
      })
      .nullable(),
    offer: OfferResultSchema,
    identifiers: z.object({
      MID: nullableString,
      mastercardTransactionSequenceNumber: nullableString,
      mastercardRefNumber: nullableString,
      amexApprovalCode: nullableString,
      visaAuthCode: nullableString,
      mastercardAuthCode: nullableString,
    }),
  })
  .openapi("Transaction", {
    example: {
      id: "5be80cb4-97fc-8d3f-9a87-9b4d90c1dd88",
      accountId: "a21bd529-4b25-4ce1-a597-afd4f53bb2de",
      programId: "8666e4bc-3a01-48bc-8c56-52baa5cb651b",
      live: false,
      type: "purchase",
      originalTransactionId: null,
      refundTransactionId: null,
      authTransactionId: null,
      clearedAmount: 0,
      datetime: "2026-01-05T12:30:00",
      created: "2026-01-05T12:30:01.000Z",
      updated: "2026-01-05T12:30:01.000Z",
      auth: true,
      cleared: false,
      voided: false,
      expired: false,
      expiredAt: null,
      cardPresent: true,
      amount: 12.5,
      currency: "GBP",
      wallet: null,
      targetingTag: null,
      card: { id: "a5b88be7-93e0-428d-affd-963dc68565df", firstNumbers: "444400", lastNumbers: "4008", scheme: "visa", metadata: { userId: "u-42" } },
      brand: { id: "f645206b-392b-4077-b9fd-d4180f381a0b", name: "Coffee House", logoUrl: null },
      location: {
        id: "07e89eac-2256-4ebe-9864-ebc6fbefc77d",
        address: "1 High Street",
        city: "London",
        postcode: "SW1A 1AA",
        countryCode: "GBR",
        timezone: "Europe/London",
        geolocation: { latitude: 51.5014, longitude: -0.1419 },
        metadata: {},
      },
      offer: { id: "6ad60367-50cc-4f65-850d-97519fe5b4e9", cashback: 1.25, performanceFee: 0.19, qualified: true, qualificationDate: null, message: [] },
      identifiers: {
        MID: "982434798595147",
        mastercardTransactionSequenceNumber: null,
        mastercardRefNumber: null,
        amexApprovalCode: null,
        visaAuthCode: "OBIUV7",
        mastercardAuthCode: null,
      },
    },
  });

export const PendingTransactionSchema = z
  .object({
    id: z.uuid().openapi({ description: "The id the transaction will have; GET /transactions/{id} once the qualifier has it." }),
    status: z.enum(["sent", "accepted"]).openapi({
      description:
        "sent: on its way through the network, not recorded yet. accepted: written, but the bus was down; it is sent when the bus is back (nothing to retry).",
    }),
  })
  .openapi("PendingTransaction", { example: { id: "5be80cb4-97fc-8d3f-9a87-9b4d90c1dd88", status: "sent" } });

/** 409 of the clear, void and refund routes: the follow-up cannot apply to the purchase as its network holds it. */
export const followUpConflict = {
  409: {
    description:
      "It cannot apply, the message names why: a refund of a voided, an expired uncleared or an already fully refunded purchase, or of more " +
      "than remains to refund; a void after clearing or expiry; clearing after a void or expiry, of a purchase cleared in full, or of more than " +
      "the tip bound allows; an increment after clearing, a void or expiry; an expiry of a voided or fully cleared purchase; " +
      "or a purchase the network has not taken yet.",
    content: { "application/json": { schema: ErrorBodySchema } },
  },
} as const;
