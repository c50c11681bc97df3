// GET /programs/{programId}/mid-insights/exports/{exportId} — an export and its recorded recipients.
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { ctxOf } from "../../context.ts";
import { jsonResponse, uuid } from "../../schemas.ts";
import { getMidInsightExport } from "../../../services/mid-insights/index.ts";
import { MidInsightExportSchema, insightsErrors, insightsRoute } from "./schemas.ts";

export const route = createRoute({
  method: "get",
  path: "/programs/{programId}/mid-insights/exports/{exportId}",
  ...insightsRoute,
  summary: "Get a MID insights export",
  request: { params: z.object({ programId: uuid("programId"), exportId: uuid("exportId") }) },
  responses: { 200: jsonResponse(MidInsightExportSchema, "The export."), ...insightsErrors },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { programId, exportId } = c.req.valid("param");
  return c.json(await getMidInsightExport(ctxOf(c.var.runtime, c.var.caller), programId, exportId), 200);
};
