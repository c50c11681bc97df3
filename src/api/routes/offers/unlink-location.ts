// DELETE /offers/{offerId}/locations/{locationId} — unlink a location from an offer.
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { ctxOf } from "../../context.ts";
import { commonErrors, uuid } from "../../schemas.ts";
import { unlinkLocation } from "../../../services/offers/index.ts";

export const route = createRoute({
  method: "delete",
  path: "/offers/{offerId}/locations/{locationId}",
  tags: ["Offers"],
  summary: "Unlink a location from an offer",
  description: "Transactions at the location stop qualifying for the offer. 404 when the location is not linked to it.",
  request: { params: z.object({ offerId: uuid("offerId"), locationId: uuid("locationId") }) },
  responses: { 204: { description: "Unlinked." }, ...commonErrors },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { offerId, locationId } = c.req.valid("param");
  await unlinkLocation(ctxOf(c.var.runtime, c.var.caller), offerId, locationId);
  return c.body(null, 204);
};
