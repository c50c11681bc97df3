// Offers of a publisher: create, read, list with status filters, update (with extension and targeting
// events in the outbox), delete, and linking to locations. Rules come from src/domain/offer*.ts.
import { dueIn, dueParams, envNowSql, type DueTime } from "../../platform/clock/environment.ts";
import type { Ctx } from "../../platform/context.ts";
import { DomainError, invalid, notFound } from "../../domain/errors.ts";
import {
  problemMessage,
  termsFromInput,
  type Fees,
  type OfferInput,
  type OfferTerms,
  type OfferVariant,
  type Party,
  type Problem,
  type Targeting,
} from "../../domain/offer.ts";
import { activationConflict, activationConflictProblem } from "../../domain/offer-activation.ts";
import { applyPatch, type OfferPatch } from "../../domain/offer-patch.ts";
import { offerStatusAt, offerWindow, type Approval, type OfferStatus } from "../../domain/offer-status.ts";
import type { Scheme } from "../../domain/qualification.ts";
import type { Db } from "../../platform/db.ts";
import { findBrand } from "../catalog/index.ts";
import { getLocation } from "../catalog/index.ts";
import { getProgram } from "../catalog/index.ts";
import { enqueueEvent, enqueueEvents } from "../../platform/outbox.ts";
import { Filters, pageByCreated, type Page, type PageQuery } from "../../platform/page.ts";
import { newId } from "../../platform/ids.ts";

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
const statusSql = (now: string) => `(case
  when end_at is not null and ${now} > end_at then 'expired'
  when approval is not null and approval <> 'accepted' then 'requests'
  when transaction_source is null and locations_count = 0 then 'requests'
  when ${now} < start_at and transaction_source is not null then 'requests'
  when ${now} < start_at then 'upcoming'
  else 'live' end)`;

/** The status at a service time given three times as parameters (list filters). */
const STATUS_SQL = statusSql("?::timestamptz");

export async function findOfferRow(db: Db, owner: Pick<Ctx, "accountId" | "live">, id: string): Promise<OfferRow> {
  const [row] = await db.query<OfferRow>("select * from offer_records where id = $1 and account_id = $2 and live = $3", [
    id,
    owner.accountId,
    owner.live,
  ]);
  if (!row) throw notFound("offer", id);
  return row;
}

/** The caller's offer in the caller's environment, or 404 — never another account's. */
export const getOffer = async (ctx: Ctx, id: string): Promise<Offer> => toOffer(await findOfferRow(ctx.db, ctx, id), ctx.clock.now());

export interface OfferListFilter {
  status?: OfferStatus | undefined;
  brandId?: string | undefined;
  countryCode?: string | undefined;
  /** Live offers whose endDate falls within this many days ('expiring soon'). */
  expiresWithin?: number | undefined;
  /** The program's offers: linked to one of its locations, or added to it from the marketplace. */
  programId?: string | undefined;
}

export async function listOffers(ctx: Ctx, filter: OfferListFilter, page: PageQuery): Promise<Page<Offer>> {
  const now = ctx.clock.now();
  const filters = new Filters().add("account_id = ?", ctx.accountId).add("live = ?", ctx.live);
  if (filter.brandId) filters.add("brand_id = ?", filter.brandId);
  if (filter.countryCode) filters.add("country_code = ?", filter.countryCode);
  if (filter.programId) {
    // Another account's program, or one of the other environment, answers 404 rather than an empty list.
    await getProgram(ctx, filter.programId);
    filters.add(
      `(program_id = ? or exists (select 1 from offer_locations ol join locations l on l.id = ol.location_id
         where ol.offer_id = offer_records.id and l.program_id = ?))`,
      filter.programId,
      filter.programId,
    );
  }
  if (filter.status) filters.add(`${STATUS_SQL} = ?`, now, now, now, filter.status);
  if (filter.expiresWithin !== undefined) {
    filters.add(`${STATUS_SQL} = 'live'`, now, now, now).add("end_at <= ?::timestamptz", new Date(now.getTime() + filter.expiresWithin * 86_400_000));
  }
  return pageByCreated(ctx.db, "offer_records", filters, page, (r: OfferRow) => toOffer(r, now));
}

/** Locks the brand's row so two offers of one brand are checked against rule 4 one after the other. */
async function checkActivationRule(
  db: Db,
  ctx: Ctx,
  candidate: { id: string; brandId: string; activationEnabled: boolean; startDate: string; endDate: string; countryCode: string },
  now: Date,
): Promise<void> {
  await db.query("select id from brands where id = $1 for update", [candidate.brandId]);
  // Only offers of the other kind that have not ended can conflict; the domain rule decides which do.
  const others = await db.query<{ id: string; activation_enabled: boolean; start_at: Date; end_at: Date | null }>(
    `select id, activation_enabled, start_at, end_at from offers
     where account_id = $1 and live = $2 and brand_id = $3 and id <> $4 and (approval is null or approval <> 'declined')
       and activation_enabled <> $5 and (end_at is null or end_at >= $6)`,
    [ctx.accountId, ctx.live, candidate.brandId, candidate.id, candidate.activationEnabled, now],
  );
  const window = offerWindow(candidate);
  const self = { id: candidate.id, activationEnabled: candidate.activationEnabled, ...window };
  const conflict = activationConflict(
    self,
    others.map((o) => ({ id: o.id, activationEnabled: o.activation_enabled, startAt: o.start_at, endAt: o.end_at })),
    now,
  );
  if (conflict) throw problemsError([activationConflictProblem(conflict)]);
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

const JSONB = new Set(["days_of_week", "schemes", "fees", "targeting", "metadata", "channels"]);
const cast = (column: string) => (JSONB.has(column) ? "::jsonb" : "");

/** `insert into <table>` of one row given by column name, jsonb columns cast; what the caller adds after it (`returning *`). */
export function insertRow(table: string, row: Record<string, unknown>, tail = ""): [string, unknown[]] {
  const columns = Object.keys(row);
  const placeholders = columns.map((c, i) => `$${i + 1}${cast(c)}`).join(", ");
  return [`insert into ${table} (${columns.join(", ")}) values (${placeholders})${tail ? ` ${tail}` : ""}`, Object.values(row)];
}

/** Everything about a new offer besides its terms: who made it and, for adopted ones, where from. */
export interface OfferOrigin {
  variant: OfferVariant;
  origin: Party;
  supplier: Party | null;
  accepted: boolean;
  marketplace?: {
    offerId: string;
    programId: string;
    approval: Approval;
    decision: "accept" | "decline";
    due: Date | null;
  };
}

/** Inserts an offer after checking rule 4; the caller has validated the terms. */
export async function insertOffer(db: Db, ctx: Ctx, brandId: string, terms: OfferTerms, from: OfferOrigin): Promise<string> {
  const now = ctx.clock.now();
  const id = newId();
  await checkActivationRule(
    db,
    ctx,
    { id, brandId, activationEnabled: terms.activation.enabled, ...terms },
    now,
  );
  const fixed = {
    id,
    account_id: ctx.accountId,
    live: ctx.live,
    brand_id: brandId,
    variant: from.variant,
    origin_id: from.origin.id,
    origin_type: from.origin.type,
    supplier_id: from.supplier?.id ?? null,
    supplier_type: from.supplier?.type ?? null,
    accepted: from.accepted,
    marketplace_offer_id: from.marketplace?.offerId ?? null,
    program_id: from.marketplace?.programId ?? null,
    approval: from.marketplace?.approval ?? null,
    approval_decision: from.marketplace?.decision ?? null,
    approval_due: from.marketplace?.due ?? null,
    created: now,
    updated: now,
  };
  await db.query(...insertRow("offers", { ...fixed, ...termColumnsOf(terms) }));
  return id;
}

export async function createOffer(ctx: Ctx, input: OfferInput & { brandId: string }): Promise<Offer> {
  return ctx.db.tx(async (db) => {
    const tx = { ...ctx, db };
    if (!(await findBrand(tx, input.brandId))) throw invalid("brandId", "no brand with this id for this account and environment");
    const result = termsFromInput(input, ctx);
    if (!result.ok) throw problemsError(result.problems);
    const { terms, variant } = result.value;
    const self: Party = { id: ctx.accountId, type: "card-linking" };
    const id = await insertOffer(db, tx, input.brandId, terms, { variant, origin: self, supplier: null, accepted: true });
    return getOffer(tx, id);
  });
}

/** Rewrites an offer's terms (window instants included). */
export async function writeTerms(db: Db, id: string, terms: OfferTerms, now: Date): Promise<void> {
  const row = termColumnsOf(terms);
  const sets = Object.keys(row).map((c, i) => `${c} = $${i + 2}${cast(c)}`).join(", ");
  await db.query(`update offers set ${sets}, updated = $${Object.keys(row).length + 2} where id = $1`, [id, ...Object.values(row), now]);
}

/** Who receives an offer's events: the publisher, on the program it was adopted into if any. */
export const offerEvent = (row: Pick<OfferRow, "account_id" | "live" | "program_id">, event: string, offer: Offer) => ({
  accountId: row.account_id,
  live: row.live,
  programId: row.program_id,
  event,
  data: offer,
});

export async function updateOffer(ctx: Ctx, id: string, patch: OfferPatch): Promise<Offer> {
  return ctx.db.tx(async (db) => {
    const tx = { ...ctx, db };
    const now = ctx.clock.now();
    await db.query("select id from offers where id = $1 and account_id = $2 and live = $3 for update", [id, ctx.accountId, ctx.live]);
    const row = await findOfferRow(db, ctx, id);
    const current = toOffer(row, now);
    const result = applyPatch(
      termsOf(current),
      { variant: row.variant, status: current.status, source: row.marketplace_offer_id ? "marketplace" : "self" },
      patch,
      now,
    );
    if (!result.ok) throw problemsError(result.problems);
    const { terms, extended, targetingUpdated } = result.value;
    const timingChanged =
      terms.activation.enabled !== current.activation.enabled ||
      terms.startDate !== current.startDate ||
      terms.endDate !== current.endDate;
    if (timingChanged) {
      await checkActivationRule(db, ctx, { id, brandId: row.brand_id, activationEnabled: terms.activation.enabled, ...terms }, now);
    }
    await writeTerms(db, id, terms, now);
    const updated = await getOffer(tx, id);
    if (extended) await enqueueEvent(db, offerEvent(row, "offer.extended", updated), now);
    if (targetingUpdated) await enqueueEvent(db, offerEvent(row, "offer.targeting.updated", updated), now);
    return updated;
  });
}

/** Only self-sourced offers the publisher created can be deleted; marketplace offers cannot. */
export async function deleteOffer(ctx: Ctx, id: string): Promise<void> {
  await ctx.db.tx(async (db) => {
    const row = await findOfferRow(db, ctx, id);
    if (row.marketplace_offer_id || row.origin_id !== ctx.accountId) {
      throw new DomainError(
        "conflict",
        `offerId: offer ${id} comes from the marketplace (content provider ${row.origin_type} ${row.origin_id}); ` +
          "only self-sourced offers you created can be deleted. Unlink its locations to stop it qualifying transactions.",
      );
    }
    await db.query("delete from offers where id = $1", [id]);
  });
}

function assertLinkable(row: OfferRow): void {
  if (row.transaction_source === "oaas") {
    throw invalid(
      "offerId",
      "an offer with transactionSource oaas takes its transactions from you, not from linked locations; its locationsTotal is always -1",
    );
  }
}

/** Links one location of the offer's brand and country; `created` is false when it was linked already. */
export async function linkLocation(ctx: Ctx, offerId: string, locationId: string): Promise<{ offer: Offer; created: boolean }> {
  return ctx.db.tx(async (db) => {
    const tx = { ...ctx, db };
    const row = await findOfferRow(db, ctx, offerId);
    const location = await getLocation(tx, locationId);
    assertLinkable(row);
    if (location.brandId !== row.brand_id) {
      throw invalid("locationId", `the location belongs to brand ${location.brandId}, not to the offer's brand ${row.brand_id}`);
    }
    if (location.countryCode !== row.country_code) {
      throw invalid("locationId", `the location is in ${location.countryCode}; the offer is for ${row.country_code}`);
    }
    const inserted = await db.query(
      "insert into offer_locations (offer_id, location_id, created) values ($1, $2, $3) on conflict do nothing returning offer_id",
      [offerId, locationId, ctx.clock.now()],
    );
    return { offer: await getOffer(tx, offerId), created: inserted.length > 0 };
  });
}

/** Links every location of the offer's brand (in the offer's country) in the program. */
export async function linkProgramLocations(ctx: Ctx, offerId: string, programId: string): Promise<{ offer: Offer; linked: number }> {
  return ctx.db.tx(async (db) => {
    const tx = { ...ctx, db };
    const row = await findOfferRow(db, ctx, offerId);
    await getProgram(tx, programId);
    assertLinkable(row);
    const linked = await linkBrandLocations(db, row, programId, ctx.clock.now());
    return { offer: await getOffer(tx, offerId), linked };
  });
}

/** Links the locations of the offer's brand and country in the program that are not linked yet. */
export async function linkBrandLocations(
  db: Db,
  row: Pick<OfferRow, "id" | "account_id" | "live" | "brand_id" | "country_code">,
  programId: string,
  now: Date,
): Promise<number> {
  const inserted = await db.query(
    `insert into offer_locations (offer_id, location_id, created)
     select $1, l.id, $6 from locations l
     where l.program_id = $2 and l.account_id = $3 and l.live = $4 and l.brand_id = $5 and l.country_code = $7
     on conflict do nothing returning location_id`,
    [row.id, programId, row.account_id, row.live, row.brand_id, now, row.country_code],
  );
  return inserted.length;
}

export async function unlinkLocation(ctx: Ctx, offerId: string, locationId: string): Promise<void> {
  await ctx.db.tx(async (db) => {
    const tx = { ...ctx, db };
    await findOfferRow(db, ctx, offerId);
    await getLocation(tx, locationId);
    const deleted = await db.query("delete from offer_locations where offer_id = $1 and location_id = $2 returning offer_id", [
      offerId,
      locationId,
    ]);
    if (deleted.length === 0) throw new DomainError("not_found", `Location ${locationId} is not linked to offer ${offerId}.`);
  });
}

/** The simulated brands' answers to adoptions: gives every adoption whose brand answer fell due in its environment by `at` that answer; returns how many it decided. */
export async function runMarketplaceDue(db: Db, at: DueTime): Promise<number> {
  // `updated` is the moment the brand answered on its environment's time, not when this sweep ran.
  const rows = await db.query(
    `update offers set approval = case approval_decision when 'accept' then 'accepted' else 'declined' end,
       accepted = (approval_decision = 'accept'), updated = approval_due
     where approval = 'pending' and ${dueIn("approval_due", "account_id", 1)} returning id`,
    dueParams(at),
  );
  return rows.length;
}

/**
 * Announces adopted marketplace offers that have gone live (their brand accepted them, a location is linked
 * or they need none, their startDate came): one `marketplace.offer.live` each, once per offer whatever runs
 * twice (marketplace_offer_live keeps who was told). `now` is each row's time as SQL; `where` narrows the
 * offers; returns how many were announced.
 */
async function announceLive(db: Db, now: string, where: string, params: unknown[]): Promise<number> {
  return db.tx(async (tx) => {
    const rows = await tx.query<OfferRow & { announced: Date }>(
      `with live as (
         select o.id, ${now} as at from offer_records o
         where o.marketplace_offer_id is not null and ${where}
           and not exists (select 1 from marketplace_offer_live a where a.offer_id = o.id)
           and ${statusSql(now)} = 'live'
       ),
       told as (insert into marketplace_offer_live (offer_id, announced) select id, at from live on conflict do nothing returning offer_id, announced)
       select o.*, told.announced from offer_records o join told on told.offer_id = o.id`,
      params,
    );
    await enqueueEvents(
      tx,
      rows.map(({ announced, ...row }) => ({ ...offerEvent(row, "marketplace.offer.live", toOffer(row, announced)), created: announced })),
    );
    return rows.length;
  });
}

/** Due work: the adopted marketplace offers gone live by their environment's time (a startDate reached, a brand's answer). */
export const announceLiveMarketplaceOffers = (db: Db, at: DueTime): Promise<number> =>
  announceLive(db, envNowSql("o.account_id", 1), "o.start_at <= $3", dueParams(at));

/** One adopted offer, at once when it is live at `now` (a test brand answers its adoption at once). */
export const announceIfLive = (db: Db, offerId: string, now: Date): Promise<number> => announceLive(db, "$1::timestamptz", "o.id = $2", [now, offerId]);

/**
 * Every offer that can still qualify a purchase, once per linked location: accepted (or needing no
 * approval) and not ended more than a day before `now` (a purchase's local time can trail service time).
 */
export async function qualifiableOfferRows(db: Db, now: Date): Promise<(OfferRow & { location_id: string })[]> {
  return db.query(
    `select o.*, ol.location_id from offer_records o join offer_locations ol on ol.offer_id = o.id
     where (o.end_at is null or o.end_at > $1::timestamptz - interval '1 day')
       and (o.approval is null or o.approval = 'accepted')`,
    [now],
  );
}
