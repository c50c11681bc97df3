// Request log routes.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import * as list from "./list.ts";
import * as get from "./get.ts";
import * as webhookEvents from "./webhook-events.ts";

export function mountRequests(r: OpenAPIHono<AppEnv>) {
  r.openapi(list.route, list.handler);
  r.openapi(get.route, get.handler);
  r.openapi(webhookEvents.route, webhookEvents.handler);
}
