// GET /programs/{programId}/webhook-events — the program's webhook events with their payloads, newest first.
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { ctxOf } from "../../context.ts";
import { commonErrors, instantQuery, jsonResponse, limitParam, listOf, startParam, uuid } from "../../schemas.ts";
import { HOOK_EVENTS } from "../../../services/webhooks/index.ts";
import { EVENT_STATUSES, listWebhookEvents } from "../../../services/webhooks/index.ts";
import { WebhookEventRecordSchema } from "./schemas.ts";

const query = z.object({
  limit: limitParam,
  start: startParam,
  event: z
    .enum(HOOK_EVENTS, { message: `must be one of ${HOOK_EVENTS.join(", ")}` })
    .optional()
    .openapi({ param: { name: "event", in: "query" } }),
  transactionId: z
    .uuid({ message: "must be a UUID" })
    .optional()
    .openapi({ param: { name: "transactionId", in: "query" }, description: "Only the events of this transaction (one per stage)." }),
  status: z
    .enum(EVENT_STATUSES, { message: `must be one of ${EVENT_STATUSES.join(", ")}` })
    .optional()
    .openapi({ param: { name: "status", in: "query" } }),
  from: instantQuery("from", "Only events that happened at or after this service time."),
  to: instantQuery("to", "Only events that happened before this service time."),
});

export const route = createRoute({
  method: "get",
  path: "/programs/{programId}/webhook-events",
  tags: ["Webhook events"],
  summary: "List a program's webhook events",
  description:
    "Every event written for the program, newest first, with the payload its deliveries carry, where it stands (`status`) " +
    "and its deliveries (without their attempts: `GET /webhook-events/{eventId}` has those). Offer events, which go to the " +
    "publisher's hooks on every program, are in every program's list.",
  request: { params: z.object({ programId: uuid("programId") }), query },
  responses: { 200: jsonResponse(listOf(WebhookEventRecordSchema, "WebhookEventList"), "A page of events."), ...commonErrors },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { limit = 100, start, event, transactionId, status, from, to } = c.req.valid("query");
  const page = await listWebhookEvents(
    ctxOf(c.var.runtime, c.var.caller),
    c.req.valid("param").programId,
    {
      ...(event ? { event } : {}),
      ...(transactionId ? { transactionId } : {}),
      ...(status ? { status } : {}),
      ...(from ? { from: new Date(from) } : {}),
      ...(to ? { to: new Date(to) } : {}),
    },
    { limit, start },
  );
  return c.json(page, 200);
};
