// POST /transactions/test — a purchase through the card's scheme simulator, as network traffic.
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { commonErrors, errorResponse, invalidWhen, jsonBody, jsonResponse } from "../../schemas.ts";
import { sendTestPurchase } from "../../../services/simulator-control/index.ts";
import { PendingTransactionSchema, TransactionSchema } from "./schemas.ts";
import { answer, depsOf, purchaseAmountSchema, purchaseDateTimeSchema } from "./send.ts";
import { AUTH_EXPIRY_DAYS, AUTH_EXPIRY_DAYS_RANGE } from "../../../domain/purchase-follow-ups.ts";

const body = z
  .strictObject({
    cardId: z.uuid({ message: "must be a UUID" }),
    locationId: z.uuid({ message: "must be a UUID" }),
    amount: purchaseAmountSchema,
    datetime: purchaseDateTimeSchema(
      "When the purchase happened, local to the location, a real calendar date-time (years 0001 to 9999); now at the location when absent.",
    ).optional(),
    targetingTag: z.enum(["new", "lapsed", "existing"], { message: "must be new, lapsed or existing" }).optional().openapi({
      description: "The customer segment tag the publisher attaches; compared with the offer's targeting.",
    }),
    cardPresent: z.boolean().optional(),
    wallet: z.enum(["APPLE_PAY", "GOOGLE_PAY", "SAMSUNG_PAY"]).nullable().optional(),
    stage: z.enum(["auth", "clearing"], { message: "must be auth or clearing" }).optional().openapi({
      description:
        "`auth` (default): the network authorises the purchase and clears it later. `clearing`: the network clears it with no " +
        "authorisation first, as offline and force-posted transactions (and much of Amex's traffic) come: a transaction with " +
        "`auth: false`, `cleared: true`, qualified on its own amount.",
    }),
    autoClear: z.boolean({ message: "must be true or false" }).optional().openapi({
      description:
        "true (default): the network clears the authorisation 48-72 hours later (service clock), unless it expires first. false: it " +
        "leaves it uncleared until you clear it (POST /transactions/{id}/clear) or it expires after `authExpiryDays`.",
    }),
    authExpiryDays: z
      .number({ message: `must be a whole number of days from ${AUTH_EXPIRY_DAYS_RANGE.min} to ${AUTH_EXPIRY_DAYS_RANGE.max}` })
      .int(`must be a whole number of days from ${AUTH_EXPIRY_DAYS_RANGE.min} to ${AUTH_EXPIRY_DAYS_RANGE.max}`)
      .min(AUTH_EXPIRY_DAYS_RANGE.min, `must be a whole number of days from ${AUTH_EXPIRY_DAYS_RANGE.min} to ${AUTH_EXPIRY_DAYS_RANGE.max}`)
      .max(AUTH_EXPIRY_DAYS_RANGE.max, `must be a whole number of days from ${AUTH_EXPIRY_DAYS_RANGE.min} to ${AUTH_EXPIRY_DAYS_RANGE.max}`)
      .optional()
      .openapi({
        description:
          `Days of your environment's clock the authorisation lasts uncleared before the network withdraws it (default ${AUTH_EXPIRY_DAYS}): ` +
          "the transaction then reads `expired: true` and, with nothing of it cleared, its cashback is withdrawn (`transaction.auth.expired`). " +
          "Fewer days than the network takes to clear (48-72 hours) make it expire before its clearing.",
        example: AUTH_EXPIRY_DAYS,
      }),
    billingCurrency: z.string().length(3, "must be an ISO 4217 code such as USD").regex(/^[A-Z]{3}$/, "must be an ISO 4217 code such as USD").optional().openapi({
      description:
        "The currency the card is billed in (default: the currency of the card's countryCode). When it is not the location's, the " +
        "network converts, as for a purchase abroad: its messages carry the billed amount and rate beside the purchase's own amount " +
        "and currency, which the transaction keeps (see GET /transactions/{id}/qualification, nativeMessages).",
      example: "USD",
    }),
  })
  .superRefine((b, ctx) => {
    if (b.stage !== "clearing") return;
    for (const field of ["autoClear", "authExpiryDays"] as const) {
      if (b[field] !== undefined) ctx.addIssue({ code: "custom", path: [field], message: "applies to an authorisation: leave it out with stage clearing" });
    }
  })
  .openapi("TestTransaction", {
    example: { cardId: "3f2b9c1e-8d4a-4b6e-9f1a-2c3d4e5f6a7b", locationId: "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d", amount: 42, targetingTag: "new" },
  });

export const route = createRoute({
  method: "post",
  path: "/transactions/test",
  tags: ["Transactions"],
  summary: "Make a test purchase",
  description:
    "Test keys only. The card's scheme simulator publishes a native authorisation for the purchase at the location " +
    "(its MIDs on that scheme); the qualifier matches it like any network message and sends the transaction webhooks. " +
    "The clearing follows 48-72 hours later on the service clock (POST /transactions/{id}/clear clears it now), unless `autoClear` is " +
    "false or the authorisation expires first (`authExpiryDays`); `stage: clearing` makes a clearing with no authorisation instead. " +
    "Answers 201 with the recorded transaction, or 202 with its id if the qualifier takes longer than 5 s " +
      "(less when publishing took long: the answer comes within about 6 s of the request once the purchase is published). " +
      "When the service is busy, test purchases, clearings, voids and refunds take fair turns among accounts (a sandbox's count " +
      "toward its owner): an account under its share starts at once, the rest wait; an account with ADMISSION_QUEUE_PER_ACCOUNT " +
      "(default 1000) already waiting is answered 429 rate_limit_exceeded with Retry-After: 1.",
  request: { body: jsonBody(body) },
  responses: {
    201: jsonResponse(TransactionSchema, "The transaction as the qualifier recorded it."),
    202: jsonResponse(PendingTransactionSchema, "Sent; not recorded yet."),
    ...commonErrors,
    400: invalidWhen([
      "a live key (test keys only)",
      "locationId: a location that is not in the card's program",
      "locationId: a location whose MIDs on the card's scheme were removed after onboarding (PATCH /locations/{locationId} mids); " +
        "one whose onboarding the test network has not answered yet is waited for, then 503 with Retry-After",
      "amount: more than 2 decimal places (the networks carry whole cents)",
      "autoClear, authExpiryDays: given with stage clearing (they apply to an authorisation)",
    ]),
    409: errorResponse("conflict: `cardId` is a card whose enrolment failed (`status` failed): it is not linked, its network knows no such card."),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) =>
  answer(c, await sendTestPurchase(depsOf(c), c.req.valid("json")), 201);
