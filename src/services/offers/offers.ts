// Offers of a publisher: create, read (one, or many names by id), list with status filters, update (with
// extension and targeting events in the outbox) and delete. Rules come from src/domain/offer*.ts; the record
// in ./offer-record.ts.
import type { Ctx } from "../../platform/context.ts";
import { DomainError, invalid } from "../../domain/errors.ts";
import { termsFromInput, type OfferInput, type OfferTerms, type OfferVariant, type Party } from "../../domain/offer.ts";
import { activationConflict, activationConflictProblem } from "../../domain/offer-activation.ts";
import { applyPatch, type OfferPatch } from "../../domain/offer-patch.ts";
import { offerWindow, type Approval, type OfferStatus } from "../../domain/offer-status.ts";
import { DAY_MS } from "../../domain/time-units.ts";
import type { Db } from "../../platform/db.ts";
import { findBrand, getProgram, LOCATIONS_OF_PROGRAM, lockBrand } from "../catalog/index.ts";
import { enqueueEvent } from "../../platform/outbox.ts";
import { Filters, pageByCreated, type Page, type PageQuery } from "../../platform/page.ts";
import { newId } from "../../platform/ids.ts";
import { insertRow, setClause } from "../../platform/sql-row.ts";
import { JSONB_COLUMNS, STATUS_SQL, findOfferRow, offerEvent, problemsError, termColumnsOf, termsOf, toOffer, type Offer, type OfferRow } from "./offer-record.ts";

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
      `(program_id = ? or exists (select 1 from offer_locations ol
         where ol.offer_id = offer_records.id and ol.location_id in (${LOCATIONS_OF_PROGRAM})))`,
      filter.programId,
      filter.programId,
    );
  }
  if (filter.status) filters.add(`${STATUS_SQL} = ?`, now, now, now, filter.status);
  if (filter.expiresWithin !== undefined) {
    filters.add(`${STATUS_SQL} = 'live'`, now, now, now).add("end_at <= ?::timestamptz", new Date(now.getTime() + filter.expiresWithin * DAY_MS));
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
  await lockBrand(db, candidate.brandId);
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
  await db.query(...insertRow("offers", { ...fixed, ...termColumnsOf(terms) }, { jsonb: JSONB_COLUMNS }));
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
  const sets = setClause(row, { jsonb: JSONB_COLUMNS, from: 2 });
  await db.query(`update offers set ${sets}, updated = $${Object.keys(row).length + 2} where id = $1`, [id, ...Object.values(row), now]);
}

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

/** The names of the caller's offers among `ids`, by id (a deleted offer is absent). */
export async function offerNamesOf(ctx: Ctx, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await ctx.db.query<{ id: string; name: string }>("select id, name from offers where id = any($1::uuid[]) and account_id = $2 and live = $3", [
    ids,
    ctx.accountId,
    ctx.live,
  ]);
  return new Map(rows.map((r) => [r.id, r.name]));
}
