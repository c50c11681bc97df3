// GET /hooks/{hookId}/deliveries — every delivery of events to the hook, with each attempt.
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { ctxOf } from "../../context.ts";
import { commonErrors, jsonResponse, listOf, pageQuery, uuid } from "../../schemas.ts";
import { listDeliveries } from "../../../services/webhooks/index.ts";
import { SCHEDULE_TEXT } from "../../../dispatcher/schedule.ts";

const AttemptSchema = z.object({
  attempt: z.number().int().openapi({ example: 1 }),
  attempted: z.string().openapi({ format: "date-time", description: "Service time of the attempt." }),
  latencyMs: z.number().int().openapi({ example: 12 }),
  responseCode: z.number().int().nullable().openapi({ example: 200, description: "Null when no response came." }),
  error: z.string().nullable().openapi({ example: null, description: "Why no response came (timeout, connect timeout, refused, cancelled)." }),
});

export const DeliverySchema = z
  .object({
    id: z.uuid(),
    hookId: z.uuid(),
    eventId: z.uuid().openapi({ description: "The event id, sent as `webhook-id` on every attempt." }),
    event: z.string().openapi({ example: "transaction.auth" }),
    status: z.enum(["pending", "succeeded", "failed"]).openapi({
      description: "`failed` once every retry of the schedule has failed, or at once when the hook answered 410 Gone.",
    }),
    nextAttempt: z.string().nullable().openapi({ format: "date-time", description: "Service time of the next retry." }),
    attempts: z.array(AttemptSchema),
    created: z.string().openapi({ format: "date-time" }),
    updated: z.string().openapi({ format: "date-time" }),
  })
  .openapi("WebhookDelivery");

export const route = createRoute({
  method: "get",
  path: "/hooks/{hookId}/deliveries",
  tags: ["Hooks"],
  summary: "List a hook's deliveries and their attempts",
  description:
    "Deliveries are at least once, signed per Standard Webhooks (`webhook-id`, `webhook-timestamp`, " +
    "`webhook-signature`), with a 3 s connect timeout and a 20 s response timeout. " + SCHEDULE_TEXT + " " +
    "While the hook is paused after failures or disabled (see the hook's `status`), due deliveries wait without " +
    "spending attempts. An attempt cut short because the dispatcher stopped has `error: \"cancelled: …\"` and is due again at once.",
  request: { params: z.object({ hookId: uuid("hookId") }), query: pageQuery },
  responses: { 200: jsonResponse(listOf(DeliverySchema, "WebhookDeliveryList"), "A page of deliveries, newest first."), ...commonErrors },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { limit = 100, start } = c.req.valid("query");
  const page = await listDeliveries(ctxOf(c.var.runtime, c.var.caller), c.req.valid("param").hookId, { limit, start });
  return c.json(page, 200);
};
