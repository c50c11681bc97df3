// POST /offers/{offerId}/programs/{programId}/locations — link every location of the offer's brand in a program.
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { ctxOf } from "../../context.ts";
import { commonErrors, jsonResponse, uuid } from "../../schemas.ts";
import { linkProgramLocations } from "../../../services/offers/index.ts";
import { OfferSchema } from "./schemas.ts";

export const route = createRoute({
  method: "post",
  path: "/offers/{offerId}/programs/{programId}/locations",
  tags: ["Offers"],
  summary: "Link all of a program's locations of the offer's brand",
  description:
    "Links every location of the offer's brand (in the offer's country) in the program that is not linked yet, " +
    "and answers the offer with its new locationsTotal. Locations added to the program later are not linked by this call.",
  request: { params: z.object({ offerId: uuid("offerId"), programId: uuid("programId") }) },
  responses: { 200: jsonResponse(OfferSchema, "The offer."), ...commonErrors },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { offerId, programId } = c.req.valid("param");
  const { offer } = await linkProgramLocations(ctxOf(c.var.runtime, c.var.caller), offerId, programId);
  return c.json(offer, 200);
};
