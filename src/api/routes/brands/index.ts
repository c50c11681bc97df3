// Brand routes.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import * as create from "./create.ts";
import * as list from "./list.ts";
import * as get from "./get.ts";
import * as consent from "./consent.ts";

export function mountBrands(r: OpenAPIHono<AppEnv>) {
  r.openapi(create.route, create.handler);
  r.openapi(list.route, list.handler);
  r.openapi(get.route, get.handler);
  r.openapi(consent.route, consent.handler);
}
