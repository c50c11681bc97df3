// The marketplace offer record as publishers and the operator see it, and the content provider's input.
import { z } from "@hono/zod-openapi";
import { SCHEMES } from "../../../domain/card-number.ts";
import { CHANNELS, SUPPLIER_TYPES } from "../../../domain/offer-marketplace.ts";
import { TARGETING_NAMES } from "../../../domain/offer.ts";
import { countryCode, trimmedText } from "../../schemas.ts";
import {
  activationInput,
  additionalTerms,
  brandLogoURL,
  daysOfWeek,
  fees,
  localDateTime,
  maxTransactionAmount,
  minTransactionAmount,
  offerName,
  returnPeriod,
  schemes,
  targetingInput,
  typeInput,
} from "../offers/schemas.ts";

export const channel = z.enum(CHANNELS, { message: "must be online or in-store" });

const supplier = z.object({
  id: z.string().openapi({ example: "cp_k2j4h6g8f0d1" }),
  type: z.enum(SUPPLIER_TYPES),
  name: z.string().openapi({ example: "Brightside Rewards" }),
});

const fields = {
  id: z.uuid(),
  name: z.string(),
  brandName: z.string().openapi({ description: "Adopting the offer adds (or reuses) your brand of this name." }),
  brandLogoURL: z.string().nullable(),
  countryCode: z.string(),
  currency: z.string(),
  channels: z.array(channel),
  startDate: z.string().openapi({ description: "Local `YYYY-MM-DDThh:mm:ss`." }),
  endDate: z.string().openapi({ description: "Local `YYYY-MM-DDThh:mm:ss`." }),
  type: z.object({ name: z.enum(["amount", "discount"]), value: z.number(), maxRewardAmount: z.number().nullable() }),
  activation: z.object({ enabled: z.boolean(), qualifiedTransactionsLimit: z.number().int().optional() }),
  daysOfWeek: z.array(z.number().int()),
  schemes: z.array(z.enum(SCHEMES)),
  minTransactionAmount: z.number(),
  maxTransactionAmount: z.number().nullable().openapi({ deprecated: true, description: "Deprecated in favour of type.maxRewardAmount." }),
  returnPeriod: z.number().int(),
  fees: z.object({ publisherFee: z.number(), serviceFee: z.number() }),
  targeting: z.object({ name: z.enum(TARGETING_NAMES), from: z.number().int().nullable(), to: z.number().int().nullable() }).nullable(),
  transactionSource: z.literal("oaas").nullable(),
  additionalTerms: z.string().nullable(),
  supplier: supplier.openapi({ description: "The content provider: a merchant or an affiliate network." }),
  created: z.string().openapi({ format: "date-time" }),
  updated: z.string().openapi({ format: "date-time" }),
};

const example = {
  id: "0f9e8d7c-6b5a-4c3d-9e2f-1a0b9c8d7e6f",
  name: "15% off at Brightside Coffee",
  brandName: "Brightside Coffee",
  brandLogoURL: "https://logos.example.com/brightside.png",
  countryCode: "GBR",
  currency: "GBP",
  channels: ["in-store"],
  startDate: "2026-01-01T00:00:00",
  endDate: "2026-12-31T23:59:59",
  type: { name: "discount", value: 15, maxRewardAmount: 50 },
  activation: { enabled: false },
  daysOfWeek: [0, 1, 2, 3, 4, 5, 6],
  schemes: ["visa", "mastercard", "amex"],
  minTransactionAmount: 10,
  maxTransactionAmount: null,
  returnPeriod: 14,
  fees: { publisherFee: 1, serviceFee: 0.5 },
  targeting: { name: "lapsed", from: 90, to: 365 },
  transactionSource: null,
  additionalTerms: null,
  supplier: { id: "cp_k2j4h6g8f0d1", type: "affiliate", name: "Brightside Rewards" },
  created: "2026-01-02T09:00:00.000Z",
  updated: "2026-01-02T09:00:00.000Z",
};

export const MarketplaceOfferSchema = z
  .object({
    ...fields,
    available: z.boolean().openapi({ description: "Not ended and not yet added to your account in this environment." }),
    addedAs: z.uuid().nullable().openapi({ description: "Your offer adopted from this one, if you added it." }),
  })
  .openapi("MarketplaceOffer", { example: { ...example, available: true, addedAs: null } });

export const MarketplaceOfferAdminSchema = z
  .object({
    ...fields,
    brandDecision: z.object({ decision: z.enum(["accept", "decline"]), afterHours: z.number().int() }).openapi({
      description: "The simulated brand's answer to a publisher who adopts the offer, and after how many hours (live).",
    }),
  })
  .openapi("MarketplaceOfferAdmin", { example: { ...example, brandDecision: { decision: "accept", afterHours: 48 } } });

export const MarketplaceOfferCreateSchema = z
  .strictObject({
    name: offerName,
    brandName: trimmedText(200),
    brandLogoURL: brandLogoURL.optional(),
    countryCode,
    channels: z
      .array(channel)
      .min(1, "must name at least one channel")
      .max(CHANNELS.length, `must name at most ${CHANNELS.length} channels`)
      .refine((v) => new Set(v).size === v.length, "must not repeat a channel")
      .optional()
      .openapi({ uniqueItems: true, description: "Where the offer can be used (default in-store)." }),
    startDate: localDateTime,
    endDate: localDateTime.optional().openapi({ description: "Default 12 months after startDate." }),
    type: typeInput,
    activation: activationInput.optional(),
    daysOfWeek: daysOfWeek.optional(),
    schemes: schemes.optional(),
    minTransactionAmount: minTransactionAmount.optional(),
    maxTransactionAmount: maxTransactionAmount.optional(),
    returnPeriod: returnPeriod.optional(),
    fees: fees.optional().openapi({ description: "Default publisherFee 0, serviceFee 0." }),
    targeting: targetingInput.nullable().optional(),
    transactionSource: z.literal("oaas", { message: "the only value is oaas" }).optional(),
    additionalTerms: additionalTerms.optional(),
    supplier: z
      .strictObject({
        id: trimmedText(200),
        type: z.enum(SUPPLIER_TYPES, { message: "must be merchant or affiliate" }),
        name: trimmedText(200),
      })
      .openapi({ description: "The content provider offering it." }),
    brandDecision: z
      .strictObject({
        decision: z.enum(["accept", "decline"], { message: "must be accept or decline" }),
        afterHours: z.number().int("must be a whole number").min(0, "must be 0 or more").max(24 * 365).optional(),
      })
      .optional()
      .openapi({ description: "How the simulated brand answers adoptions (default accept after 48 hours, live only; test answers at once)." }),
  })
  .openapi("MarketplaceOfferCreate", {
    example: {
      name: "15% off at Brightside Coffee",
      brandName: "Brightside Coffee",
      countryCode: "GBR",
      channels: ["in-store"],
      startDate: "2026-01-01T00:00:00",
      endDate: "2026-12-31T23:59:59",
      type: { name: "discount", value: 15, maxRewardAmount: 50 },
      fees: { publisherFee: 1, serviceFee: 0.5 },
      targeting: { name: "lapsed", from: 90, to: 365 },
      supplier: { id: "cp_k2j4h6g8f0d1", type: "affiliate", name: "Brightside Rewards" },
      brandDecision: { decision: "accept", afterHours: 48 },
    },
  });
