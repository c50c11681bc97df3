// POST /cards/{cardId}/missing-transaction-requests — ask the card's network for a transaction not received.
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { ctxOf } from "../../context.ts";
import { commonErrors, errorResponse, invalidWhen, jsonBody, jsonResponse, uuid } from "../../schemas.ts";
import { ownedBy } from "../../middleware/owned.ts";
import { getCard } from "../../../services/catalog/index.ts";
import { createMissingTransactionRequest } from "../../../services/missing-transactions/index.ts";
import { MissingTransactionRequestSchema } from "./schemas.ts";

/** Real time the API waits for the test network's answer before answering with the request still processing. */
const TEST_WAIT_MS = 5_000;

const body = z
  .strictObject({
    locationId: z.uuid({ message: "must be a UUID" }).openapi({ description: "A location of the card's program where the purchase was made." }),
    transactionDate: z
      .union([z.iso.date().openapi({ maxLength: 10 }), z.iso.datetime({ offset: true }).max(64)], { message: "must be an ISO 8601 date (YYYY-MM-DD) or date-time" })
      .openapi({ description: "When the purchase was made; not in the future, and within the scheme's window: visa and mastercard 90 days, amex 30.", example: "2026-01-02" }),
    amount: z
      .number({ message: "must be a number" })
      .min(0, "must be 0 or greater")
      .openapi({ description: "The exact transaction value, with no more decimals than the currency's minor unit.", example: 42.5 }),
  })
  .openapi("MissingTransactionRequestCreate", {
    example: { locationId: "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d", transactionDate: "2026-01-02", amount: 42.5 },
  });

export const route = createRoute({
  method: "post",
  path: "/cards/{cardId}/missing-transaction-requests",
  tags: ["Missing transaction requests"],
  summary: "Ask the card's network for a missing transaction",
  description:
    "Answers 201 with the request record. Test keys: processed at once with no pending period — amounts 10.01 to 10.06 " +
    "end `failed` with transaction-not-found, card-not-found, card-not-linked-to-program, program-not-found, " +
    "network-request-failed and unexpected-error; any other amount ends `successful` with the transaction the test " +
    "network reports for that card, location, date and amount (the record is final in the answer; should the test " +
    "network take over 5 s it is `processing` and the event follows). Live keys: `pending` until 4 days after the " +
    "transaction date on the service clock (see estimatedCompletionDate), or `processing` at once when that has passed; " +
    "then the card's network searches its history and the request ends `successful` or `failed`, with the events " +
    "missing-transaction-request.succeeded or .failed. A MID the network finds that the location lacks is added to the " +
    "location and to MID insights (origin missing-transaction-lookup).",
  middleware: [ownedBy("cardId", getCard)] as const,
  request: { params: z.object({ cardId: uuid("cardId") }), body: jsonBody(body) },
  responses: {
    201: jsonResponse(MissingTransactionRequestSchema, "The request."),
    ...commonErrors,
    400: invalidWhen([
      "locationId: a location of another program than the card's",
      "amount: more decimal places than the currency of the card's country has",
      "transactionDate: in the future or before the card's network searches back (Visa, Mastercard and Amex windows, on the service clock)",
    ]),
    409: errorResponse("conflict: the card's enrolment failed (`status` failed): it is not linked, its network has nothing to look up."),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) =>
  c.json(
    await createMissingTransactionRequest({
      ctx: ctxOf(c.var.runtime, c.var.caller),
      input: { cardId: c.req.valid("param").cardId, ...c.req.valid("json") },
      waitMs: TEST_WAIT_MS,
    }),
    201,
  );
