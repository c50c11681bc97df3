// The missing transaction request record as the API shows it.
import { z } from "@hono/zod-openapi";
import { MISSING_REQUEST_ERRORS, MISSING_REQUEST_STATUSES } from "../../../domain/missing-transaction.ts";

const FoundTransactionSchema = z
  .object({
    amount: z.number(),
    date: z.string().openapi({ format: "date", description: "The transaction's date at the network (local to the merchant)." }),
    networkStatus: z.enum(["SUCCEED", "MID-NOT-ASSIGNED"]).openapi({
      description: "MID-NOT-ASSIGNED: the network has not assigned the merchant its ids (Visa: no vmid/vsid yet).",
    }),
    merchantCity: z.string(),
    merchantName: z.string(),
    matchScore: z.number().min(0).max(100).openapi({ description: "0 to 100; higher is a stronger match of amount, date and merchant." }),
    type: z.enum(["settlement", "authorization"]).optional().openapi({ description: "Visa only." }),
    vmid: z.string().nullable().optional().openapi({ description: "Visa merchant id." }),
    vsid: z.string().nullable().optional().openapi({ description: "Visa store id." }),
    visaStoreName: z.string().nullable().optional(),
    visaAcquiringMid: z.string().nullable().optional().openapi({ description: "Visa acquiring MID (CAID)." }),
    visaBin: z.string().nullable().optional().openapi({ description: "Visa acquirer BIN." }),
    mcLocationId: z.string().nullable().optional().openapi({ description: "Mastercard location id." }),
    mcAcquiringMid: z.string().nullable().optional().openapi({ description: "Mastercard acquiring MID." }),
    seNumber: z.string().nullable().optional().openapi({ description: "Amex SE number." }),
  })
  .openapi("MissingTransactionFound");

export const MissingTransactionRequestSchema = z
  .object({
    id: z.uuid(),
    accountId: z.uuid(),
    programId: z.uuid(),
    brandId: z.uuid(),
    locationId: z.uuid(),
    cardId: z.uuid(),
    cardLastNumbers: z.string().openapi({ example: "4242" }),
    amount: z.number().openapi({ example: 42.5 }),
    transactionDate: z.string().openapi({ format: "date", example: "2026-01-02" }),
    scheme: z.enum(["visa", "mastercard", "amex"]),
    live: z.boolean(),
    status: z.enum(MISSING_REQUEST_STATUSES).openapi({
      description:
        "pending (live: until 4 days after the transaction date), processing (the look-up is at the network), " +
        "successful (result.transactions) or failed (result.error).",
    }),
    estimatedCompletionDate: z.string().openapi({
      format: "date-time",
      description: "When the answer is expected: live, 4 days after the transaction date (or the creation, if later); test, the creation.",
    }),
    created: z.string().openapi({ format: "date-time" }),
    updated: z.string().openapi({ format: "date-time" }),
    result: z
      .union([
        z.object({ transactions: z.array(FoundTransactionSchema) }),
        z.object({ error: z.object({ code: z.enum(MISSING_REQUEST_ERRORS), message: z.string() }) }),
      ])
      .nullable()
      .openapi({ description: "null until the request ends." }),
  })
  .openapi("MissingTransactionRequest");
