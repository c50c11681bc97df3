// The offer's terms: creation defaults and derivations, cross-field rules and extension (rule 7). Updates
// are applied in offer-patch.ts, rule 4 is in offer-activation.ts.
// Field shapes and simple ranges are checked by the API schemas; the rules between fields live here.
import { countryByAlpha3, currencyMinorDigits } from "./countries.ts";
import { addMonths, instantOf } from "./local-dates.ts";
import { roundMoney } from "./money.ts";
import { statusZone } from "./offer-status.ts";
import { SCHEMES, type Scheme } from "./card-number.ts";

export const ALL_DAYS: readonly number[] = [0, 1, 2, 3, 4, 5, 6];
export const FUNDING_TYPES = ["merchant", "card-linking", "affiliate"] as const;
export const TARGETING_NAMES = ["new", "lapsed", "existing"] as const;
/** Limits of the spec: default lifetime and longest extension (months), targeting lookback (days). */
export const OFFER_LIFETIME_MONTHS = 12;
export const MAX_EXTENSION_MONTHS = 12;
export const TARGETING_MAX_DAYS = 365;
export const DEFAULT_QUALIFIED_TRANSACTIONS_LIMIT = 1;

export type FundingType = (typeof FUNDING_TYPES)[number];
export type TargetingName = (typeof TARGETING_NAMES)[number];
export type OfferTypeName = "amount" | "discount";
/** `standard` is the spec's first variant (feeSplit, priority); `targeting` the marketplace/targeting one (fees, targeting). */
export type OfferVariant = "standard" | "targeting";

export interface Party {
  id: string;
  type: FundingType;
}

export interface Targeting {
  name: TargetingName;
  from: number | null;
  to: number | null;
}

export interface Fees {
  publisherFee: number;
  serviceFee: number;
}

/** The terms of an offer that its rules look at, as stored and returned. */
export interface OfferTerms {
  name: string;
  countryCode: string;
  currency: string;
  startDate: string;
  endDate: string;
  type: { name: OfferTypeName; value: number; maxRewardAmount: number | null };
  activation: { enabled: boolean; qualifiedTransactionsLimit?: number };
  daysOfWeek: number[];
  schemes: Scheme[];
  minTransactionAmount: number;
  maxTransactionAmount: number | null;
  returnPeriod: number;
  feeSplit: number | null;
  fees: Fees | null;
  targeting: Targeting | null;
  transactionSource: "oaas" | null;
  funded: Party;
  metadata: Record<string, unknown> | null;
  additionalTerms: string | null;
  brandLogoURL: string | null;
}

/** The creation input after its shape is validated. */
export interface OfferInput {
  countryCode: string;
  name: string;
  publisherId: string;
  startDate: string;
  endDate?: string | undefined;
  type: { name: OfferTypeName; value: number; maxRewardAmount?: number | null | undefined };
  activation?: { enabled: boolean; qualifiedTransactionsLimit?: number | undefined } | undefined;
  daysOfWeek?: number[] | undefined;
  schemes?: Scheme[] | undefined;
  funded?: { id?: string | undefined; type?: FundingType | undefined } | undefined;
  minTransactionAmount?: number | undefined;
  maxTransactionAmount?: number | null | undefined;
  returnPeriod?: number | undefined;
  feeSplit?: number | undefined;
  fees?: Fees | undefined;
  targeting?: { name: TargetingName; from?: number | undefined; to?: number | undefined } | null | undefined;
  transactionSource?: "oaas" | undefined;
  metadata?: Record<string, unknown> | null | undefined;
  additionalTerms?: string | null | undefined;
  brandLogoURL?: string | null | undefined;
}

/** A broken rule: `field: rule`. `conflict` marks rules about the offer's state rather than the input (409). */
export interface Problem {
  field: string;
  rule: string;
  conflict?: boolean;
}

export const problemMessage = (problems: Problem[]) => problems.map((p) => `${p.field}: ${p.rule}`).join("; ");

export type Result<T> = { ok: true; value: T } | { ok: false; problems: Problem[] };

/** The variant an offer belongs to: fees, targeting or `transactionSource: "oaas"` make the second one. */
export const variantOf = (input: Pick<OfferInput, "fees" | "targeting" | "transactionSource">): OfferVariant =>
  input.fees !== undefined || (input.targeting !== undefined && input.targeting !== null) || input.transactionSource === "oaas"
    ? "targeting"
    : "standard";

/** The currency offers in `countryCode` pay in (ISO 4217), or null for a country without one. */
export const currencyOf = (countryCode: string): string | null => countryByAlpha3(countryCode)?.currency ?? null;

function moneyProblem(field: string, value: number | null | undefined, currency: string): Problem[] {
  if (value === null || value === undefined || roundMoney(value, currency) === value) return [];
  return [{ field, rule: `at most ${currencyMinorDigits(currency)} decimal places in ${currency}` }];
}

/** Targeting's own rules: from and to for lapsed and existing, from before to, to at most 365 days. */
export function targetingProblems(t: { name: TargetingName; from?: number | null; to?: number | null }): Problem[] {
  const problems: Problem[] = [];
  const from = t.from ?? null;
  const to = t.to ?? null;
  if (t.name !== "new") {
    if (from === null) problems.push({ field: "targeting.from", rule: `required for ${t.name} targeting` });
    if (to === null) problems.push({ field: "targeting.to", rule: `required for ${t.name} targeting` });
  }
  if (to !== null && to > TARGETING_MAX_DAYS) problems.push({ field: "targeting.to", rule: `must be at most ${TARGETING_MAX_DAYS} days` });
  if (from !== null && to !== null && from >= to) problems.push({ field: "targeting.from", rule: "must be less than targeting.to" });
  return problems;
}

/** Rules between fields of a complete set of terms, for creation and after every update. */
export function termsProblems(t: OfferTerms, variant: OfferVariant): Problem[] {
  const problems: Problem[] = [];
  const discount = t.type.name === "discount";
  if (!discount && t.type.maxRewardAmount !== null) {
    problems.push({ field: "type.maxRewardAmount", rule: "only for discount offers" });
  }
  if (discount && t.type.value > 100) problems.push({ field: "type.value", rule: "a discount is a percentage, at most 100" });
  if (!discount) problems.push(...moneyProblem("type.value", t.type.value, t.currency));
  problems.push(...moneyProblem("type.maxRewardAmount", t.type.maxRewardAmount, t.currency));
  problems.push(...moneyProblem("minTransactionAmount", t.minTransactionAmount, t.currency));
  problems.push(...moneyProblem("maxTransactionAmount", t.maxTransactionAmount, t.currency));
  if (t.maxTransactionAmount !== null && t.maxTransactionAmount < t.minTransactionAmount) {
    problems.push({ field: "maxTransactionAmount", rule: "must not be below minTransactionAmount" });
  }
  if (t.endDate <= t.startDate) problems.push({ field: "endDate", rule: "must be after startDate" });
  if (!t.activation.enabled && t.activation.qualifiedTransactionsLimit !== undefined) {
    problems.push({ field: "activation.qualifiedTransactionsLimit", rule: "only with activation.enabled true" });
  }
  // Fees are a currency amount on amount offers and a percentage of the transaction on discount offers.
  const fee = (field: string, value: number | null) =>
    value === null ? [] : discount ? (value > 100 ? [{ field, rule: "a percentage on discount offers, at most 100" }] : []) : moneyProblem(field, value, t.currency);
  if (variant === "standard") {
    if (t.fees !== null) problems.push({ field: "fees", rule: "only in the targeting variant; this offer uses feeSplit" });
    if (t.targeting !== null) problems.push({ field: "targeting", rule: "only in the targeting variant (offers created with fees, targeting or transactionSource oaas)" });
    problems.push(...fee("feeSplit", t.feeSplit));
  } else {
    if (t.feeSplit !== null) problems.push({ field: "feeSplit", rule: "not in the targeting variant; use fees {publisherFee, serviceFee}" });
    if (t.fees) problems.push(...fee("fees.publisherFee", t.fees.publisherFee), ...fee("fees.serviceFee", t.fees.serviceFee));
    if (t.targeting) problems.push(...targetingProblems(t.targeting));
  }
  return problems;
}

/**
 * Activation as given, the limit defaulting to 1 when enabled. A limit given without activation is
 * kept so that termsProblems names it.
 */
export function activationFrom(given: { enabled: boolean; qualifiedTransactionsLimit?: number | undefined } | undefined): OfferTerms["activation"] {
  if (!given) return { enabled: false };
  if (given.enabled) return { enabled: true, qualifiedTransactionsLimit: given.qualifiedTransactionsLimit ?? DEFAULT_QUALIFIED_TRANSACTIONS_LIMIT };
  return given.qualifiedTransactionsLimit === undefined ? { enabled: false } : { enabled: false, qualifiedTransactionsLimit: given.qualifiedTransactionsLimit };
}

/**
 * The terms of a new offer from its input, with the spec's defaults and derivations: currency from the
 * country, endDate 12 months after startDate, activation off (limit 1 when on), every day and scheme,
 * and funding by the caller — always the caller as card-linking in the test environment.
 */
export function termsFromInput(
  input: OfferInput,
  caller: { accountId: string; live: boolean },
): Result<{ terms: OfferTerms; variant: OfferVariant }> {
  const problems: Problem[] = [];
  if (input.publisherId !== caller.accountId) problems.push({ field: "publisherId", rule: "must be your account id" });
  const currency = currencyOf(input.countryCode);
  if (!currency) problems.push({ field: "countryCode", rule: `no currency is known for ${input.countryCode}` });
  const variant = variantOf(input);
  let funded: Party = { id: caller.accountId, type: "card-linking" };
  if (caller.live && input.funded) {
    const type = input.funded.type ?? "card-linking";
    if (type !== "card-linking" && !input.funded.id) {
      problems.push({ field: "funded.id", rule: `required when funded.type is ${type}` });
    }
    funded = { id: input.funded.id ?? caller.accountId, type };
  }
  if (variant === "targeting" && input.feeSplit !== undefined) {
    problems.push({ field: "feeSplit", rule: "not in the targeting variant; use fees {publisherFee, serviceFee}" });
  }
  if (problems.length > 0 || !currency) return { ok: false, problems };
  const terms: OfferTerms = {
    name: input.name,
    countryCode: input.countryCode,
    currency,
    startDate: input.startDate,
    endDate: input.endDate ?? addMonths(input.startDate, OFFER_LIFETIME_MONTHS),
    type: { name: input.type.name, value: input.type.value, maxRewardAmount: input.type.maxRewardAmount ?? null },
    activation: activationFrom(input.activation),
    daysOfWeek: input.daysOfWeek ?? [...ALL_DAYS],
    schemes: input.schemes ?? [...SCHEMES],
    minTransactionAmount: input.minTransactionAmount ?? 0,
    maxTransactionAmount: input.maxTransactionAmount ?? null,
    returnPeriod: input.returnPeriod ?? 0,
    feeSplit: variant === "standard" ? (input.feeSplit ?? 0) : null,
    fees: variant === "targeting" ? (input.fees ?? { publisherFee: 0, serviceFee: 0 }) : null,
    targeting: input.targeting ? { name: input.targeting.name, from: input.targeting.from ?? null, to: input.targeting.to ?? null } : null,
    transactionSource: input.transactionSource ?? null,
    funded,
    metadata: input.metadata ?? null,
    additionalTerms: input.additionalTerms ?? null,
    brandLogoURL: input.brandLogoURL ?? null,
  };
  const termProblems = termsProblems(terms, variant);
  return termProblems.length > 0 ? { ok: false, problems: termProblems } : { ok: true, value: { terms, variant } };
}

/**
 * Rule 7 for a new endDate: later than the current date (in the country's main zone) and after the
 * start; in the first variant an extension reaches at most 12 months past the current endDate.
 */
export function endDateProblems(
  current: Pick<OfferTerms, "startDate" | "endDate" | "countryCode">,
  next: string,
  variant: OfferVariant,
  now: Date,
): Problem[] {
  if (instantOf(next, statusZone(current.countryCode)).getTime() <= now.getTime()) {
    return [{ field: "endDate", rule: "must be later than the current date" }];
  }
  if (next <= current.startDate) return [{ field: "endDate", rule: "must be after startDate" }];
  const latest = addMonths(current.endDate, MAX_EXTENSION_MONTHS);
  if (variant === "standard" && next > latest) {
    return [{ field: "endDate", rule: `an extension is at most ${MAX_EXTENSION_MONTHS} months at a time; the latest now is ${latest}` }];
  }
  return [];
}
