// The webhook event record as the API shows it: its payload, where it stands, its deliveries and (on
// one event) every attempt with the request headers sent and the head of the answer.
import { z } from "@hono/zod-openapi";
import { EVENT_STATUSES } from "../../../services/webhooks/index.ts";
import { HOOK_EVENTS } from "../../../services/webhooks/index.ts";

export const eventStatus = z.enum(EVENT_STATUSES).openapi({
  description:
    "`pending`: not yet handed to its hooks, or a delivery awaits an attempt (a disabled hook's wait until it is re-enabled). `failed`: its delivery to some hook failed " +
    "(every retry spent, or the hook answered 410 Gone) and none to that hook is pending or succeeded. `delivered`: every hook " +
    "it went to answered 2xx. `no_hooks`: no hook was registered for it when it happened (redeliver sends it to those registered now).",
  example: "delivered",
});

const DeliverySummarySchema = z.object({
  id: z.uuid(),
  hookId: z.uuid(),
  url: z.string().openapi({ example: "https://example.com/webhooks/cardlink" }),
  status: z.enum(["pending", "succeeded", "failed"]),
  attemptCount: z.number().int().openapi({ example: 1 }),
  lastResponseCode: z.number().int().nullable().openapi({ example: 200 }),
  nextAttempt: z.string().nullable().openapi({ format: "date-time", description: "Service time of the next retry." }),
  created: z.string().openapi({ format: "date-time" }),
});

const PayloadSchema = z
  .object({
    id: z.uuid().openapi({ description: "The event id: `webhook-id` on every delivery and retry." }),
    event: z.string().openapi({ example: "transaction.auth.qualified" }),
    created: z.string().openapi({ format: "date-time" }),
    data: z.unknown().openapi({ description: "The record the event carries (see the `webhooks` section for each event's)." }),
  })
  .openapi({ description: "The body every delivery of the event carries, as sent." });

const eventFields = {
  id: z.uuid(),
  event: z.enum(HOOK_EVENTS),
  programId: z.uuid().nullable().openapi({ description: "Null for offer events, which go to the publisher's hooks on every program." }),
  transactionId: z.uuid().nullable().openapi({ description: "The transaction a transaction event reports." }),
  created: z.string().openapi({ format: "date-time", description: "Service time the event happened." }),
  status: eventStatus,
  payload: PayloadSchema,
};

export const WebhookEventRecordSchema = z
  .object({ ...eventFields, deliveries: z.array(DeliverySummarySchema).openapi({ description: "One per hook it was sent to, and one per redelivery." }) })
  .openapi("WebhookEventRecord");

const AttemptDetailSchema = z.object({
  attempt: z.number().int().openapi({ example: 1 }),
  attempted: z.string().openapi({ format: "date-time", description: "Service time of the attempt." }),
  latencyMs: z.number().int().openapi({ example: 12 }),
  responseCode: z.number().int().nullable().openapi({ example: 200, description: "Null when no answer came." }),
  error: z.string().nullable().openapi({ description: "Why no answer came (timeout, connection refused, refused by the target policy, cancelled)." }),
  requestHeaders: z
    .record(z.string(), z.string())
    .nullable()
    .openapi({
      description: "The headers the request was sent with: `content-type`, `webhook-id`, `webhook-timestamp`, `webhook-signature` (never the secret).",
      example: { "content-type": "application/json", "webhook-id": "0f8fad5b-d9cb-469f-a165-70867728950e", "webhook-timestamp": "1767614400", "webhook-signature": "v1,K5oZ…" },
    }),
  responseBody: z.string().nullable().openapi({ description: "The first 4 KB of the answer's body (UTF-8); null when no answer came." }),
  retryAfterMs: z.number().int().nullable().openapi({ description: "The wait a 429 or 503 asked for with `Retry-After`, in milliseconds (at most 10 h)." }),
});

export const WebhookEventDetailSchema = z
  .object({
    ...eventFields,
    deliveries: z.array(DeliverySummarySchema.extend({ attempts: z.array(AttemptDetailSchema) })),
  })
  .openapi("WebhookEventDetail");
