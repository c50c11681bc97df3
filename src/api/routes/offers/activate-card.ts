// POST /offers/{offerId}/cards/{cardId} — activate an activation-enabled offer on a card.
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { ctxOf } from "../../context.ts";
import { commonErrors, jsonResponse, uuid } from "../../schemas.ts";
import { activateOffer } from "../../../services/offers/index.ts";
import { ActivationSchema, conflictResponse } from "./schemas.ts";

export const route = createRoute({
  method: "post",
  path: "/offers/{offerId}/cards/{cardId}",
  tags: ["Offers"],
  summary: "Activate an offer on a card",
  description:
    "The card's transactions can then qualify, until qualifiedTransactionsLimit of them have (then the offer " +
    "deactivates on the card) or you deactivate it. 201 when activated now, 200 when it was active already. 409 " +
    "for an offer without activation, an expired offer, a card on which it was deactivated (a deactivation is " +
    "final), or a card whose enrolment failed (`status` failed); 400 when the card's scheme is not among the offer's schemes.",
  request: { params: z.object({ offerId: uuid("offerId"), cardId: uuid("cardId") }) },
  responses: {
    201: jsonResponse(ActivationSchema, "Activated."),
    200: jsonResponse(ActivationSchema, "Already activated."),
    ...commonErrors,
    ...conflictResponse("The offer cannot be activated on this card."),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { offerId, cardId } = c.req.valid("param");
  const { activation, created } = await activateOffer(ctxOf(c.var.runtime, c.var.caller), offerId, cardId);
  return created ? c.json(activation, 201) : c.json(activation, 200);
};
