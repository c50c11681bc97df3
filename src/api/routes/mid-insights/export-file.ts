// GET /programs/{programId}/mid-insights/exports/{exportId}/file — download an export's file.
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { ctxOf } from "../../context.ts";
import { uuid } from "../../schemas.ts";
import { EXPORT_COLUMNS, contentType, exportFileName } from "../../../domain/mid-insight-export.ts";
import { openMidInsightExportFile } from "../../../services/mid-insights/index.ts";
import { insightsErrors, insightsRoute } from "./schemas.ts";

/** A JSON export: an array of records with every column, each a string or null. */
const ExportFileRecords = z
  .array(z.strictObject(Object.fromEntries(EXPORT_COLUMNS.map((column) => [column, z.string().nullable()]))))
  .openapi("MidInsightExportFileRecords", { description: "The JSON file: one record per insight, every column, as in the CSV." });

export const route = createRoute({
  method: "get",
  path: "/programs/{programId}/mid-insights/exports/{exportId}/file",
  ...insightsRoute,
  summary: "Download a MID insights export",
  request: { params: z.object({ programId: uuid("programId"), exportId: uuid("exportId") }) },
  responses: {
    200: {
      description:
        "The file, as an attachment: CSV with a header row, or a JSON array of insights. A CSV cell starting with `=`, `+`, `-`, `@`, a tab or a carriage return is prefixed with `'` so spreadsheets show it as text, never run it as a formula.",
      content: {
        "text/csv": { schema: z.string().openapi({ example: "id,brandId,locationId,...\r\n" }) },
        "application/json": { schema: ExportFileRecords },
      },
    },
    ...insightsErrors,
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { programId, exportId } = c.req.valid("param");
  const { export: found, file } = await openMidInsightExportFile(ctxOf(c.var.runtime, c.var.caller), programId, exportId);
  return new Response(file, {
    status: 200,
    headers: {
      "Content-Type": contentType(found.format),
      "Content-Disposition": `attachment; filename="${exportFileName(found.id, found.format)}"`,
    },
  });
};
