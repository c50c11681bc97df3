// POST /offers/{offerId}/locations/{locationId} — link one location to an offer.
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { ctxOf } from "../../context.ts";
import { commonErrors, jsonResponse, uuid } from "../../schemas.ts";
import { linkLocation } from "../../../services/offers/index.ts";
import { OfferSchema } from "./schemas.ts";

export const route = createRoute({
  method: "post",
  path: "/offers/{offerId}/locations/{locationId}",
  tags: ["Offers"],
  summary: "Link a location to an offer",
  description:
    "The location must be yours, of the offer's brand and in the offer's country (400 otherwise). Answers the offer " +
    "with its new locationsTotal: 201 when linked now, 200 when it was linked already. Offers with transactionSource " +
    "oaas link no locations (400).",
  request: { params: z.object({ offerId: uuid("offerId"), locationId: uuid("locationId") }) },
  responses: {
    201: jsonResponse(OfferSchema, "Linked: the offer."),
    200: jsonResponse(OfferSchema, "Already linked: the offer."),
    ...commonErrors,
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { offerId, locationId } = c.req.valid("param");
  const { offer, created } = await linkLocation(ctxOf(c.var.runtime, c.var.caller), offerId, locationId);
  return created ? c.json(offer, 201) : c.json(offer, 200);
};
