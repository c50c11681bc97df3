// GET /requests/{requestLogId}/webhook-events — the webhook events a request caused: the environment's events
// about the record it made or changed (its `resourceId`), from the request on.
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { ctxOf } from "../../context.ts";
import { commonErrors, jsonResponse, listOf, pageQuery } from "../../schemas.ts";
import { getRequest } from "../../../services/request-log/index.ts";
import { listWebhookEventsAbout } from "../../../services/webhooks/index.ts";
import { WebhookEventRecordSchema } from "../webhook-events/schemas.ts";
import { requestIdParam } from "./schemas.ts";

export const route = createRoute({
  method: "get",
  path: "/requests/{requestLogId}/webhook-events",
  tags: ["Request log"],
  summary: "List the webhook events a request caused",
  description:
    "The events about the record the request made or changed (its `resourceId`: a test purchase's transaction, a location, a " +
    "missing transaction request, an offer) written from the request's arrival on, newest first, with their payloads and " +
    "deliveries (GET /webhook-events/{eventId} has every attempt). Later requests on the same record add theirs: a purchase's " +
    "list has the clearing's events once it is cleared. A read, or a request that failed, caused none (an empty list).",
  request: { params: z.object({ requestLogId: requestIdParam("requestLogId", "path") }), query: pageQuery },
  responses: { 200: jsonResponse(listOf(WebhookEventRecordSchema, "RequestWebhookEventList"), "A page of events, newest first."), ...commonErrors },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { limit = 100, start } = c.req.valid("query");
  const ctx = ctxOf(c.var.runtime, c.var.caller);
  const request = await getRequest(ctx, c.req.valid("param").requestLogId);
  if (!request.resourceId) return c.json({ items: [], count: 0 }, 200);
  return c.json(await listWebhookEventsAbout(ctx, { resourceId: request.resourceId, since: new Date(request.created) }, { limit, start }), 200);
};
