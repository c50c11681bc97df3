// GET /webhook-events/{eventId} — one event: its payload and every attempt of every delivery.
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { ctxOf } from "../../context.ts";
import { commonErrors, jsonResponse, uuid } from "../../schemas.ts";
import { getWebhookEvent } from "../../../services/webhooks/index.ts";
import { WebhookEventDetailSchema } from "./schemas.ts";

export const route = createRoute({
  method: "get",
  path: "/webhook-events/{eventId}",
  tags: ["Webhook events"],
  summary: "Get a webhook event with every attempt",
  description:
    "The event's payload and each delivery with every attempt: the request headers sent (the signature among them, never " +
    "the secret), the answer's status, the latency and the first 4 KB of the answer's body.",
  request: { params: z.object({ eventId: uuid("eventId") }) },
  responses: { 200: jsonResponse(WebhookEventDetailSchema, "The event."), ...commonErrors },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) =>
  c.json(await getWebhookEvent(ctxOf(c.var.runtime, c.var.caller), c.req.valid("param").eventId), 200);
