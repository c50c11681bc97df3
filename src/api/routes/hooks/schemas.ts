// The hook record as the API shows it; the signing secret only where a single hook is returned.
import { z } from "@hono/zod-openapi";
import { HOOK_EVENTS } from "../../../store/hooks.ts";
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
    created: z.string().openapi({ format: "date-time" }),
  })
  .openapi("Hook");

export const HookWithSecretSchema = HookSchema.extend({
  secret: z.string().openapi({
    description:
      "The Standard Webhooks signing secret (`whsec_` + base64). Verify deliveries with any Standard Webhooks " +
      "library, e.g. `new Webhook(secret).verify(body, headers)`.",
    example: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
  }),
}).openapi("HookWithSecret");
