// POST /webhook-events/{eventId}/redeliver — send an event again to every hook registered for it.
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { ctxOf } from "../../context.ts";
import { commonErrors, jsonResponse, uuid } from "../../schemas.ts";
import { redeliver } from "../../../services/webhooks/index.ts";

const RedeliverySchema = z
  .object({
    eventId: z.uuid(),
    deliveries: z.number().int().openapi({ description: "New deliveries queued, one per hook registered for the event now." }),
  })
  .openapi("Redelivery");

export const route = createRoute({
  method: "post",
  path: "/webhook-events/{eventId}/redeliver",
  tags: ["Hooks"],
  summary: "Deliver an event again",
  description: "The event keeps its id, so `webhook-id` is the same as on the first delivery and receivers can de-duplicate.",
  request: { params: z.object({ eventId: uuid("eventId") }) },
  responses: { 202: jsonResponse(RedeliverySchema, "Deliveries queued."), ...commonErrors },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) =>
  c.json(await redeliver(ctxOf(c.var.runtime, c.var.caller), c.req.valid("param").eventId, c.var.runtime.clock.now()), 202);
