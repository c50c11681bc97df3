// Marketplace routes.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import * as list from "./list.ts";
import * as adopt from "./adopt.ts";

export function mountMarketplaceOffers(r: OpenAPIHono<AppEnv>) {
  r.openapi(list.route, list.handler);
  r.openapi(adopt.route, adopt.handler);
}
