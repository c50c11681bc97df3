// POST /trigger — fire one webhook event through the real path on the fixtures, as `cardlink trigger` does.
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { ctxOf } from "../../context.ts";
import { commonErrors, invalidWhen, jsonBody, jsonResponse } from "../../schemas.ts";
import { TRIGGER_EVENTS, trigger } from "../../../services/trigger.ts";
import { FixturesSchema } from "./schemas.ts";

/** Real time the trigger waits for the event and its first delivery attempts. */
const WAIT_MS = 30_000;

const body = z
  .strictObject({
    event: z.enum(TRIGGER_EVENTS, { message: `must be one of ${TRIGGER_EVENTS.join(", ")}` }),
  })
  .openapi("Trigger", { example: { event: "transaction.auth.qualified" } });

const TriggerResultSchema = z
  .object({
    event: z.enum(TRIGGER_EVENTS),
    eventIds: z.array(z.uuid()).openapi({ description: "The events fired: one, or three for location.status (one per scheme)." }),
    summary: z.string().openapi({ example: "purchase 42 GBP, qualified for offer …: cashback 4.2 GBP, performance fee 0.42 GBP" }),
    resources: FixturesSchema.extend({
      transactionId: z.uuid().optional().openapi({ description: "The transaction the event carries (transaction events)." }),
      newLocationId: z.uuid().optional().openapi({ description: "The location made for location.status." }),
      missingTransactionRequestId: z.uuid().optional().openapi({ description: "The request made for missing-transaction-request events." }),
    }),
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
    "cleared or refunded the same way; `location.status` adds a location (three location.active); `offer.extended` moves " +
    "the fixtures offer's endDate a day later; missing-transaction-request events are requests for the fixtures card " +
    "(10.01, the test network's transaction-not-found, for .failed). Waits up to 30 s for the event and the first attempt of each delivery, " +
    "and answers the ids and the delivery outcome. 503 with Retry-After when the pipeline did not record it in time.",
  request: { body: jsonBody(body) },
  responses: { 200: jsonResponse(TriggerResultSchema, "The event fired and its deliveries."), ...commonErrors, 400: invalidWhen(["a live key: trigger works in the test environment only"]) },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { services, caller } = c.var;
  return c.json(await trigger({ ctx: ctxOf(services, caller), simulators: services.simulators, waitMs: WAIT_MS }, c.req.valid("json").event), 200);
};
