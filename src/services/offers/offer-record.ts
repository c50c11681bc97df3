// An offer's record: its API shape, its rows (offer_records, the offers with their status inputs and counts),
// how one becomes the other, the columns its terms are written to, the status rule as SQL, and who its events go to.
import { notFound, DomainError } from "../../domain/errors.ts";
import { problemMessage, type Fees, type OfferTerms, type OfferVariant, type Party, type Problem, type Targeting } from "../../domain/offer.ts";
import { offerStatusAt, offerWindow, type Approval, type OfferStatus } from "../../domain/offer-status.ts";
import type { Scheme } from "../../domain/qualification.ts";
import type { Ctx } from "../../platform/context.ts";
import type { Db } from "../../platform/db.ts";

export interface Offer {
  id: string;
  accepted: boolean;
  activation: { enabled: boolean; qualifiedTransactionsLimit?: number };
  additionalTerms: string | null;
  brandId: string;
  brandName: string;
  brandLogoURL: string | null;
  countryCode: string;
  created: string;
  currency: string;
  daysOfWeek: number[];
  endDate: string | null;
  feeSplit: number | null;
  fees: Fees | null;
  funded: Party;
  live: boolean;
  locationsTotal: number;
  maxTransactionAmount: number | null;
  minTransactionAmount: number;
  metadata: Record<string, unknown> | null;
  name: string;
  origin: Party;
  /** The first variant only: 1 there, null in the marketplace/targeting variant. */
  priority: 1 | null;
  publisherId: string;
  returnPeriod: number;
  schemes: Scheme[];
  startDate: string;
  status: OfferStatus;
  supplier: Party | null;
  targeting: Targeting | null;
  type: { name: "amount" | "discount"; value: number; maxRewardAmount: number | null };
  transactionSource: "oaas" | null;
  updated: string;
  /** Offers adopted from the marketplace: where from, into which program, and the brand's approval. */
  marketplace: { offerId: string; programId: string | null; approval: Approval } | null;
}

/** An offer's terms as stored, alike in the offers and the marketplace's offers. */
export interface OfferTermsRow {
  type_name: "amount" | "discount";
  type_value: number;
  max_reward_amount: number | null;
  activation_enabled: boolean;
  qualified_transactions_limit: number | null;
  days_of_week: number[];
  schemes: Scheme[];
  min_transaction_amount: number;
  max_transaction_amount: number | null;
  return_period: number;
}

export interface OfferRow extends OfferTermsRow {
  id: string;
  account_id: string;
  live: boolean;
  brand_id: string;
  brand_name: string;
  variant: OfferVariant;
  name: string;
  country_code: string;
  currency: string;
  start_date: string;
  end_date: string | null;
  start_at: Date;
  end_at: Date | null;
  fee_split: number | null;
  fees: Fees | null;
  targeting: Targeting | null;
  transaction_source: "oaas" | null;
  funded_id: string;
  funded_type: Party["type"];
  origin_id: string;
  origin_type: Party["type"];
  supplier_id: string | null;
  supplier_type: Party["type"] | null;
  accepted: boolean;
  metadata: Record<string, unknown> | null;
  additional_terms: string | null;
  brand_logo_url: string | null;
  marketplace_offer_id: string | null;
  program_id: string | null;
  approval: Approval | null;
  locations_count: number;
  created: Date;
  updated: Date;
}

/** The record as the API shows it; `now` (service time) decides its status. */
export function toOffer(r: OfferRow, now: Date): Offer {
  const offer: Omit<Offer, "status"> = {
    id: r.id,
    accepted: r.accepted,
    activation: r.activation_enabled
      ? { enabled: true, qualifiedTransactionsLimit: r.qualified_transactions_limit ?? 1 }
      : { enabled: false },
    additionalTerms: r.additional_terms,
    brandId: r.brand_id,
    brandName: r.brand_name,
    brandLogoURL: r.brand_logo_url,
    countryCode: r.country_code,
    created: r.created.toISOString(),
    currency: r.currency,
    daysOfWeek: r.days_of_week,
    endDate: r.end_date,
    feeSplit: r.fee_split,
    fees: r.fees,
    funded: { id: r.funded_id, type: r.funded_type },
    live: r.live,
    locationsTotal: r.transaction_source === "oaas" ? -1 : r.locations_count,
    maxTransactionAmount: r.max_transaction_amount,
    minTransactionAmount: r.min_transaction_amount,
    metadata: r.metadata,
    name: r.name,
    origin: { id: r.origin_id, type: r.origin_type },
    priority: r.variant === "standard" ? 1 : null,
    publisherId: r.account_id,
    returnPeriod: r.return_period,
    schemes: r.schemes,
    startDate: r.start_date,
    supplier: r.supplier_id && r.supplier_type ? { id: r.supplier_id, type: r.supplier_type } : null,
    targeting: r.targeting,
    type: { name: r.type_name, value: r.type_value, maxRewardAmount: r.max_reward_amount },
    transactionSource: r.transaction_source,
    updated: r.updated.toISOString(),
    marketplace:
      r.marketplace_offer_id && r.approval
        ? { offerId: r.marketplace_offer_id, programId: r.program_id, approval: r.approval }
        : null,
  };
  return { ...offer, status: offerStatusAt(offer, now) };
}

export const termsOf = (o: Offer): OfferTerms => ({
  name: o.name,
  countryCode: o.countryCode,
  currency: o.currency,
  startDate: o.startDate,
  endDate: o.endDate!,
  type: o.type,
  activation: o.activation,
  daysOfWeek: o.daysOfWeek,
  schemes: o.schemes,
  minTransactionAmount: o.minTransactionAmount,
  maxTransactionAmount: o.maxTransactionAmount,
  returnPeriod: o.returnPeriod,
  feeSplit: o.feeSplit,
  fees: o.fees,
  targeting: o.targeting,
  transactionSource: o.transactionSource,
  funded: o.funded,
  metadata: o.metadata,
  additionalTerms: o.additionalTerms,
  brandLogoURL: o.brandLogoURL,
});

/** 400 for broken input rules, 409 when a rule about the offer's state (or its brand's offers) is broken. */
export function problemsError(problems: Problem[]): DomainError {
  const conflicts = problems.filter((p) => p.conflict);
  return conflicts.length > 0
    ? new DomainError("conflict", problemMessage(conflicts))
    : new DomainError("invalid", problemMessage(problems));
}

/**
 * The status rule of src/domain/offer-status.ts (statusFromWindow) over the stored window instants of
 * offer_records, at the time `now` (SQL), for list filters and due work: the same instants, the same order of tests.
 */
export const statusSql = (now: string) => `(case
  when end_at is not null and ${now} > end_at then 'expired'
  when approval is not null and approval <> 'accepted' then 'requests'
  when transaction_source is null and locations_count = 0 then 'requests'
  when ${now} < start_at and transaction_source is not null then 'requests'
  when ${now} < start_at then 'upcoming'
  else 'live' end)`;

/** The status at a service time given three times as parameters (list filters). */
export const STATUS_SQL = statusSql("?::timestamptz");

export async function findOfferRow(db: Db, owner: Pick<Ctx, "accountId" | "live">, id: string): Promise<OfferRow> {
  const [row] = await db.query<OfferRow>("select * from offer_records where id = $1 and account_id = $2 and live = $3", [
    id,
    owner.accountId,
    owner.live,
  ]);
  if (!row) throw notFound("offer", id);
  return row;
}

/** The columns written from an offer's terms, by name (offers and marketplace offers share most of them). */
export function termColumnsOf(t: OfferTerms) {
  const { startAt, endAt } = offerWindow(t);
  return {
    name: t.name,
    country_code: t.countryCode,
    currency: t.currency,
    start_date: t.startDate,
    end_date: t.endDate,
    start_at: startAt,
    end_at: endAt,
    type_name: t.type.name,
    type_value: t.type.value,
    max_reward_amount: t.type.maxRewardAmount,
    activation_enabled: t.activation.enabled,
    qualified_transactions_limit: t.activation.enabled ? (t.activation.qualifiedTransactionsLimit ?? 1) : null,
    days_of_week: JSON.stringify(t.daysOfWeek),
    schemes: JSON.stringify(t.schemes),
    min_transaction_amount: t.minTransactionAmount,
    max_transaction_amount: t.maxTransactionAmount,
    return_period: t.returnPeriod,
    fee_split: t.feeSplit,
    fees: JSON.stringify(t.fees),
    targeting: JSON.stringify(t.targeting),
    transaction_source: t.transactionSource,
    funded_id: t.funded.id,
    funded_type: t.funded.type,
    metadata: JSON.stringify(t.metadata),
    additional_terms: t.additionalTerms,
    brand_logo_url: t.brandLogoURL,
  };
}

/** The offers' columns (and the marketplace's) whose values are JSON text. */
export const JSONB_COLUMNS: ReadonlySet<string> = new Set(["days_of_week", "schemes", "fees", "targeting", "metadata", "channels"]);

/** Who receives an offer's events: the publisher, on the program it was adopted into if any. */
export const offerEvent = (row: Pick<OfferRow, "account_id" | "live" | "program_id">, event: string, offer: Offer) => ({
  accountId: row.account_id,
  live: row.live,
  programId: row.program_id,
  event,
  data: offer,
});
