// The marketplace: content providers' offers (created by the operator or the simulated marketplace, or
// private to one account: the fixtures `cardlink trigger` adopts), browsing them, adopting one into a
// publisher's program (marketplace.offer.live once it runs there), and a provider's changes reaching every
// publisher who adopted it (marketplace.offer.updated, offer.extended, offer.targeting.updated in the outbox).
import type { Ctx } from "../../platform/context.ts";
import { DomainError, notFound } from "../../domain/errors.ts";
import { decodeCursor, encodeCursor } from "../../platform/cursor.ts";
import {
  adoptedTerms,
  adoptionApproval,
  isAvailable,
  marketplaceTerms,
  providerParty,
  DEFAULT_DECISION_HOURS,
  type BrandDecision,
  type Channel,
  type MarketplaceOfferInput,
  type Supplier,
  type SupplierType,
} from "../../domain/offer-marketplace.ts";
import { endDateProblems, targetingProblems, type Fees, type OfferTerms, type Targeting } from "../../domain/offer.ts";
import { offerWindow } from "../../domain/offer-status.ts";
import type { Scheme } from "../../domain/qualification.ts";
import type { Db } from "../../platform/db.ts";
import { brandIdNamed, createBrand } from "../catalog/index.ts";
import { getProgram } from "../catalog/index.ts";
import { enqueueEvent } from "../../platform/outbox.ts";
import { announceIfLive } from "./marketplace-due.ts";
import { linkBrandLocations } from "./links.ts";
import { JSONB_COLUMNS, offerEvent, problemsError, termColumnsOf, termsOf, toOffer, type Offer, type OfferRow, type OfferTermsRow } from "./offer-record.ts";
import { getOffer, insertOffer, writeTerms } from "./offers.ts";
import { insertRow } from "../../platform/sql-row.ts";
import { Filters, type Page, type PageQuery } from "../../platform/page.ts";
import { newId } from "../../platform/ids.ts";

export interface MarketplaceOffer {
  id: string;
  name: string;
  brandName: string;
  brandLogoURL: string | null;
  countryCode: string;
  currency: string;
  channels: Channel[];
  startDate: string;
  endDate: string;
  type: OfferTerms["type"];
  activation: OfferTerms["activation"];
  daysOfWeek: number[];
  schemes: Scheme[];
  minTransactionAmount: number;
  maxTransactionAmount: number | null;
  returnPeriod: number;
  fees: Fees;
  targeting: Targeting | null;
  transactionSource: "oaas" | null;
  additionalTerms: string | null;
  supplier: Supplier;
  created: string;
  updated: string;
}

/** What the operator sees besides: the simulated brand's answer to adoptions. */
export interface MarketplaceOfferAdmin extends MarketplaceOffer {
  brandDecision: { decision: BrandDecision; afterHours: number };
}

/** What a publisher sees besides: whether they can add it, and the offer they added it as. */
export interface MarketplaceOfferView extends MarketplaceOffer {
  available: boolean;
  addedAs: string | null;
}

interface MarketplaceRow extends OfferTermsRow {
  id: string;
  name: string;
  brand_name: string;
  brand_logo_url: string | null;
  country_code: string;
  currency: string;
  channels: Channel[];
  start_date: string;
  end_date: string;
  start_at: Date;
  end_at: Date;
  fees: Fees;
  targeting: Targeting | null;
  transaction_source: "oaas" | null;
  additional_terms: string | null;
  supplier_id: string;
  supplier_type: SupplierType;
  supplier_name: string;
  brand_decision: BrandDecision;
  brand_decision_hours: number;
  private_to: string | null;
  created: Date;
  updated: Date;
}

const toMarketplaceOffer = (r: MarketplaceRow): MarketplaceOffer => ({
  id: r.id,
  name: r.name,
  brandName: r.brand_name,
  brandLogoURL: r.brand_logo_url,
  countryCode: r.country_code,
  currency: r.currency,
  channels: r.channels,
  startDate: r.start_date,
  endDate: r.end_date,
  type: { name: r.type_name, value: r.type_value, maxRewardAmount: r.max_reward_amount },
  activation: r.activation_enabled
    ? { enabled: true, qualifiedTransactionsLimit: r.qualified_transactions_limit ?? 1 }
    : { enabled: false },
  daysOfWeek: r.days_of_week,
  schemes: r.schemes,
  minTransactionAmount: r.min_transaction_amount,
  maxTransactionAmount: r.max_transaction_amount,
  returnPeriod: r.return_period,
  fees: r.fees,
  targeting: r.targeting,
  transactionSource: r.transaction_source,
  additionalTerms: r.additional_terms,
  supplier: { id: r.supplier_id, type: r.supplier_type, name: r.supplier_name },
  created: r.created.toISOString(),
  updated: r.updated.toISOString(),
});

const toAdmin = (r: MarketplaceRow): MarketplaceOfferAdmin => ({
  ...toMarketplaceOffer(r),
  brandDecision: { decision: r.brand_decision, afterHours: r.brand_decision_hours },
});

const termsOfRow = (r: MarketplaceRow): OfferTerms => {
  const m = toMarketplaceOffer(r);
  return {
    ...m,
    feeSplit: null,
    funded: providerParty(m.supplier),
    metadata: null,
    brandLogoURL: m.brandLogoURL,
  };
};

/** Puts an offer on the marketplace: every publisher's, or only `privateTo`'s (an account id). */
export async function createMarketplaceOffer(db: Db, input: MarketplaceOfferInput, now: Date, privateTo: string | null = null): Promise<MarketplaceOfferAdmin> {
  const result = marketplaceTerms(input);
  if (!result.ok) throw problemsError(result.problems);
  const t = result.value;
  // A marketplace offer has no fee split, funder or metadata of its own: those are set when it is adopted.
  const { fee_split: _feeSplit, funded_id: _fundedId, funded_type: _fundedType, metadata: _metadata, ...terms } = termColumnsOf(t);
  const [row] = await db.query<MarketplaceRow>(
    ...insertRow(
      "marketplace_offers",
      {
        id: newId(),
        brand_name: input.brandName,
        channels: JSON.stringify(input.channels ?? ["in-store"]),
        ...terms,
        supplier_id: input.supplier.id,
        supplier_type: input.supplier.type,
        supplier_name: input.supplier.name,
        brand_decision: input.brandDecision?.decision ?? "accept",
        brand_decision_hours: input.brandDecision?.afterHours ?? DEFAULT_DECISION_HOURS,
        private_to: privateTo,
        created: now,
        updated: now,
      },
      { jsonb: JSONB_COLUMNS, tail: "returning *" },
    ),
  );
  return toAdmin(row!);
}

export type MarketplaceSort = "created" | "startDate" | "endDate";

export interface MarketplaceFilter {
  brandName?: string | undefined;
  channel?: Channel | undefined;
  countryCode?: string | undefined;
  scheme?: Scheme | undefined;
  /** `available` (default): not ended and not yet added by you; `all`: every marketplace offer. */
  availability: "available" | "all";
  sort: MarketplaceSort;
  order: "asc" | "desc";
}

const SORT_COLUMNS: Record<MarketplaceSort, { column: string; type: string; key: (r: MarketplaceRow) => string }> = {
  created: { column: "m.created", type: "timestamptz", key: (r) => r.created.toISOString() },
  startDate: { column: "m.start_date", type: "timestamp", key: (r) => r.start_date },
  endDate: { column: "m.end_date", type: "timestamp", key: (r) => r.end_date },
};

/** The marketplace as the caller sees it, in the chosen order, keyset-paged. */
export async function listMarketplaceOffers(
  ctx: Ctx,
  filter: MarketplaceFilter,
  page: PageQuery,
): Promise<Page<MarketplaceOfferView>> {
  const now = ctx.clock.now();
  const filters = new Filters().add("(m.private_to is null or m.private_to = ?)", ctx.accountId);
  if (filter.brandName) filters.add("lower(m.brand_name) = lower(?)", filter.brandName);
  if (filter.channel) filters.add("m.channels @> ?::jsonb", JSON.stringify([filter.channel]));
  if (filter.countryCode) filters.add("m.country_code = ?", filter.countryCode);
  if (filter.scheme) filters.add("m.schemes @> ?::jsonb", JSON.stringify([filter.scheme]));
  if (filter.availability === "available") {
    filters
      .add("m.end_at >= ?::timestamptz", now)
      .add("not exists (select 1 from offers o where o.marketplace_offer_id = m.id and o.account_id = ? and o.live = ?)", ctx.accountId, ctx.live);
  }
  const [{ count } = { count: 0 }] = await ctx.db.query<{ count: number }>(
    `select count(*)::int as count from marketplace_offers m ${filters.where()}`,
    filters.params,
  );
  const sort = SORT_COLUMNS[filter.sort];
  const direction = filter.order === "asc" ? "asc" : "desc";
  if (page.start) {
    const [value, id] = decodeCursor(page.start);
    filters.add(`(${sort.column}, m.id) ${direction === "asc" ? ">" : "<"} (?::${sort.type}, ?::uuid)`, value, id);
  }
  const n = filters.params.length;
  const rows = await ctx.db.query<MarketplaceRow & { added_as: string | null }>(
    `select m.*, (select o.id from offers o where o.marketplace_offer_id = m.id and o.account_id = $${n + 1} and o.live = $${n + 2}) as added_as
     from marketplace_offers m ${filters.where()}
     order by ${sort.column} ${direction}, m.id ${direction} limit ${page.limit + 1}`,
    [...filters.params, ctx.accountId, ctx.live],
  );
  const more = rows.length > page.limit;
  const items = rows.slice(0, page.limit);
  const lastRow = items.at(-1);
  return {
    items: items.map((r) => ({ ...toMarketplaceOffer(r), available: isAvailable(r.end_at, r.added_as, now), addedAs: r.added_as })),
    count,
    ...(more && lastRow ? { last: encodeCursor([sort.key(lastRow), lastRow.id]) } : {}),
  };
}

async function findMarketplaceRow(db: Db, id: string, lock = false): Promise<MarketplaceRow | undefined> {
  const [row] = await db.query<MarketplaceRow>(`select * from marketplace_offers where id = $1${lock ? " for update" : ""}`, [id]);
  return row;
}

/** The caller's brand of that name in this environment, or a new one (approved at once in test). */
async function brandNamed(ctx: Ctx, name: string, logoUrl: string | null): Promise<string> {
  return (await brandIdNamed(ctx, name)) ?? (await createBrand(ctx, { name, logoUrl })).id;
}

/**
 * Adds a marketplace offer to the caller's program as an offer of their own: the brand of that name
 * (created when missing), the provider as origin and supplier, the locations of that brand in the
 * program linked, and the brand's approval pending (live) or decided at once (test).
 */
export async function adoptMarketplaceOffer(ctx: Ctx, marketplaceOfferId: string, programId: string): Promise<Offer> {
  return ctx.db.tx(async (db) => {
    const tx = { ...ctx, db };
    const now = ctx.clock.now();
    await getProgram(tx, programId);
    // One adoption of an offer per account and environment at a time, so a repeat finds the first.
    await db.query("select pg_advisory_xact_lock(hashtext($1))", [`adopt:${ctx.accountId}:${ctx.live}:${marketplaceOfferId}`]);
    const m = await findMarketplaceRow(db, marketplaceOfferId);
    if (!m || (m.private_to !== null && m.private_to !== ctx.accountId)) throw notFound("marketplace offer", marketplaceOfferId);
    if (now.getTime() > m.end_at.getTime()) {
      throw new DomainError("conflict", `offerId: the marketplace offer ended at ${m.end_date}; it can no longer be added`);
    }
    const [existing] = await db.query<{ id: string }>(
      "select id from offers where account_id = $1 and live = $2 and marketplace_offer_id = $3",
      [ctx.accountId, ctx.live, marketplaceOfferId],
    );
    if (existing) throw new DomainError("conflict", `offerId: you added this marketplace offer already, as offer ${existing.id}`);
    const brandId = await brandNamed(tx, m.brand_name, m.brand_logo_url);
    const { approval, due } = adoptionApproval(m.brand_decision, m.brand_decision_hours, ctx.live, now);
    const provider = providerParty({ id: m.supplier_id, type: m.supplier_type });
    const id = await insertOffer(db, tx, brandId, adoptedTerms(termsOfRow(m), ctx), {
      variant: "targeting",
      origin: provider,
      supplier: provider,
      accepted: approval === "accepted",
      marketplace: { offerId: m.id, programId, approval, decision: m.brand_decision, due },
    });
    if (m.transaction_source !== "oaas") {
      await linkBrandLocations(db, { id, account_id: ctx.accountId, live: ctx.live, brand_id: brandId, country_code: m.country_code }, programId, now);
    }
    // Live at once (a test brand's answer, a past startDate): told now; else the due work tells it when it is.
    await announceIfLive(db, id, now);
    return getOffer(tx, id);
  });
}

/**
 * A content provider's change: a new endDate (later than now and after the start; the marketplace
 * variant has no 12-month cap) or targeting. Every adopted copy follows; each publisher gets
 * `marketplace.offer.updated` when its copy changed, `offer.extended` for a later end, and
 * `offer.targeting.updated` when a live copy's targeting changed.
 */
export async function updateMarketplaceOffer(
  db: Db,
  id: string,
  patch: { endDate?: string | undefined; targeting?: { name: Targeting["name"]; from?: number | undefined; to?: number | undefined } | null | undefined },
  now: Date,
): Promise<MarketplaceOfferAdmin | undefined> {
  return db.tx(async (tx) => {
    const m = await findMarketplaceRow(tx, id, true);
    if (!m) return undefined;
    const current = termsOfRow(m);
    const targeting = patch.targeting === undefined ? current.targeting : patch.targeting && { name: patch.targeting.name, from: patch.targeting.from ?? null, to: patch.targeting.to ?? null };
    const problems = [
      ...(patch.endDate !== undefined && patch.endDate !== current.endDate ? endDateProblems(current, patch.endDate, "targeting", now) : []),
      ...(targeting ? targetingProblems(targeting) : []),
    ];
    if (problems.length > 0) throw problemsError(problems);
    const endDate = patch.endDate ?? current.endDate;
    const { endAt } = offerWindow({ ...current, endDate });
    const [updated] = await tx.query<MarketplaceRow>(
      "update marketplace_offers set end_date = $2, end_at = $3, targeting = $4::jsonb, updated = $5 where id = $1 returning *",
      [id, endDate, endAt, JSON.stringify(targeting), now],
    );
    const copies = await tx.query<OfferRow>("select * from offer_records where marketplace_offer_id = $1", [id]);
    for (const row of copies) {
      const before = toOffer(row, now);
      await writeTerms(tx, row.id, { ...termsOf(before), endDate, targeting }, now);
      const [afterRow] = await tx.query<OfferRow>("select * from offer_records where id = $1", [row.id]);
      const after = toOffer(afterRow!, now);
      const retargeted = JSON.stringify(before.targeting) !== JSON.stringify(targeting);
      if (before.endDate !== endDate || retargeted) await enqueueEvent(tx, offerEvent(row, "marketplace.offer.updated", after), now);
      if (before.endDate !== null && endDate > before.endDate) await enqueueEvent(tx, offerEvent(row, "offer.extended", after), now);
      if (before.status === "live" && retargeted) await enqueueEvent(tx, offerEvent(row, "offer.targeting.updated", after), now);
    }
    return toAdmin(updated!);
  });
}
