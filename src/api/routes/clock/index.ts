// Clock routes: an environment's time, and a sandbox's advance.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import * as get from "./get.ts";
import * as advance from "./advance.ts";

export function mountEnvironmentClock(r: OpenAPIHono<AppEnv>) {
  r.openapi(get.route, get.handler);
  r.openapi(advance.route, advance.handler);
}
