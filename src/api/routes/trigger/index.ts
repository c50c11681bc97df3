// Trigger routes: fixtures and test events for `cardlink trigger` and `cardlink listen`.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import * as fixtures from "./fixtures.ts";
import * as fire from "./fire.ts";

export function mountTrigger(r: OpenAPIHono<AppEnv>) {
  r.openapi(fixtures.route, fixtures.handler);
  r.openapi(fire.route, fire.handler);
}
