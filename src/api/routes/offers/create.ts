// POST /offers — create an offer of one of your brands in the key's environment.
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { ctxOf } from "../../context.ts";
import { commonErrors, countryCode, invalidWhen, jsonBody, jsonResponse, metadataSchema, trimmedText } from "../../schemas.ts";
import { FUNDING_TYPES } from "../../../domain/offer.ts";
import { createOffer } from "../../../services/offers/index.ts";
import {
  activationInput,
  conflictResponse,
  additionalTerms,
  brandLogoURL,
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
  uuidField,
} from "./schemas.ts";

const body = z
  .strictObject({
    brandId: uuidField().openapi({ description: "One of your brands." }),
    countryCode: countryCode.openapi({ description: "Country where the offer is available; decides its currency and the zone of its status." }),
    name: offerName,
    publisherId: uuidField().openapi({ description: "Your account id." }),
    startDate: localDateTime.openapi({ description: "Local to the location; may be in the past (live at once with a linked location)." }),
    endDate: localDateTime.optional().openapi({ description: "Local to the location; default 12 months after startDate." }),
    type: typeInput,
    activation: activationInput.optional().openapi({ description: "Default `{enabled: false}`." }),
    daysOfWeek: daysOfWeek.optional(),
    schemes: schemes.optional(),
    funded: z
      .strictObject({
        id: trimmedText(200).optional(),
        type: z.enum(FUNDING_TYPES, { message: "must be merchant, card-linking or affiliate" }).optional(),
      })
      .optional()
      .openapi({
        description:
          "Who funds the rewards. Test environment: always you, as card-linking, whatever is sent. Live: default " +
          "you as card-linking; `id` is required for merchant or affiliate funding.",
      }),
    minTransactionAmount: minTransactionAmount.optional(),
    maxTransactionAmount: maxTransactionAmount.optional(),
    returnPeriod: returnPeriod.optional(),
    feeSplit: feeSplit.optional(),
    fees: fees.optional(),
    targeting: targetingInput.nullable().optional(),
    transactionSource: z
      .literal("oaas", { message: "the only value is oaas" })
      .optional()
      .openapi({ description: "`oaas` for the marketplace/targeting variant: no linked locations, locationsTotal -1." }),
    metadata: metadataSchema,
    additionalTerms: additionalTerms.optional(),
    brandLogoURL: brandLogoURL.optional(),
  })
  .openapi("OfferCreate", {
    example: {
      brandId: "3f2b9c1e-8d4a-4b6e-9f1a-2c3d4e5f6a7b",
      countryCode: "GBR",
      name: "10% off coffee",
      publisherId: "9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a",
      startDate: "2026-01-05T00:00:00",
      type: { name: "discount", value: 10, maxRewardAmount: 25 },
      minTransactionAmount: 5,
      feeSplit: 1.5,
    },
  });

export const route = createRoute({
  method: "post",
  path: "/offers",
  tags: ["Offers"],
  summary: "Create an offer",
  description:
    "Creates a card-linked offer of one of your brands. It starts in `requests`; link a location to make it " +
    "`upcoming` (an oaas offer, which takes no location, stays in `requests` until its startDate and is then `live`) " +
    "or, with a past startDate, `live` at once. Defaults: endDate 12 months after startDate, activation " +
    "off (limit 1 when on), every day and scheme, priority 1 (first variant only; null in the marketplace/targeting variant), currency from countryCode. Giving `fees`, `targeting` " +
    "or `transactionSource: oaas` makes the marketplace/targeting variant (fees instead of feeSplit). Rule 4: an " +
    "activation offer and a non-activation offer of one brand cannot run at the same time (409 naming activation.enabled).",
  request: { body: jsonBody(body) },
  responses: {
    201: jsonResponse(OfferSchema, "The offer."),
    ...commonErrors,
    400: invalidWhen([
      ...OFFER_FIELD_RULES,
      "brandId: no brand with this id for this account and environment",
      "publisherId: not your account id",
    ]),
    ...conflictResponse("Another offer of the brand breaks rule 4 with this one (the message names activation.enabled)."),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const offer = await createOffer(ctxOf(c.var.runtime, c.var.caller), c.req.valid("json"));
  return c.json(offer, 201);
};
