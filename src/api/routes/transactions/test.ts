// POST /transactions/test — a purchase through the card's scheme simulator, as network traffic.
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { commonErrors, invalidWhen, jsonBody, jsonResponse } from "../../schemas.ts";
import { sendTestPurchase } from "../../../services/simulator-control/index.ts";
import { PendingTransactionSchema, TransactionSchema } from "./schemas.ts";
import { answer, depsOf, purchaseAmountSchema, purchaseDateTimeSchema } from "./send.ts";

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
    "The clearing follows 48-72 hours later on the service clock (POST /transactions/{id}/clear clears it now). " +
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
    ]),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) =>
  answer(c, await sendTestPurchase(depsOf(c), c.req.valid("json")), 201);
