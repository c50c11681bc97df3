// DELETE /offers/{offerId} — delete one of your own (self-sourced) offers.
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { ctxOf } from "../../context.ts";
import { commonErrors, uuid } from "../../schemas.ts";
import { deleteOffer } from "../../../services/offers/index.ts";
import { conflictResponse } from "./schemas.ts";

export const route = createRoute({
  method: "delete",
  path: "/offers/{offerId}",
  tags: ["Offers"],
  summary: "Delete an offer",
  description:
    "Only self-sourced offers you created can be deleted, with their location links and card activations. Offers " +
    "from the marketplace or a content provider cannot (409); unlink their locations to stop them.",
  request: { params: z.object({ offerId: uuid("offerId") }) },
  responses: {
    204: { description: "Deleted." },
    ...commonErrors,
    ...conflictResponse("The offer comes from the marketplace or a content provider."),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  await deleteOffer(ctxOf(c.var.runtime, c.var.caller), c.req.valid("param").offerId);
  return c.body(null, 204);
};
