// DELETE /offers/{offerId}/cards/{cardId} — deactivate an offer on a card.
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { ctxOf } from "../../context.ts";
import { commonErrors, uuid } from "../../schemas.ts";
import { deactivateOffer } from "../../../services/offers/index.ts";
import { conflictResponse } from "./schemas.ts";

export const route = createRoute({
  method: "delete",
  path: "/offers/{offerId}/cards/{cardId}",
  tags: ["Offers"],
  summary: "Deactivate an offer on a card",
  description:
    "The card's further transactions no longer qualify; `GET /offers/{offerId}/cards` shows it `deactivated`. 404 " +
    "when the offer was never activated on the card, 409 when it is deactivated already.",
  request: { params: z.object({ offerId: uuid("offerId"), cardId: uuid("cardId") }) },
  responses: { 204: { description: "Deactivated." }, ...commonErrors, ...conflictResponse("Already deactivated.") },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { offerId, cardId } = c.req.valid("param");
  await deactivateOffer(ctxOf(c.var.runtime, c.var.caller), offerId, cardId);
  return c.body(null, 204);
};
