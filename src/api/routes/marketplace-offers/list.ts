// GET /marketplace-offers — content providers' offers you can add to a program.
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { ctxOf } from "../../context.ts";
import { commonErrors, countryCode, jsonResponse, limitParam, listOf, startParam, trimmedText } from "../../schemas.ts";
import { SCHEMES } from "../../../domain/card-number.ts";
import { listMarketplaceOffers } from "../../../services/offers/index.ts";
import { channel, MarketplaceOfferSchema } from "./schemas.ts";

const param = (name: string) => ({ param: { name, in: "query" as const } });

const query = z.object({
  limit: limitParam,
  start: startParam,
  brandName: trimmedText(200).optional().openapi({ ...param("brandName"), description: "Only this brand (case-insensitive).", example: "Brightside Coffee" }),
  channel: channel.optional().openapi({ ...param("channel"), example: "online" }),
  countryCode: countryCode.optional().openapi({ ...param("countryCode") }),
  scheme: z.enum(SCHEMES, { message: "must be visa, mastercard or amex" }).optional().openapi({ ...param("scheme"), description: "Only offers running on this card network.", example: "visa" }),
  availability: z.enum(["available", "all"], { message: "must be available or all" }).optional().openapi({
    ...param("availability"),
    description: "`available` (default): not ended and not yet added by you. `all`: every marketplace offer.",
  }),
  sort: z.enum(["created", "startDate", "endDate"], { message: "must be created, startDate or endDate" }).optional().openapi({ ...param("sort"), description: "Default created." }),
  order: z.enum(["asc", "desc"], { message: "must be asc or desc" }).optional().openapi({ ...param("order"), description: "Default desc.", example: "asc" }),
});

export const route = createRoute({
  method: "get",
  path: "/marketplace-offers",
  tags: ["Marketplace"],
  summary: "List marketplace offers",
  description:
    "Offers of content providers (merchants and affiliate networks). By default only those available to you: not " +
    "ended and not yet added. Add one with `POST /marketplace-offers/{offerId}/programs/{programId}`.",
  request: { query },
  responses: { 200: jsonResponse(listOf(MarketplaceOfferSchema, "MarketplaceOfferList"), "A page of marketplace offers."), ...commonErrors },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { limit = 100, start, brandName, channel: ch, countryCode: country, scheme, availability = "available", sort = "created", order = "desc" } =
    c.req.valid("query");
  return c.json(
    await listMarketplaceOffers(
      ctxOf(c.var.runtime, c.var.caller),
      { brandName, channel: ch, countryCode: country, scheme, availability, sort, order },
      { limit, start },
    ),
    200,
  );
};
