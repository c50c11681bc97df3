// The offer record and activation record as the API shows them, and the fields offer inputs share
// (also used by the marketplace routes).
import { z } from "@hono/zod-openapi";
import { ErrorBodySchema, trimmedText } from "../../schemas.ts";
import { LOCAL_DATE_TIME_PATTERN, isLocalDateTime } from "../../../domain/local-dates.ts";
import { SCHEMES } from "../../../domain/card-number.ts";
import { FUNDING_TYPES, TARGETING_MAX_DAYS, TARGETING_NAMES } from "../../../domain/offer.ts";
import { OFFER_STATUSES } from "../../../domain/offer-status.ts";


/** The offer rules between fields, in words (the 400s of the offer operations name them). */
export const OFFER_FIELD_RULES = [
  "endDate: not after startDate",
  "maxTransactionAmount: below minTransactionAmount",
  "type.maxRewardAmount: on an amount offer",
  "type.value: over 100 on a discount offer (a percentage)",
  "type.value (amount offers), type.maxRewardAmount, min/maxTransactionAmount, feeSplit and fees (amount offers): more decimal places than the currency of countryCode has",
  "feeSplit and fees: over 100 on a discount offer",
  "activation.qualifiedTransactionsLimit: with activation.enabled false",
  "targeting.from and targeting.to: missing for lapsed or existing targeting, or from not less than to",
  "feeSplit: in the marketplace/targeting variant; fees and targeting: in the first variant",
  "countryCode: a country without a currency",
  "funded.id: missing when funded.type is not card-linking",
];

export const localDateTime = z
  .string()
  .refine(isLocalDateTime, "must be a local date-time YYYY-MM-DDThh:mm:ss (no zone)")
  .openapi({
    description: "Local to the location: `YYYY-MM-DDThh:mm:ss`, no zone; a real calendar date, years 0001 to 9999.",
    example: "2026-02-01T00:00:00",
    pattern: LOCAL_DATE_TIME_PATTERN,
    maxLength: 19,
  });

/** A UUID field of a body: "required" when missing, like every other field. */
export const uuidField = () => z.uuid({ error: (issue) => (issue.input === undefined ? "required" : "must be a UUID") });

export const offerName = trimmedText(200);

const amount = z.number().finite().min(0, "must be 0 or more");
const positive = z.number().finite().positive("must be greater than 0");

export const typeInput = z
  .strictObject({
    name: z.enum(["amount", "discount"], { message: "must be amount or discount" }),
    value: positive.openapi({ description: "A currency amount (in the country's currency) for `amount`, a percentage for `discount`." }),
    maxRewardAmount: positive.nullable().optional().openapi({ description: "Cap on the reward, discount offers only." }),
  })
  .openapi({ example: { name: "discount", value: 10, maxRewardAmount: 25 } });

export const activationInput = z
  .strictObject({
    enabled: z.boolean(),
    qualifiedTransactionsLimit: z
      .number()
      .int("must be a whole number")
      .min(1, "must be at least 1")
      .optional()
      .openapi({ description: "Transactions that qualify per activation on a card (default 1); then the offer deactivates on it." }),
  })
  .openapi({ example: { enabled: true, qualifiedTransactionsLimit: 3 } });

const unique = <T>(values: T[]) => new Set(values).size === values.length;

export const daysOfWeek = z
  .array(z.number().int("must be a whole number").min(0, "must be 0 to 6").max(6, "must be 0 to 6"))
  .min(1, "must name at least one day")
  .max(7, "must name at most 7 days")
  .refine(unique, "must not repeat a day")
  .openapi({ uniqueItems: true, description: "Days the offer runs, 0 = Sunday to 6 = Saturday (default every day).", example: [1, 2, 3, 4, 5] });

export const schemes = z
  .array(z.enum(SCHEMES, { message: "must be visa, mastercard or amex" }))
  .min(1, "must name at least one scheme")
  .max(SCHEMES.length, `must name at most ${SCHEMES.length} schemes`)
  .refine(unique, "must not repeat a scheme")
  .openapi({ uniqueItems: true, description: "Card networks the offer runs on (default all three).", example: ["visa", "mastercard"] });

export const minTransactionAmount = amount.openapi({ description: "Smallest transaction that qualifies (default 0)." });
export const maxTransactionAmount = amount.nullable().openapi({
  description: "Deprecated in favour of `type.maxRewardAmount`; accepted and returned, not used to qualify.",
  deprecated: true,
});
export const returnPeriod = z
  .number()
  .int("must be a whole number of days")
  .min(0, "must be 0 or more")
  .max(365, "must be at most 365")
  .openapi({ description: "Days after the transaction before it qualifies (default 0: at once)." });

export const feeSplit = amount.openapi({
  description: "Your performance fee (first variant): a currency amount on amount offers, a percentage on discount offers. Default 0.",
});

export const fees = z
  .strictObject({ publisherFee: amount, serviceFee: amount })
  .openapi({ description: "Fees of the marketplace/targeting variant, in place of feeSplit.", example: { publisherFee: 2, serviceFee: 0.5 } });

export const targetingInput = z
  .strictObject({
    name: z.enum(TARGETING_NAMES, { message: "must be new, lapsed or existing" }),
    from: z.number().int("must be a whole number of days").min(0, "must be 0 or more").optional(),
    to: z
      .number()
      .int("must be a whole number of days")
      .min(0, "must be 0 or more")
      .max(TARGETING_MAX_DAYS, `must be at most ${TARGETING_MAX_DAYS} days`)
      .optional(),
  })
  .openapi({
    description:
      "Customer segment: `new` (no transaction in the lookback window), `lapsed` (transacted before, inactive for a " +
      "period), `existing` (transacted recently). `from` and `to` (days) are required for lapsed and existing; `to` at most 365.",
    example: { name: "lapsed", from: 90, to: 365 },
  });

export const additionalTerms = z.string().max(5000, "must be at most 5000 characters").nullable();
export const brandLogoURL = z
  .url({ protocol: /^https?$/, message: "must be an http or https URL" })
  .max(2048, "must be at most 2048 characters")
  .nullable()
  .openapi({ example: "https://example.com/logo.png" });

const party = z.object({ id: z.string(), type: z.enum(FUNDING_TYPES) });

export const OfferSchema = z
  .object({
    id: z.uuid(),
    accepted: z.boolean().openapi({ description: "Whether the brand accepted the offer: true for your own offers; marketplace offers after the brand's approval." }),
    activation: z.object({ enabled: z.boolean(), qualifiedTransactionsLimit: z.number().int().optional() }),
    additionalTerms: z.string().nullable(),
    brandId: z.uuid(),
    brandName: z.string(),
    brandLogoURL: z.string().nullable(),
    countryCode: z.string().openapi({ example: "GBR" }),
    created: z.string().openapi({ format: "date-time" }),
    currency: z.string().openapi({ description: "ISO 4217, derived from countryCode.", example: "GBP" }),
    daysOfWeek: z.array(z.number().int()),
    endDate: z.string().nullable().openapi({ description: "Local `YYYY-MM-DDThh:mm:ss`; 12 months after startDate unless given." }),
    feeSplit: z.number().nullable().openapi({ description: "First variant; null in the marketplace/targeting variant." }),
    fees: z.object({ publisherFee: z.number(), serviceFee: z.number() }).nullable().openapi({ description: "Marketplace/targeting variant; null in the first." }),
    funded: party,
    live: z.boolean(),
    locationsTotal: z.number().int().openapi({ description: "Linked locations; always -1 when transactionSource is oaas." }),
    maxTransactionAmount: z.number().nullable().openapi({ deprecated: true, description: "Deprecated in favour of type.maxRewardAmount." }),
    minTransactionAmount: z.number(),
    metadata: z.record(z.string(), z.unknown()).nullable(),
    name: z.string(),
    origin: party.openapi({ description: "The account that created the offer: you (card-linking) or a content provider." }),
    priority: z.literal(1).nullable().openapi({ description: "First variant only: unused, always 1. null in the marketplace/targeting variant (fees, targeting or oaas)." }),
    publisherId: z.uuid(),
    returnPeriod: z.number().int(),
    schemes: z.array(z.enum(SCHEMES)),
    startDate: z.string().openapi({ description: "Local `YYYY-MM-DDThh:mm:ss`." }),
    status: z.enum(OFFER_STATUSES).openapi({
      description:
        "At service time, with dates read in the main time zone of countryCode: `expired` after endDate; `requests` " +
        "with no linked location (or, for a marketplace offer, until its brand accepts); `upcoming` with a location " +
        "before startDate; `live` from startDate to endDate — at once for a past startDate. An oaas offer has no " +
        "linked locations, so it is never `upcoming`: it starts in `requests` and stays there until startDate, then is " +
        "`live` without any location (with a past startDate, at once).",
    }),
    supplier: party.nullable(),
    targeting: z.object({ name: z.enum(TARGETING_NAMES), from: z.number().int().nullable(), to: z.number().int().nullable() }).nullable(),
    type: z.object({ name: z.enum(["amount", "discount"]), value: z.number(), maxRewardAmount: z.number().nullable() }),
    transactionSource: z.literal("oaas").nullable(),
    updated: z.string().openapi({ format: "date-time" }),
    marketplace: z
      .object({
        offerId: z.uuid().openapi({ description: "The marketplace offer this one was adopted from." }),
        programId: z.uuid().nullable(),
        approval: z.enum(["pending", "accepted", "declined"]),
      })
      .nullable()
      .openapi({ description: "Set on offers adopted from the marketplace; null on your own." }),
  })
  .openapi("Offer", {
    example: {
      id: "6b1f8a52-3c4d-4e5f-8a9b-0c1d2e3f4a5b",
      accepted: true,
      activation: { enabled: false },
      additionalTerms: null,
      brandId: "3f2b9c1e-8d4a-4b6e-9f1a-2c3d4e5f6a7b",
      brandName: "Coffee House",
      brandLogoURL: null,
      countryCode: "GBR",
      created: "2026-01-05T12:00:00.000Z",
      currency: "GBP",
      daysOfWeek: [0, 1, 2, 3, 4, 5, 6],
      endDate: "2027-01-05T00:00:00",
      feeSplit: 1.5,
      fees: null,
      funded: { id: "9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a", type: "card-linking" },
      live: false,
      locationsTotal: 1,
      maxTransactionAmount: null,
      minTransactionAmount: 5,
      metadata: null,
      name: "10% off coffee",
      origin: { id: "9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a", type: "card-linking" },
      priority: 1,
      publisherId: "9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a",
      returnPeriod: 0,
      schemes: ["visa", "mastercard", "amex"],
      startDate: "2026-01-05T00:00:00",
      status: "live",
      supplier: null,
      targeting: null,
      type: { name: "discount", value: 10, maxRewardAmount: 25 },
      transactionSource: null,
      updated: "2026-01-05T12:00:00.000Z",
      marketplace: null,
    },
  });

export const ActivationSchema = z
  .object({
    offerId: z.uuid(),
    cardId: z.uuid(),
    state: z.enum(["not activated", "activated", "deactivated"]),
    qualifiedTransactions: z.number().int().openapi({ description: "Qualified transactions counted on this activation." }),
    qualifiedTransactionsLimit: z.number().int().nullable().openapi({ description: "The offer's limit; at it the offer deactivates on the card." }),
    activated: z.string().nullable().openapi({ format: "date-time" }),
    deactivated: z.string().nullable().openapi({ format: "date-time" }),
    deactivationReason: z.enum(["publisher", "limit"]).nullable(),
  })
  .openapi("OfferActivation", {
    example: {
      offerId: "6b1f8a52-3c4d-4e5f-8a9b-0c1d2e3f4a5b",
      cardId: "1a2b3c4d-5e6f-4a8b-9c0d-1e2f3a4b5c6d",
      state: "activated",
      qualifiedTransactions: 0,
      qualifiedTransactionsLimit: 1,
      activated: "2026-01-05T12:00:00.000Z",
      deactivated: null,
      deactivationReason: null,
    },
  });

/** A 409 answer: the offer's state or its brand's other offers break a rule; the message names it. */
export const conflictResponse = (description: string) => ({
  409: { description, content: { "application/json": { schema: ErrorBodySchema } } },
});
