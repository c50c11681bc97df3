// GET /offers/{offerId}/cards — each card's activation state for the offer.
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { ctxOf } from "../../context.ts";
import { commonErrors, jsonResponse, limitParam, listOf, startParam, uuid } from "../../schemas.ts";
import { listOfferCards } from "../../../services/offers/index.ts";
import { ActivationSchema } from "./schemas.ts";

const query = z.object({
  limit: limitParam,
  start: startParam,
  cardId: z
    .uuid({ message: "must be a UUID" })
    .optional()
    .openapi({ param: { name: "cardId", in: "query" }, description: "Exactly this card, `not activated` when it never was." }),
  state: z
    .enum(["not activated", "activated", "deactivated"], { message: "must be not activated, activated or deactivated" })
    .optional()
    .openapi({ param: { name: "state", in: "query" }, example: "activated" }),
});

export const route = createRoute({
  method: "get",
  path: "/offers/{offerId}/cards",
  tags: ["Offers"],
  summary: "List the offer's card activations",
  description:
    "The cards that were activated on the offer, newest first, with their state (`activated` or `deactivated`) and " +
    "qualified-transaction count. Every other card is `not activated`: ask for one with `cardId`.",
  request: { params: z.object({ offerId: uuid("offerId") }), query },
  responses: { 200: jsonResponse(listOf(ActivationSchema, "OfferActivationList"), "A page of activations."), ...commonErrors },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { limit = 100, start, cardId, state } = c.req.valid("query");
  return c.json(
    await listOfferCards(ctxOf(c.var.runtime, c.var.caller), c.req.valid("param").offerId, { cardId, state }, { limit, start }),
    200,
  );
};
