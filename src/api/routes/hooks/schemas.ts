// The hook record as the API shows it; the signing secret only at creation and on its own route.
import { z } from "@hono/zod-openapi";
import { HOOK_EVENTS } from "../../../services/webhooks/index.ts";
import { rule } from "../../validation.ts";

export const hookEvent = z
  .enum(HOOK_EVENTS, rule(`must be one of ${HOOK_EVENTS.join(", ")}`))
  .openapi({
  description: "The event this hook receives.",
  example: "transaction.auth.qualified",
});

export const HookSchema = z
  .object({
    id: z.uuid(),
    programId: z.uuid(),
    event: hookEvent,
    url: z.string().openapi({ example: "https://example.com/webhooks/cardlink" }),
    live: z.boolean(),
    status: z.enum(["active", "failing", "disabled"]).openapi({
      description:
        "`active`: delivered to. `failing`: its last attempts failed; it is paused between probes " +
        "(`pausedUntil`, service time: 5 s after the first failure, doubling, at most 10 min) and gets one " +
        "delivery at a time until one succeeds (a 429 or 503 with `Retry-After` pauses it as long as asked, at most 10 h). " +
        "`disabled`: every attempt failed for 5 days of service time, or it answered 410 Gone (either sends `hook.disabled` " +
        "to the program's other hooks for that event), or it was disabled by request; nothing is sent until " +
        "`PATCH /hooks/{hookId} {\"enabled\": true}`.",
      example: "active",
    }),
    consecutiveFailures: z.number().int().openapi({ description: "Failed attempts since the last success.", example: 0 }),
    failingSince: z.string().nullable().openapi({ format: "date-time", description: "Service time of the first failure of the streak." }),
    pausedUntil: z.string().nullable().openapi({ format: "date-time", description: "No delivery before this service time." }),
    lastError: z.string().nullable().openapi({
      description:
        "Why the last failed attempt failed: `answered 500`, `timed out after 20000 ms`, `connection refused`, " +
        "`host not found (DNS)`, `TLS handshake failed (…)`, `refused by the webhook target policy: …`. Under " +
        "`WEBHOOK_TARGETS=public` it never names the address or port connected to.",
      example: null,
    }),
    disabledAt: z.string().nullable().openapi({ format: "date-time" }),
    disabledReason: z.string().nullable().openapi({
      example: null,
      description:
        "Why the hook is disabled, e.g. `every attempt failed since … (41 in a row); last error: timed out after 20000 ms`, " +
        "`the endpoint answered 410 Gone at …` or `disabled by request`.",
    }),
    created: z.string().openapi({ format: "date-time" }),
  })
  .openapi("Hook");

const secret = z.string().openapi({
  description:
    "The Standard Webhooks signing secret (`whsec_` + base64). Verify deliveries with any Standard Webhooks " +
    "library, e.g. `new Webhook(secret).verify(body, headers)`. Returned at creation and by `GET /hooks/{hookId}/secret` only.",
  example: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
});

export const HookWithSecretSchema = HookSchema.extend({ secret }).openapi("HookWithSecret");

export const HookSecretSchema = z.object({ secret }).openapi("HookSecret");
