// Webhook delivery routes: a hook's deliveries and redelivery of an event.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import * as listDeliveries from "./list-deliveries.ts";
import * as redeliver from "./redeliver.ts";

export function mountWebhookEvents(r: OpenAPIHono<AppEnv>) {
  r.openapi(listDeliveries.route, listDeliveries.handler);
  r.openapi(redeliver.route, redeliver.handler);
}
