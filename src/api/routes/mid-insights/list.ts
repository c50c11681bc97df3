// GET /programs/{programId}/mid-insights — the program's MID insights, filtered, sorted, keyset-paged.
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { ctxOf } from "../../context.ts";
import { invalid } from "../../errors.ts";
import { invalidWhen, jsonResponse, limitParam, uuid } from "../../schemas.ts";
import { DEFAULT_ORDER, DEFAULT_SORT, decodeCursor } from "../../../domain/mid-insights.ts";
import { countMidInsights, listMidInsights } from "../../../services/mid-insights/index.ts";
import { checkDateRange, filterShape, orderParam, sortParam, toFilters } from "./filters.ts";
import { MidInsightSchema, insightsErrors, insightsRoute } from "./schemas.ts";
import { DATE_BOUNDS_ORDER_RULE } from "./filters.ts";

const query = z
  .strictObject({
    ...filterShape,
    limit: limitParam,
    select: z
      .enum(["count"], { message: "the only value is count" })
      .optional()
      .openapi({ description: "count: answer only {count}, the total matching the filters, without items.", example: "count" }),
    sort: sortParam,
    order: orderParam,
    start: z
      .string()
      .min(1, "must not be empty")
      .max(1024, "not a cursor from the `last` field of an earlier response")
      .optional()
      .openapi({
        description:
          "The `last` cursor of the previous page, sent with the same sort and order. Pages are keyset-paged on " +
          "(sort field, id): rows added meanwhile never shift or repeat a later page.",
      }),
  })
  .superRefine((q, ctx) => checkDateRange(q, ctx));

const ListSchema = z
  .object({
    items: z.array(MidInsightSchema),
    count: z.number().int().openapi({ description: "Total number of insights matching the filters." }),
    last: z.string().optional().openapi({ description: "Cursor for the next page, for `start`; absent on the last page." }),
  })
  .openapi("MidInsightList");

const CountSchema = z
  .object({ count: z.number().int().openapi({ description: "Total number of insights matching the filters." }) })
  .openapi("MidInsightCount");

export const route = createRoute({
  method: "get",
  path: "/programs/{programId}/mid-insights",
  ...insightsRoute,
  summary: "List MID insights",
  description:
    "The program's MIDs per card network with their status, identifiers, origin, onboarding and offboarding " +
    "times and first and last transactions seen. Premium tier; live secret key as a Bearer token; version header " +
    "required. Every filter combines with every other (AND); `count` is the total matching them.",
  request: { params: z.object({ programId: uuid("programId") }), query },
  responses: {
    200: jsonResponse(z.union([ListSchema, CountSchema]), "A page of insights, or only the count with select=count."),
    ...insightsErrors,
    400: invalidWhen([DATE_BOUNDS_ORDER_RULE], insightsErrors[400].description),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { programId } = c.req.valid("param");
  const q = c.req.valid("query");
  const ctx = ctxOf(c.var.runtime, c.var.caller);
  const filters = toFilters(q);
  if (q.select === "count") return c.json({ count: await countMidInsights(ctx, programId, filters) }, 200);
  const sort = q.sort ?? DEFAULT_SORT;
  const order = q.order ?? DEFAULT_ORDER;
  let after: { value: string | null; id: string } | undefined;
  if (q.start) {
    const cursor = decodeCursor(q.start, sort, order);
    if (typeof cursor === "string") throw invalid("start", cursor);
    after = { value: cursor.value, id: cursor.id };
  }
  return c.json(await listMidInsights(ctx, programId, filters, { sort, order, limit: q.limit ?? 100, after }), 200);
};
