// Transaction routes: reads, and test transactions through the scheme simulators.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import * as test from "./test.ts";
import * as clear from "./clear.ts";
import * as refund from "./refund.ts";
import * as voidPurchase from "./void.ts";
import * as increment from "./increment.ts";
import * as expire from "./expire.ts";
import * as get from "./get.ts";
import * as list from "./list.ts";
import * as deliveries from "./deliveries.ts";
import * as qualification from "./qualification.ts";

export function mountTransactions(r: OpenAPIHono<AppEnv>) {
  r.openapi(test.route, test.handler);
  r.openapi(clear.route, clear.handler);
  r.openapi(refund.route, refund.handler);
  r.openapi(voidPurchase.route, voidPurchase.handler);
  r.openapi(increment.route, increment.handler);
  r.openapi(expire.route, expire.handler);
  r.openapi(get.route, get.handler);
  r.openapi(list.route, list.handler);
  r.openapi(deliveries.route, deliveries.handler);
  r.openapi(qualification.route, qualification.handler);
}
