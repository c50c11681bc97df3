// The webhook payloads, `{id, event, created, data}`, described with the zod schemas of the records
// they carry — the same schemas the API answers with — and registered in the OpenAPI document's
// `webhooks` section with the Standard Webhooks signature headers.
import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "./context.ts";
import { HOOK_EVENTS, type HookEvent } from "../services/webhooks/index.ts";
import { TransactionSchema } from "./routes/transactions/schemas.ts";
import { LocationSchema } from "./routes/locations/schemas.ts";
import { OfferSchema } from "./routes/offers/schemas.ts";
import { MissingTransactionRequestSchema } from "./routes/missing-transaction-requests/schemas.ts";
import { SCHEMES } from "../domain/card-number.ts";
import { HookSchema } from "./routes/hooks/schemas.ts";
import { BrandSchema } from "./routes/brands/schemas.ts";
import { CardSchema } from "./routes/cards/schemas.ts";
import { ProgramSchema } from "./routes/programs/schemas.ts";
import { SCHEDULE_TEXT } from "../dispatcher/schedule.ts";

const LocationStatusSchema = z
  .object({
    location: LocationSchema,
    scheme: z.enum(SCHEMES),
    status: z.enum(["location.active", "location.failed"]).openapi({
      description: "location.active: synced on the scheme; location.failed: the network has an issue with the location.",
    }),
  })
  .openapi("LocationStatus");

/** What each event's `data` is, and when it is sent. */
export const WEBHOOK_EVENTS = {
  "transaction.auth": { data: TransactionSchema, when: "Every authorisation, with its offer result." },
  "transaction.clearing": { data: TransactionSchema, when: "Every clearing (settlement, submission), with its offer result." },
  "transaction.refund": { data: TransactionSchema, when: "Every refund, a transaction of its own with its offer result." },
  "transaction.auth.qualified": { data: TransactionSchema, when: "An authorisation that qualified for an offer (offer.qualified true)." },
  "transaction.clearing.qualified": { data: TransactionSchema, when: "A clearing that qualified for an offer." },
  "transaction.refund.qualified": {
    data: TransactionSchema,
    when:
      "A refund of a purchase that had earned cashback: the refund with `offer.qualified` true and the award it reverses as negative " +
      "`offer.cashback` and `offer.performanceFee` (in proportion to the amount refunded). Sent with its `transaction.refund`; for a " +
      "purchase still in its offer's return period, when the period ends in its favour.",
  },
  "transaction.auth.expired": {
    data: TransactionSchema,
    when:
      "The network withdrew an authorisation left uncleared for its expiry days (7 by default): the transaction with `expired: true` and " +
      "`expiredAt`. With nothing of it cleared, the cashback its `transaction.auth.qualified` announced is withdrawn: `offer.qualified` false, " +
      "cashback and performance fee 0, the reason in `offer.message`. Once part of it cleared, those clearings keep their reward and the " +
      "result stands (only the rest of the hold is released).",
  },
  "location.status": {
    data: LocationStatusSchema,
    when: "A network reports on a location, once per scheme; in the test environment creating a location sends three location.active.",
  },
  "missing-transaction-request.succeeded": {
    data: MissingTransactionRequestSchema,
    when: "The network found the transaction: the request with status successful and result.transactions.",
  },
  "missing-transaction-request.failed": {
    data: MissingTransactionRequestSchema,
    when: "Nothing found, or the request failed: the request with status failed and result.error (code, message).",
  },
  "offer.targeting.updated": { data: OfferSchema, when: "The targeting of a live offer changed." },
  "offer.extended": { data: OfferSchema, when: "An offer's endDate moved later (by you or by its content provider)." },
  "hook.disabled": {
    data: HookSchema,
    when:
      "Another hook of the program was disabled by the dispatcher: it answered 410 Gone, or every attempt to it failed for 5 days " +
      "of service time. The data is that hook (without its secret), with `disabledAt` and `disabledReason`; never sent to the hook disabled.",
  },
  "brand.consent": {
    data: BrandSchema,
    when:
      "A brand's consent was answered (`consent` approved or declined): at once when a brand is made with a test key, as Fidel's test " +
      "environment does; in live when the simulated brand approves (1 to 3 days later) or the operator (or, in a sandbox, you) decides. " +
      "A brand belongs to no program: sent to your hooks for it on every program.",
  },
  "card.linked": { data: CardSchema, when: "A card was enrolled and its network linked it (`status` linked)." },
  "card.failed": {
    data: CardSchema,
    when: "A card's network refused to enrol it: the card with `status` failed and `failure` (reason, message). The test numbers of documented ranges fail.",
  },
  "program.status": {
    data: ProgramSchema,
    when:
      "A program's location sync moved: `status` syncing when it starts (with `sync` running), idle when every network answered (with " +
      "`sync` completed). In test the networks answer a sync at once: both come together.",
  },
  "marketplace.offer.live": {
    data: OfferSchema,
    when:
      "A marketplace offer you added went live on your program (its brand accepted it, a location of its brand is linked or it is an " +
      "oaas offer, and its startDate came): once per added offer.",
  },
  "marketplace.offer.updated": {
    data: OfferSchema,
    when: "The content provider changed a marketplace offer you added (its endDate or targeting): your offer as it now stands.",
  },
} as const satisfies Record<HookEvent, { data: z.ZodType; when: string }>;

export type DescribedEvent = keyof typeof WEBHOOK_EVENTS;

const pascal = (event: string) =>
  event
    .split(/[.-]/)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join("");

/** The body of one event's deliveries. */
export const eventSchema = <E extends DescribedEvent>(event: E) =>
  z
    .object({
      id: z.uuid().openapi({ description: "The event id; also the `webhook-id` header, the same on every retry." }),
      event: z.literal(event),
      created: z.string().openapi({ format: "date-time", description: "When the event happened, in service time." }),
      data: WEBHOOK_EVENTS[event].data,
    })
    .openapi(`${pascal(event)}Event`);

const describedEvents = HOOK_EVENTS.filter((e): e is DescribedEvent => e in WEBHOOK_EVENTS);

/** Every event body, told apart by `event`. */
export const WebhookEventSchema = z
  .discriminatedUnion(
    "event",
    describedEvents.map((e) => eventSchema(e)) as unknown as [ReturnType<typeof eventSchema>, ...ReturnType<typeof eventSchema>[]],
  )
  .openapi("WebhookEvent");

const signatureHeaders = z.object({
  "webhook-id": z.string().openapi({ description: "The event id (Standard Webhooks).", example: "0f8fad5b-d9cb-469f-a165-70867728950e" }),
  "webhook-timestamp": z.string().openapi({ description: "Seconds since the epoch when this attempt was signed (wall clock).", example: "1767614400" }),
  "webhook-signature": z.string().openapi({
    description:
      "`v1,<base64 HMAC-SHA256>` of `<webhook-id>.<webhook-timestamp>.<body>` keyed with the hook's `whsec_` secret (base64 after the prefix). " +
      "Verify with any Standard Webhooks library, or `verifyWebhook` of the TypeScript client in clients/typescript.",
    example: "v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=",
  }),
});

/** Adds the `webhooks` section: one POST per event, its body schema and the signature headers. */
export function registerWebhooks(app: OpenAPIHono<AppEnv>): void {
  app.openAPIRegistry.register("WebhookEvent", WebhookEventSchema);
  for (const event of describedEvents) {
    app.openAPIRegistry.registerWebhook({
      method: "post",
      path: event,
      tags: ["Webhooks"],
      summary: event,
      description:
        `${WEBHOOK_EVENTS[event].when} Sent to every hook registered for \`${event}\` on the program (offer and brand events ` +
        "without a program: on every program of yours), signed per Standard Webhooks. Answer 2xx within 20 s; anything else is retried with the same " +
        `\`webhook-id\`. ${SCHEDULE_TEXT}`,
      request: {
        headers: signatureHeaders,
        body: { required: true, content: { "application/json": { schema: eventSchema(event) } } },
      },
      responses: {
        200: { description: "Any 2xx: delivered." },
        410: { description: "Gone: the delivery fails and the hook is disabled (`hook.disabled` to the program's other hooks)." },
        429: { description: "Too many requests: retried, no earlier than its `Retry-After`." },
        503: { description: "Unavailable: retried, no earlier than its `Retry-After`." },
        default: { description: "Anything else, or no answer within 20 s: retried." },
      },
    });
  }
}
