// MID insight routes. A program the caller does not have is 404 before any other check of the request.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../../context.ts";
import { ctxOf } from "../../context.ts";
import { getProgram } from "../../../services/catalog/index.ts";
import { UUID_PATTERN } from "../../../platform/ids.ts";
import * as list from "./list.ts";
import * as offboard from "./offboard.ts";
import * as exportCreate from "./export-create.ts";
import * as exportGet from "./export-get.ts";
import * as exportFile from "./export-file.ts";

// A malformed programId is left to the route's validation (400); a well-formed one must be the caller's.
const programFirst: MiddlewareHandler<AppEnv> = async (c, next) => {
  const programId = c.req.param("programId");
  if (programId && UUID_PATTERN.test(programId)) await getProgram(ctxOf(c.var.runtime, c.var.caller), programId);
  await next();
};

export function mountMidInsights(r: OpenAPIHono<AppEnv>) {
  r.use("/programs/:programId/mid-insights", programFirst);
  r.use("/programs/:programId/mid-insights/*", programFirst);
  r.openapi(list.route, list.handler);
  r.openapi(offboard.route, offboard.handler);
  r.openapi(exportCreate.route, exportCreate.handler);
  r.openapi(exportGet.route, exportGet.handler);
  r.openapi(exportFile.route, exportFile.handler);
}
