// Sandbox routes.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import * as create from "./create.ts";
import * as list from "./list.ts";
import * as get from "./get.ts";
import * as remove from "./delete.ts";

export function mountSandboxes(r: OpenAPIHono<AppEnv>) {
  r.openapi(create.route, create.handler);
  r.openapi(list.route, list.handler);
  r.openapi(get.route, get.handler);
  r.openapi(remove.route, remove.handler);
}
