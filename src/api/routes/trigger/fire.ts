// POST /trigger — fire one webhook event through the real path on the fixtures, as `cardlink trigger` does.
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { ctxOf } from "../../context.ts";
import { commonErrors, errorResponse, invalidWhen, jsonBody, jsonResponse } from "../../schemas.ts";
import { TRIGGER_BEHAVIOURS, TRIGGER_EVENTS, trigger } from "../../../services/simulator-control/index.ts";
import { SCHEMES } from "../../../domain/scheme.ts";
import { FixturesSchema } from "./schemas.ts";
import { TransactionSchema } from "../transactions/schemas.ts";
import { purchaseAmountSchema, purchaseDateTimeSchema } from "../transactions/send.ts";

/** Real time the trigger waits for the event and its first delivery attempts. */
const WAIT_MS = 30_000;

const body = z
  .strictObject({
    event: z.enum(TRIGGER_EVENTS, { message: `must be one of ${TRIGGER_EVENTS.join(", ")}` }),
    scheme: z.enum(SCHEMES, { message: `must be one of ${SCHEMES.join(", ")}` }).optional().openapi({
      description: "The purchase's network: the fixtures card of that scheme (made on first use). With `cardId`, must be the card's scheme.",
    }),
    amount: purchaseAmountSchema.optional().openapi({
      description:
        "The purchase's amount (default 42, or 1 for transaction.auth), or the missing transaction request's (default 42; " +
        "for .failed one of the test amounts 10.01–10.06, default 10.01).",
    }),
    currency: z.string().length(3, "must be an ISO 4217 code such as GBP").regex(/^[A-Z]{3}$/, "must be an ISO 4217 code such as GBP").optional().openapi({
      description: "The purchase's currency, where the location allows it: a location's purchases are in its country's currency.",
    }),
    cardId: z.uuid({ message: "must be a UUID" }).optional().openapi({ description: "An enrolled test card of yours instead of the fixtures card." }),
    locationId: z.uuid({ message: "must be a UUID" }).optional().openapi({
      description: "A location of yours (Active on the card's scheme) instead of the fixtures location; in the card's program.",
    }),
    programId: z.uuid({ message: "must be a UUID" }).optional().openapi({
      description: "A test program of yours instead of the fixtures program: the fixtures location and card are made in it on first use.",
    }),
    targeting: z.enum(["new", "lapsed", "existing"], { message: "must be new, lapsed or existing" }).optional().openapi({
      description: "The purchase's customer-segment tag, compared with a targeted offer's.",
    }),
    datetime: purchaseDateTimeSchema(
      "When the purchase was made, local to the location (default: the service clock's now); a request's transactionDate is its date.",
    ).optional(),
    behaviour: z.enum(TRIGGER_BEHAVIOURS, { message: `must be one of ${TRIGGER_BEHAVIOURS.join(", ")}` }).optional().openapi({
      description:
        "What the network does beside a plain purchase. For transaction.clearing and .qualified: `without-auth`, a clearing with no " +
        "authorisation first (offline, force-posted); `tip`, a clearing 15% above the authorisation; `incremented`, an incremental " +
        "authorisation of 20% before the clearing; `duplicate-clearing`, the clearing sent twice (recorded once). For any transaction " +
        "event: `converted`, the card billed in another currency than the location's (USD, or EUR at a US location).",
    }),
  })
  .openapi("Trigger", { example: { event: "transaction.auth.qualified", scheme: "mastercard", amount: 12.5 } });

const TriggerResultSchema = z
  .object({
    event: z.enum(TRIGGER_EVENTS),
    eventIds: z.array(z.uuid()).openapi({
      description: "The events fired: one, three for location.status (one per scheme), two for program.status (syncing, then idle).",
    }),
    summary: z.string().openapi({ example: "purchase 42 GBP, qualified for offer …: cashback 4.2 GBP, performance fee 0.42 GBP" }),
    resources: FixturesSchema.extend({
      transactionId: z.uuid().optional().openapi({ description: "The transaction the event carries (transaction events)." }),
      newLocationId: z.uuid().optional().openapi({ description: "The location made for location.status." }),
      missingTransactionRequestId: z.uuid().optional().openapi({ description: "The request made for missing-transaction-request events." }),
      purchaseId: z.uuid().optional().openapi({ description: "The purchase a clearing or refund follows." }),
      newBrandId: z.uuid().optional().openapi({ description: "The brand made for brand.consent." }),
      newCardId: z.uuid().optional().openapi({ description: "The card enrolled for card.linked or card.failed." }),
      marketplaceOfferId: z.uuid().optional().openapi({ description: "The fixtures marketplace offer (only you see it) of marketplace events." }),
      addedOfferId: z.uuid().optional().openapi({ description: "Your offer the fixtures marketplace offer was added as (marketplace events)." }),
    }),
    transaction: TransactionSchema.optional().openapi({ description: "The transaction the event carries, as recorded (transaction events)." }),
    dispatched: z.boolean().openapi({ description: "Whether the dispatcher had taken the events up when the wait ended." }),
    deliveries: z.array(
      z.object({
        hookId: z.uuid(),
        url: z.string(),
        status: z.enum(["pending", "succeeded", "failed"]),
        attempts: z.number().int(),
        responseCode: z.number().int().nullable(),
        error: z.string().nullable(),
      }),
    ).openapi({ description: "One per hook registered for the event; empty when no hook is (start `cardlink listen` first)." }),
  })
  .openapi("TriggerResult");

export const route = createRoute({
  method: "post",
  path: "/trigger",
  tags: ["Trigger"],
  summary: "Fire a webhook event on the fixtures",
  description:
    "Test keys only. Makes what is missing of the fixtures program (see POST /trigger/fixtures), then fires the event the " +
    "way it happens: transaction events are purchases (42.00 GBP qualifies; `transaction.auth` is a 1.00 GBP purchase " +
    "below the offer's minimum, not qualified, with its reason) sent through the Visa simulator, the bus and the qualifier, " +
    "cleared or refunded the same way (`transaction.refund.qualified`: the refund of a qualified purchase); " +
    "`transaction.auth.expired` is a 42.00 GBP purchase left uncleared whose authorisation the network then withdraws (its cashback " +
    "with it); `behaviour` makes the network clear it with no authorisation, with a tip, after an increment, twice, or bill it in " +
    "another currency; `location.status` adds a location (three location.active); `offer.extended` moves the fixtures offer's " +
    "endDate a day later; missing-transaction-request events are requests for the fixtures card (10.01, the test network's " +
    "transaction-not-found, for .failed); `brand.consent` makes a brand (a test brand consents at once); `card.linked` enrols the " +
    "fixtures test number of the scheme again, `card.failed` the scheme's first failing test number (issuer_declined); " +
    "`program.status` syncs the fixtures program (the test networks answer at once: syncing, then idle); `marketplace.offer.live` " +
    "puts a marketplace offer only you see (an oaas offer of the brand \"Cardlink fixtures marketplace\") on the marketplace and " +
    "adds it to the program, live at once; `marketplace.offer.updated` has its content provider extend the newest of those by a " +
    "day. The optional fields change the purchase or request: " +
    "its scheme, amount, currency, card, location, program, targeting tag and local datetime; a field the event does not " +
    "use is refused, naming it. Waits up to 30 s for the event and the first attempt of each delivery, " +
    "and answers the ids and the delivery outcome. 409 when a `.qualified` event was asked for and the transaction was " +
    "recorded as not qualified (a datetime past the offer's end, say): it will not come. 503 with Retry-After when the " +
    "pipeline did not record it in time.",
  request: { body: jsonBody(body) },
  responses: {
    200: jsonResponse(TriggerResultSchema, "The event fired and its deliveries."),
    ...commonErrors,
    400: invalidWhen([
      "a live key: trigger works in the test environment only",
      "a field the event does not use (`scheme: does not apply to offer.extended`; `behaviour`: a clearing's behaviour for another event)",
      "scheme: not the given card's scheme; cardId, locationId: not in the program",
      "locationId: a location whose MIDs on the card's scheme were removed after onboarding (PATCH /locations/{locationId} mids)",
      "currency: not the currency of the location's country",
      "amount: a failing test amount (10.01–10.06) for missing-transaction-request.succeeded, or another for .failed",
    ]),
    409: errorResponse("conflict: the transaction was recorded as not qualified, so the `.qualified` event asked for will not come."),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { runtime: services, caller } = c.var;
  const { event, ...overrides } = c.req.valid("json");
  return c.json(await trigger({ ctx: ctxOf(services, caller), simulators: services.simulators, waitMs: WAIT_MS }, event, overrides), 200);
};
