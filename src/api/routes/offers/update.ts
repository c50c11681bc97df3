// PATCH /offers/{offerId} — change an offer: extend it, update its targeting, or edit its terms before it runs.
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { ctxOf } from "../../context.ts";
import { commonErrors, invalidWhen, jsonBody, jsonResponse, metadataSchema, uuid } from "../../schemas.ts";
import { ownedBy } from "../../middleware/owned.ts";
import { getOffer, updateOffer } from "../../../services/offers/index.ts";
import {
  activationInput,
  additionalTerms,
  brandLogoURL,
  conflictResponse,
  daysOfWeek,
  feeSplit,
  fees,
  localDateTime,
  maxTransactionAmount,
  minTransactionAmount,
  offerName,
  OFFER_FIELD_RULES,
  OfferSchema,
  returnPeriod,
  schemes,
  targetingInput,
  typeInput,
} from "./schemas.ts";

// Fields of the record that are set at creation: named in the 400 rather than reported as unknown.
const fixed = z
  .unknown()
  .refine(() => false, "cannot be changed after creation")
  .optional()
  // `not: {}` accepts no value: the document says the field cannot be sent, as the server does.
  .openapi({ description: "Set at creation; sending it is a 400.", not: {} } as { description: string });

const body = z
  .strictObject({
    name: offerName.optional(),
    metadata: metadataSchema,
    additionalTerms: additionalTerms.optional(),
    brandLogoURL: brandLogoURL.optional(),
    endDate: localDateTime.optional().openapi({
      description:
        "Must be later than the current date (in the country's main zone) and after startDate. In the first variant " +
        "an extension reaches at most 12 months past the current endDate. A later endDate emits `offer.extended`; " +
        "transactions that already qualified are unaffected.",
    }),
    targeting: targetingInput.nullable().optional().openapi({
      description: "Marketplace/targeting variant only; `null` removes it. On a live offer the change emits `offer.targeting.updated`.",
    }),
    startDate: localDateTime.optional().openapi({ description: "Until the offer is live." }),
    type: typeInput.optional().openapi({ description: "Until the offer is live." }),
    activation: activationInput.optional().openapi({
      description:
        "Until the offer is live; rule 4 applies. On a live offer only `{\"enabled\": false}` is accepted (rule 5: to " +
        "receive every card's transactions, disable activation): from then on every enrolled card's transactions at " +
        "its locations can qualify with no per-card limit; existing activations stay listed as they were (limit null) " +
        "but decide nothing, and cards can no longer be activated or deactivated on the offer (409).",
    }),
    daysOfWeek: daysOfWeek.optional(),
    schemes: schemes.optional(),
    minTransactionAmount: minTransactionAmount.optional(),
    maxTransactionAmount: maxTransactionAmount.optional(),
    returnPeriod: returnPeriod.optional(),
    feeSplit: feeSplit.optional(),
    fees: fees.optional(),
    id: fixed,
    brandId: fixed,
    brandName: fixed,
    countryCode: fixed,
    currency: fixed,
    publisherId: fixed,
    funded: fixed,
    origin: fixed,
    supplier: fixed,
    transactionSource: fixed,
    priority: fixed,
    accepted: fixed,
    status: fixed,
    locationsTotal: fixed,
    live: fixed,
    created: fixed,
    updated: fixed,
    marketplace: fixed,
  })
  .openapi("OfferUpdate", { example: { endDate: "2027-06-30T23:59:59" } });

export const route = createRoute({
  method: "patch",
  path: "/offers/{offerId}",
  tags: ["Offers"],
  summary: "Update or extend an offer",
  description:
    "name, metadata, additionalTerms, brandLogoURL, targeting and endDate can change at any time; the terms that " +
    "decide qualification (startDate, type, activation, daysOfWeek, schemes, min/maxTransactionAmount, returnPeriod, " +
    "feeSplit, fees) only while the offer is `requests` or `upcoming` (409 after) — except that `activation` " +
    "`{\"enabled\": false}` is accepted on a live offer (rule 5). On an offer adopted from the " +
    "marketplace only metadata is yours to change. Fields set at creation or unknown fields are a 400 naming them.",
  middleware: [ownedBy("offerId", getOffer)] as const,
  request: { params: z.object({ offerId: uuid("offerId") }), body: jsonBody(body) },
  responses: {
    200: jsonResponse(OfferSchema, "The offer."),
    ...commonErrors,
    400: invalidWhen([
      ...OFFER_FIELD_RULES,
      "endDate: not later than the current date (service clock, the country's main zone)",
      "endDate: an extension past 12 months after the current endDate (first variant)",
    ]),
    ...conflictResponse("The field cannot change in the offer's status, or the change breaks rule 4."),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) =>
  c.json(await updateOffer(ctxOf(c.var.runtime, c.var.caller), c.req.valid("param").offerId, c.req.valid("json")), 200);
