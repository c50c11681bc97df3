// An update to an offer's terms: which fields a publisher may change, on which offers and when (frozen once
// live, rule 5's one exception), and the terms after it with the events it makes (extended, targeting updated).
import {
  activationFrom,
  endDateProblems,
  termsProblems,
  type Fees,
  type OfferTerms,
  type OfferTypeName,
  type OfferVariant,
  type Problem,
  type Result,
  type TargetingName,
} from "./offer.ts";
import type { OfferStatus } from "./offer-status.ts";
import type { Scheme } from "./card-number.ts";

/** The fields of an update, each optional; `null` clears the nullable ones. */
export type OfferPatch = Partial<{
  name: string;
  metadata: Record<string, unknown> | null;
  additionalTerms: string | null;
  brandLogoURL: string | null;
  endDate: string;
  targeting: { name: TargetingName; from?: number | undefined; to?: number | undefined } | null;
  startDate: string;
  type: { name: OfferTypeName; value: number; maxRewardAmount?: number | null | undefined };
  activation: { enabled: boolean; qualifiedTransactionsLimit?: number | undefined };
  daysOfWeek: number[];
  schemes: Scheme[];
  minTransactionAmount: number;
  maxTransactionAmount: number | null;
  returnPeriod: number;
  feeSplit: number;
  fees: Fees;
}>;

/** Fields that decide qualification: fixed once the offer is live, so running terms never change under a card. */
export const PRE_LIVE_FIELDS = [
  "startDate",
  "type",
  "activation",
  "daysOfWeek",
  "schemes",
  "minTransactionAmount",
  "maxTransactionAmount",
  "returnPeriod",
  "feeSplit",
  "fees",
] as const;

/** What a marketplace offer's publisher may change: the content provider owns the terms. */
export const MARKETPLACE_PUBLISHER_FIELDS = ["metadata"] as const;

export interface PatchOutcome {
  terms: OfferTerms;
  /** The endDate moved later: `offer.extended`. */
  extended: boolean;
  /** The targeting of a live offer changed: `offer.targeting.updated`. */
  targetingUpdated: boolean;
}

/**
 * Rule 5: "to receive all cards' transactions, disable activation". Turning activation off is the one
 * qualification term a live offer accepts; turning it on (or changing the limit) would change running terms.
 */
const disablesActivation = (current: OfferTerms, patch: OfferPatch, status: OfferStatus) =>
  status === "live" && current.activation.enabled && patch.activation?.enabled === false && patch.activation.qualifiedTransactionsLimit === undefined;

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Applies an update to an offer's terms, enforcing who may change what and when. */
export function applyPatch(
  current: OfferTerms,
  context: { variant: OfferVariant; status: OfferStatus; source: "self" | "marketplace" },
  patch: OfferPatch,
  now: Date,
): Result<PatchOutcome> {
  const given = Object.keys(patch).filter((k) => patch[k as keyof OfferPatch] !== undefined) as (keyof OfferPatch)[];
  if (context.source === "marketplace") {
    const fixed = given.filter((k) => !(MARKETPLACE_PUBLISHER_FIELDS as readonly string[]).includes(k));
    if (fixed.length > 0) {
      return {
        ok: false,
        problems: fixed.map((field) => ({ field, rule: "set by the content provider; on a marketplace offer only metadata can be changed" })),
      };
    }
  }
  if (context.status === "live" || context.status === "expired") {
    const frozen = given.filter(
      (k) => (PRE_LIVE_FIELDS as readonly string[]).includes(k) && !(k === "activation" && disablesActivation(current, patch, context.status)),
    );
    if (frozen.length > 0) {
      return {
        ok: false,
        problems: frozen.map((field) => ({
          field,
          rule:
            `cannot change once the offer is ${context.status}; name, metadata, additionalTerms, brandLogoURL, targeting and endDate can` +
            (context.status === "live" ? ", and activation can be disabled with {\"enabled\": false}" : ""),
          conflict: true,
        })),
      };
    }
  }
  const problems: Problem[] = [];
  if (patch.endDate !== undefined && patch.endDate !== current.endDate) {
    problems.push(...endDateProblems(current, patch.endDate, context.variant, now));
  }
  const terms: OfferTerms = { ...current };
  if (patch.name !== undefined) terms.name = patch.name;
  if (patch.metadata !== undefined) terms.metadata = patch.metadata;
  if (patch.additionalTerms !== undefined) terms.additionalTerms = patch.additionalTerms;
  if (patch.brandLogoURL !== undefined) terms.brandLogoURL = patch.brandLogoURL;
  if (patch.endDate !== undefined) terms.endDate = patch.endDate;
  if (patch.startDate !== undefined) terms.startDate = patch.startDate;
  if (patch.targeting !== undefined) {
    terms.targeting = patch.targeting && { name: patch.targeting.name, from: patch.targeting.from ?? null, to: patch.targeting.to ?? null };
  }
  if (patch.type !== undefined) terms.type = { ...patch.type, maxRewardAmount: patch.type.maxRewardAmount ?? null };
  if (patch.activation !== undefined) terms.activation = activationFrom(patch.activation);
  if (patch.daysOfWeek !== undefined) terms.daysOfWeek = patch.daysOfWeek;
  if (patch.schemes !== undefined) terms.schemes = patch.schemes;
  if (patch.minTransactionAmount !== undefined) terms.minTransactionAmount = patch.minTransactionAmount;
  if (patch.maxTransactionAmount !== undefined) terms.maxTransactionAmount = patch.maxTransactionAmount;
  if (patch.returnPeriod !== undefined) terms.returnPeriod = patch.returnPeriod;
  if (patch.feeSplit !== undefined) terms.feeSplit = patch.feeSplit;
  if (patch.fees !== undefined) terms.fees = patch.fees;
  problems.push(...termsProblems(terms, context.variant));
  if (problems.length > 0) return { ok: false, problems: dedupe(problems) };
  return {
    ok: true,
    value: {
      terms,
      extended: terms.endDate > current.endDate,
      targetingUpdated: context.status === "live" && !sameJson(terms.targeting, current.targeting),
    },
  };
}

const dedupe = (problems: Problem[]) => {
  const seen = new Set<string>();
  return problems.filter((p) => {
    const key = `${p.field}: ${p.rule}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
};
