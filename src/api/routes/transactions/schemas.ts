// The Transaction record with its offer result, as the API and the transaction webhooks carry it.
import { z } from "@hono/zod-openapi";

const nullableString = z.string().nullable();

export const OfferResultSchema = z
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
    originalTransactionId: z.uuid().nullable(),
    datetime: z.string().openapi({ description: "Local to the location, YYYY-MM-DDThh:mm:ss.", example: "2026-01-05T12:30:00" }),
    created: z.string().openapi({ format: "date-time" }),
    updated: z.string().openapi({ format: "date-time" }),
    auth: z.boolean().openapi({ description: "The network's authorisation was received." }),
    cleared: z.boolean().openapi({ description: "The network's clearing (Visa settlement, Amex submission) was received." }),
    voided: z.boolean(),
    cardPresent: z.boolean(),
    amount: z.number().openapi({ example: 42 }),
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
  .openapi("Transaction");

export const PendingTransactionSchema = z
  .object({
    id: z.uuid().openapi({ description: "The id the transaction will have; GET /transactions/{id} once the qualifier has it." }),
    status: z.literal("sent"),
  })
  .openapi("PendingTransaction");
