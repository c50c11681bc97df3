// POST /marketplace-offers/{offerId}/programs/{programId} — add a marketplace offer to your program.
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { ctxOf } from "../../context.ts";
import { commonErrors, jsonResponse, uuid } from "../../schemas.ts";
import { adoptMarketplaceOffer } from "../../../services/offers/index.ts";
import { conflictResponse, OfferSchema } from "../offers/schemas.ts";

export const route = createRoute({
  method: "post",
  path: "/marketplace-offers/{offerId}/programs/{programId}",
  tags: ["Marketplace"],
  summary: "Add a marketplace offer to a program",
  description:
    "Creates an offer of yours from the marketplace offer (`marketplace.offerId`), for your brand of the same name " +
    "(added when you have none; in live its consent is requested as for any new brand), with the content provider as origin and supplier, and links that brand's locations " +
    "in the program. It waits for the brand's approval (`accepted: false`, status `requests`): the simulated brand " +
    "answers after its delay on the service clock in live, at once in test; a declined offer never goes live. The " +
    "content provider's extensions reach you as `offer.extended`. It cannot be deleted by you. 409 when you added it " +
    "already or it has ended.",
  request: { params: z.object({ offerId: uuid("offerId"), programId: uuid("programId") }) },
  responses: {
    201: jsonResponse(OfferSchema, "Your offer."),
    ...commonErrors,
    ...conflictResponse("Already added, ended, or rule 4 with another offer of the brand."),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { offerId, programId } = c.req.valid("param");
  return c.json(await adoptMarketplaceOffer(ctxOf(c.var.runtime, c.var.caller), offerId, programId), 201);
};
