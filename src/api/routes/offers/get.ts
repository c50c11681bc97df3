// GET /offers/{offerId}
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { ctxOf } from "../../context.ts";
import { commonErrors, jsonResponse, uuid } from "../../schemas.ts";
import { getOffer } from "../../../services/offers/index.ts";
import { OfferSchema } from "./schemas.ts";

export const route = createRoute({
  method: "get",
  path: "/offers/{offerId}",
  tags: ["Offers"],
  summary: "Get an offer",
  description: "The offer with its status at the current service time.",
  request: { params: z.object({ offerId: uuid("offerId") }) },
  responses: { 200: jsonResponse(OfferSchema, "The offer."), ...commonErrors },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) =>
  c.json(await getOffer(ctxOf(c.var.runtime, c.var.caller), c.req.valid("param").offerId), 200);
