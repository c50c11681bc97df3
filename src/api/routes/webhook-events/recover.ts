// POST /hooks/{hookId}/recover — deliver again, to this hook, every event whose delivery to it failed in a
// window, whether it failed for good or waits for a retry.
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { ctxOf } from "../../context.ts";
import { commonErrors, invalidWhen, jsonBody, jsonResponse, uuid } from "../../schemas.ts";
import { recoverHook } from "../../../services/webhooks/index.ts";
import { getHook } from "../../../services/webhooks/index.ts";
import { ownedBy } from "../../middleware/owned.ts";
import { rule } from "../../validation.ts";

const instant = z.iso.datetime({ offset: true, ...rule("must be an ISO 8601 date-time, e.g. 2026-01-05T10:00:00Z") }).max(64);

const body = z
  .strictObject({
    since: instant.openapi({ description: "Events that happened at or after this service time …" }),
    until: instant.optional().openapi({ description: "… and before this one (default: now, service time)." }),
  })
  .openapi("HookRecovery", { example: { since: "2026-01-05T10:00:00Z" } });

const RecoveredSchema = z
  .object({
    hookId: z.uuid(),
    since: z.string().openapi({ format: "date-time" }),
    until: z.string().openapi({ format: "date-time" }),
    deliveries: z.number().int().openapi({ description: "Deliveries that go now: `failed` plus `retrying`." }),
    failed: z.number().int().openapi({ description: "Events whose delivery failed for good (every retry spent, or a 410), queued again: a new delivery each." }),
    retrying: z.number().int().openapi({
      description: "Deliveries whose last attempt failed and that waited for a scheduled retry: due at once, the scheduled retry dropped.",
    }),
  })
  .openapi("HookRecovered");

export const route = createRoute({
  method: "post",
  path: "/hooks/{hookId}/recover",
  tags: ["Webhook events"],
  summary: "Deliver again every event that failed at this hook in a window",
  description:
    "As Svix's recover, for a receiver that is back: each event of the window whose delivery to this hook failed for good (every " +
    "retry spent, or a 410), and that has no delivery to it pending or succeeded since, is queued again for this hook; and each " +
    "delivery whose last attempt failed and that waits for a scheduled retry goes at once, its scheduled retry dropped (it keeps its " +
    "attempt count: should it fail again, the schedule goes on from there). An event delivered to the hook is never sent again. " +
    "The hook's pause after its failures is lifted, so the first of them goes at once. Every delivery keeps its event id, so " +
    "`webhook-id` is the one the receiver saw. The window is on the events' service time. A disabled hook keeps them until it is " +
    "re-enabled (`PATCH /hooks/{hookId} {\"enabled\": true}`).",
  middleware: [ownedBy("hookId", getHook)] as const,
  request: { params: z.object({ hookId: uuid("hookId") }), body: jsonBody(body) },
  responses: {
    202: jsonResponse(RecoveredSchema, "Deliveries queued."),
    ...commonErrors,
    400: invalidWhen(["`until` not later than `since`"]),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { since, until } = c.req.valid("json");
  const result = await recoverHook(ctxOf(c.var.runtime, c.var.caller), c.req.valid("param").hookId, {
    since: new Date(since),
    ...(until ? { until: new Date(until) } : {}),
  }, c.var.runtime.clock.now());
  return c.json(result, 202);
};
