// The operator as content provider: POST /admin/marketplace-offers, POST /admin/marketplace-offers/seed
// (the simulated marketplace) and PATCH /admin/marketplace-offers/{offerId} (extend or retarget).
import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { notFound } from "../../errors.ts";
import { commonErrors, invalidWhen, jsonBody, jsonResponse, uuid } from "../../schemas.ts";
import { createMarketplaceOffer, updateMarketplaceOffer } from "../../../services/offers/index.ts";
import { seedMarketplace } from "../../../services/offers/index.ts";
import { OFFER_FIELD_RULES, localDateTime, targetingInput } from "../offers/schemas.ts";
import { MarketplaceOfferAdminSchema, MarketplaceOfferCreateSchema } from "../marketplace-offers/schemas.ts";

const create = createRoute({
  method: "post",
  path: "/marketplace-offers",
  tags: ["Admin"],
  summary: "Put a content provider's offer on the marketplace",
  description: "The offer rules apply as for `POST /v1/offers`; marketplace offers are of the marketplace/targeting variant (fees).",
  security: [{ AdminToken: [] }],
  request: { body: jsonBody(MarketplaceOfferCreateSchema) },
  responses: {
    201: jsonResponse(MarketplaceOfferAdminSchema, "The marketplace offer."),
    ...commonErrors,
    400: invalidWhen(OFFER_FIELD_RULES),
  },
});

const seed = createRoute({
  method: "post",
  path: "/marketplace-offers/seed",
  tags: ["Admin"],
  summary: "Fill the simulated marketplace",
  description: "Generates realistic content-provider offers from `seed`: the same seed at the same service time gives the same offers.",
  security: [{ AdminToken: [] }],
  request: {
    body: jsonBody(
      z
        .strictObject({
          count: z.number().int("must be a whole number").min(1, "must be 1 to 100").max(100, "must be 1 to 100"),
          seed: z.number().int("must be a whole number").min(0, "must be 0 or more").optional().openapi({ description: "Default 1." }),
        })
        .openapi("MarketplaceSeed", { example: { count: 20, seed: 7 } }),
    ),
  },
  responses: {
    201: jsonResponse(
      z
        .object({ created: z.number().int(), items: z.array(MarketplaceOfferAdminSchema) })
        .openapi("MarketplaceSeedResult", { example: { created: 20, items: [] } }),
      "The offers put on the marketplace.",
    ),
    ...commonErrors,
  },
});

const update = createRoute({
  method: "patch",
  path: "/marketplace-offers/{offerId}",
  tags: ["Admin"],
  summary: "Extend or retarget a marketplace offer",
  description:
    "The content provider's change reaches every publisher who adopted the offer: a later endDate emits " +
    "`offer.extended` to each, and a targeting change of a live adopted offer `offer.targeting.updated`. endDate " +
    "must be later than the current date; the marketplace variant has no 12-month cap.",
  security: [{ AdminToken: [] }],
  request: {
    params: z.object({ offerId: uuid("offerId") }),
    body: jsonBody(
      z
        .strictObject({ endDate: localDateTime.optional(), targeting: targetingInput.nullable().optional() })
        .openapi("MarketplaceOfferUpdate", { example: { endDate: "2027-06-30T23:59:59" } }),
    ),
  },
  responses: {
    200: jsonResponse(MarketplaceOfferAdminSchema, "The marketplace offer."),
    ...commonErrors,
    400: invalidWhen([...OFFER_FIELD_RULES, "endDate: not later than the current date (service clock, the country's main zone)"]),
  },
});

export function mountMarketplaceOffers(r: OpenAPIHono<AppEnv>) {
  r.openapi(create, async (c) => {
    const { db, clock } = c.var.runtime;
    return c.json(await createMarketplaceOffer(db, c.req.valid("json"), clock.now()), 201);
  });
  r.openapi(seed, async (c) => {
    const { db, clock } = c.var.runtime;
    const { count, seed: s = 1 } = c.req.valid("json");
    const items = await seedMarketplace(db, { count, seed: s }, clock.now());
    return c.json({ created: items.length, items }, 201);
  });
  r.openapi(update, async (c) => {
    const { db, clock } = c.var.runtime;
    const { offerId } = c.req.valid("param");
    const offer = await updateMarketplaceOffer(db, offerId, c.req.valid("json"), clock.now());
    if (!offer) throw notFound("marketplace offer", offerId);
    return c.json(offer, 200);
  });
}
