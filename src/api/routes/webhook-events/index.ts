// Webhook event routes: a program's events and one event with every attempt, a hook's deliveries,
// redelivery of an event and recovery of what failed at a hook.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import * as list from "./list.ts";
import * as get from "./get.ts";
import * as listDeliveries from "./list-deliveries.ts";
import * as redeliver from "./redeliver.ts";
import * as recover from "./recover.ts";

export function mountWebhookEvents(r: OpenAPIHono<AppEnv>) {
  r.openapi(list.route, list.handler);
  r.openapi(get.route, get.handler);
  r.openapi(listDeliveries.route, listDeliveries.handler);
  r.openapi(redeliver.route, redeliver.handler);
  r.openapi(recover.route, recover.handler);
}
