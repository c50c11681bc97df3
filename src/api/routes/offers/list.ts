// GET /offers — your offers in the key's environment, newest first, filtered by status, brand,
// country or 'expiring soon'.
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { ctxOf } from "../../context.ts";
import { commonErrors, countryCode, jsonResponse, limitParam, listOf, startParam } from "../../schemas.ts";
import { DEFAULT_EXPIRING_DAYS, OFFER_STATUSES } from "../../../domain/offer-status.ts";
import { listOffers } from "../../../services/offers/index.ts";
import { OfferSchema } from "./schemas.ts";

const query = z.object({
  limit: limitParam,
  start: startParam,
  status: z
    .enum(OFFER_STATUSES, { message: "must be requests, upcoming, live or expired" })
    .optional()
    .openapi({ param: { name: "status", in: "query" }, description: "Only offers in this status now.", example: "live" }),
  brandId: z
    .uuid({ message: "must be a UUID" })
    .optional()
    .openapi({ param: { name: "brandId", in: "query" }, description: "Only this brand's offers." }),
  programId: z
    .uuid({ message: "must be a UUID" })
    .optional()
    .openapi({
      param: { name: "programId", in: "query" },
      description:
        "Only the program's offers: those linked to at least one of its locations, or added to it from the marketplace. " +
        "An offer linked to no location yet belongs to no program and is left out.",
    }),
  countryCode: countryCode.optional().openapi({ param: { name: "countryCode", in: "query" }, description: "Only offers in this country." }),
  expiresWithin: z
    .string()
    .max(10, "must be between 1 and 365")
    .regex(/^\d+$/, "must be digits")
    .transform(Number)
    .refine((n) => n >= 1 && n <= 365, "must be between 1 and 365")
    .optional()
    .openapi({
      param: { name: "expiresWithin", in: "query" },
      type: "string",
      description: "Only live offers whose endDate falls within this many days ('expiring soon').",
      example: "30",
      pattern: "^0*([1-9][0-9]?|[12][0-9][0-9]|3[0-5][0-9]|36[0-5])$",
      maxLength: 10,
    }),
  expiringSoon: z
    .enum(["true", "false"], { message: "must be true or false" })
    .optional()
    .openapi({
      param: { name: "expiringSoon", in: "query" },
      description: `\`true\`: the dashboard's 'expiring soon' group, live offers ending within expiresWithin days (default ${DEFAULT_EXPIRING_DAYS}).`,
    }),
});

export const route = createRoute({
  method: "get",
  path: "/offers",
  tags: ["Offers"],
  summary: "List offers",
  description:
    "Status filters are computed in the database from the same rule as each offer's `status` (the start and end " +
    "instants in the country's main time zone, linked locations, marketplace approval), so pages and counts agree with it. " +
    "`programId` names a program of yours (404 for any other).",
  request: { query },
  responses: { 200: jsonResponse(listOf(OfferSchema, "OfferList"), "A page of offers."), ...commonErrors },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { limit = 100, start, status, brandId, programId, countryCode: country, expiresWithin, expiringSoon } = c.req.valid("query");
  const within = expiresWithin ?? (expiringSoon === "true" ? DEFAULT_EXPIRING_DAYS : undefined);
  return c.json(
    await listOffers(
      ctxOf(c.var.runtime, c.var.caller),
      { status, brandId, programId, countryCode: country, expiresWithin: within },
      { limit, start },
    ),
    200,
  );
};
