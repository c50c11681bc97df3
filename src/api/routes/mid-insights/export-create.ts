// POST /programs/{programId}/mid-insights/exports — export the filtered list as CSV or JSON.
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { ctxOf } from "../../context.ts";
import { emailAddress, invalidWhen, jsonBody, jsonResponse, uuid } from "../../schemas.ts";
import { rule } from "../../validation.ts";
import { DEFAULT_ORDER, DEFAULT_SORT } from "../../../domain/mid-insights.ts";
import { createMidInsightExport } from "../../../services/mid-insights/index.ts";
import { DATE_BOUNDS_ORDER_RULE, checkDateRange, filterShape, givenFilters, orderParam, sortParam, toFilters } from "./filters.ts";
import { MidInsightExportSchema, insightsErrors, insightsRoute } from "./schemas.ts";

const body = z
  .strictObject({
    format: z.enum(["csv", "json"], rule("must be csv or json")).openapi({ description: "File format." }),
    recipients: z
      .array(emailAddress)
      .min(1, "must list 1 to 5 e-mail addresses")
      .max(5, "must list at most 5 e-mail addresses")
      .refine((list) => new Set(list.map((a) => a.toLowerCase())).size === list.length, "must not repeat an address")
      .optional()
      .openapi({
        description: "Up to five e-mail addresses to send the export to; the account's address when omitted.",
        example: ["finance@example.com", "ops@example.com"],
      }),
    filters: z
      .strictObject(filterShape)
      .superRefine((f, ctx) => checkDateRange(f, ctx))
      .optional()
      .openapi({ description: "The list's filters, with the same names and rules as its query parameters." }),
    sort: sortParam,
    order: orderParam,
  })
  .openapi("MidInsightExportCreate", {
    example: { format: "csv", recipients: ["finance@example.com"], filters: { status: "onboarded" }, sort: "created" },
  });

export const route = createRoute({
  method: "post",
  path: "/programs/{programId}/mid-insights/exports",
  ...insightsRoute,
  summary: "Export MID insights",
  description:
    "Writes every insight matching the filters, in the given sort, to a CSV (RFC 4180, header row) or JSON (array) " +
    "file, and e-mails it, attached, to up to five recipients (a message each) or to the account's e-mail address. The " +
    "service's workers send the mail through the operator's SMTP server, or keep it for the dashboard's mail page when " +
    "none is configured; `mail` says where each message stands. The file is also downloaded from fileUrl.",
  request: { params: z.object({ programId: uuid("programId") }), body: jsonBody(body) },
  responses: {
    201: jsonResponse(MidInsightExportSchema, "The export, with its file ready and its messages queued."),
    ...insightsErrors,
    400: invalidWhen(
      [
        "recipients: missing while the account has no e-mail address",
        "recipients: an address twice (ignoring case)",
        `filters.${DATE_BOUNDS_ORDER_RULE}`,
      ],
      insightsErrors[400].description,
    ),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { programId } = c.req.valid("param");
  const input = c.req.valid("json");
  const filters = input.filters ?? {};
  const created = await createMidInsightExport(ctxOf(c.var.runtime, c.var.caller), programId, {
    format: input.format,
    ...(input.recipients ? { recipients: input.recipients } : {}),
    accountEmail: c.var.caller.account.email,
    given: givenFilters(filters),
    filters: toFilters(filters),
    sort: input.sort ?? DEFAULT_SORT,
    order: input.order ?? DEFAULT_ORDER,
  });
  return c.json(created, 201);
};
