// Activation of activation-enabled offers on cards: activate, deactivate, list each card's state, and
// count qualified transactions up to the offer's qualifiedTransactionsLimit (one rule, countQualified, and
// one statement, saveActivationCounts, for the qualifier and the return period alike).
import type { Ctx } from "../../platform/context.ts";
import { DomainError, invalid } from "../../domain/errors.ts";
import { nextActivation, type ActivationState, type DeactivationReason } from "../../domain/offer-activation.ts";
import type { Db } from "../../platform/db.ts";
import { writeTogether, type WritePart } from "../../platform/write-together.ts";
import { getCard, getLinkedCard } from "../catalog/index.ts";
import { findOfferRow, toOffer, type Offer } from "./offer-record.ts";
import { Filters, pageByCreated, type Page, type PageQuery } from "../../platform/page.ts";
import { newId } from "../../platform/ids.ts";

export interface OfferActivation {
  offerId: string;
  cardId: string;
  state: ActivationState;
  qualifiedTransactions: number;
  qualifiedTransactionsLimit: number | null;
  activated: string | null;
  deactivated: string | null;
  deactivationReason: DeactivationReason | null;
}

interface ActivationRow {
  id: string;
  offer_id: string;
  card_id: string;
  state: "activated" | "deactivated";
  qualified_transactions: number;
  activated: Date;
  deactivated: Date | null;
  deactivation_reason: DeactivationReason | null;
  created: Date;
}

const toActivation = (r: ActivationRow, limit: number | null): OfferActivation => ({
  offerId: r.offer_id,
  cardId: r.card_id,
  state: r.state,
  qualifiedTransactions: r.qualified_transactions,
  qualifiedTransactionsLimit: limit,
  activated: r.activated.toISOString(),
  deactivated: r.deactivated?.toISOString() ?? null,
  deactivationReason: r.deactivation_reason,
});

const notActivated = (offerId: string, cardId: string, limit: number | null): OfferActivation => ({
  offerId,
  cardId,
  state: "not activated",
  qualifiedTransactions: 0,
  qualifiedTransactionsLimit: limit,
  activated: null,
  deactivated: null,
  deactivationReason: null,
});

const limitOf = (offer: Offer) => offer.activation.qualifiedTransactionsLimit ?? null;

async function lockRow(db: Db, offerId: string, cardId: string): Promise<ActivationRow | undefined> {
  const [row] = await db.query<ActivationRow>("select * from offer_activations where offer_id = $1 and card_id = $2 for update", [
    offerId,
    cardId,
  ]);
  return row;
}

const noActivation = () =>
  new DomainError("conflict", "activation.enabled: this offer does not use activation; transactions of every enrolled card can qualify");

/** Activates the offer on the card; `created` is false when it was active already. */
export async function activateOffer(ctx: Ctx, offerId: string, cardId: string): Promise<{ activation: OfferActivation; created: boolean }> {
  return ctx.db.tx(async (db) => {
    const now = ctx.clock.now();
    const offer = toOffer(await findOfferRow(db, ctx, offerId), now);
    const card = await getLinkedCard({ ...ctx, db }, cardId);
    if (!offer.activation.enabled) throw noActivation();
    if (offer.status === "expired") throw new DomainError("conflict", `offerId: the offer ended at ${offer.endDate}; it cannot be activated`);
    if (!offer.schemes.includes(card.scheme)) {
      throw invalid("cardId", `the card is ${card.scheme}; the offer runs on ${offer.schemes.join(", ")}`);
    }
    const row = await lockRow(db, offerId, cardId);
    const step = nextActivation({ state: row?.state ?? "not activated", qualifiedTransactions: row?.qualified_transactions ?? 0 }, "activate", limitOf(offer)!);
    if (!step.ok) throw new DomainError("conflict", `cardId: ${step.error}`);
    if (!step.changed) return { activation: toActivation(row!, limitOf(offer)), created: false };
    const [inserted] = await db.query<ActivationRow>(
      `insert into offer_activations (id, offer_id, card_id, account_id, live, state, qualified_transactions, activated, created, updated)
       values ($1, $2, $3, $4, $5, 'activated', 0, $6, $6, $6) returning *`,
      [newId(), offerId, cardId, ctx.accountId, ctx.live, now],
    );
    return { activation: toActivation(inserted!, limitOf(offer)), created: true };
  });
}

/** Deactivates the offer on the card before its limit; the card's further transactions do not qualify. */
export async function deactivateOffer(ctx: Ctx, offerId: string, cardId: string): Promise<OfferActivation> {
  return ctx.db.tx(async (db) => {
    const now = ctx.clock.now();
    const offer = toOffer(await findOfferRow(db, ctx, offerId), now);
    await getCard({ ...ctx, db }, cardId);
    if (!offer.activation.enabled) throw noActivation();
    const row = await lockRow(db, offerId, cardId);
    if (!row) throw new DomainError("not_found", `The offer ${offerId} is not activated on card ${cardId}.`);
    const step = nextActivation({ state: row.state, qualifiedTransactions: row.qualified_transactions }, "deactivate", limitOf(offer) ?? 1);
    if (!step.ok) throw new DomainError("conflict", `cardId: ${step.error}`);
    const [updated] = await db.query<ActivationRow>(
      `update offer_activations set state = 'deactivated', deactivated = $2, deactivation_reason = $3, updated = $2
       where id = $1 returning *`,
      [row.id, now, step.reason],
    );
    return toActivation(updated!, limitOf(offer));
  });
}

export interface ActivationFilter {
  cardId?: string | undefined;
  state?: ActivationState | undefined;
}

/**
 * The cards with an activation record for the offer, newest first. With `cardId`, exactly that card —
 * `not activated` when it has no record — so any card's state can be asked for.
 */
export async function listOfferCards(ctx: Ctx, offerId: string, filter: ActivationFilter, page: PageQuery): Promise<Page<OfferActivation>> {
  const offer = toOffer(await findOfferRow(ctx.db, ctx, offerId), ctx.clock.now());
  const limit = limitOf(offer);
  if (filter.cardId) {
    await getCard(ctx, filter.cardId);
    const [row] = await ctx.db.query<ActivationRow>("select * from offer_activations where offer_id = $1 and card_id = $2", [
      offerId,
      filter.cardId,
    ]);
    const item = row ? toActivation(row, limit) : notActivated(offerId, filter.cardId, limit);
    const items = filter.state === undefined || filter.state === item.state ? [item] : [];
    return { items, count: items.length };
  }
  if (filter.state === "not activated") return { items: [], count: 0 };
  const filters = new Filters().add("offer_id = ?", offerId).add("account_id = ?", ctx.accountId).add("live = ?", ctx.live);
  if (filter.state) filters.add("state = ?", filter.state);
  return pageByCreated(ctx.db, "offer_activations", filters, page, (r: ActivationRow) => toActivation(r, limit));
}

/**
 * Counts one qualified transaction of an activated card, on its own (the return period's end, which
 * finishes purchases one at a time): the qualifier's count (`countQualified`) and write
 * (`saveActivationCounts`) for one pair. `counted` is false when the offer was not active on the card.
 */
export async function recordQualifiedTransaction(
  db: Db,
  offerId: string,
  cardId: string,
  now: Date,
): Promise<{ counted: boolean; activation: OfferActivation | null }> {
  return db.tx(async (tx) => {
    const row = await lockRow(tx, offerId, cardId);
    const [offer] = await tx.query<{ qualified_transactions_limit: number | null }>(
      "select qualified_transactions_limit from offers where id = $1",
      [offerId],
    );
    const limit = offer?.qualified_transactions_limit ?? null;
    const counted = row && limit !== null ? countQualified(row, limit) : undefined;
    if (!counted) return { counted: false, activation: row ? toActivation(row, limit) : null };
    await saveActivationCounts(tx, [counted], now);
    return { counted: true, activation: toActivation((await lockRow(tx, offerId, cardId))!, limit) };
  });
}

/** An activation as the qualifier counts it. */
export interface ActivationCount {
  id: string;
  offer_id: string;
  card_id: string;
  state: "activated" | "deactivated";
  qualified_transactions: number;
}

/** The activations of (offer, card) pairs that exist, locked for update until the caller's transaction ends. */
export async function lockActivationCounts(db: Db, pairs: { offerId: string; cardId: string }[]): Promise<ActivationCount[]> {
  if (pairs.length === 0) return [];
  return db.query<ActivationCount>(
    `select a.id, a.offer_id, a.card_id, a.state, a.qualified_transactions from offer_activations a
     join unnest($1::uuid[], $2::uuid[]) as p(offer_id, card_id) on a.offer_id = p.offer_id and a.card_id = p.card_id
     order by a.id for update of a`,
    [pairs.map((p) => p.offerId), pairs.map((p) => p.cardId)],
  );
}

/**
 * The activation with one more qualified transaction counted (`nextActivation`): the one that reaches the
 * offer's limit deactivates it. Undefined when the offer is not active on the card (nothing to count).
 */
export function countQualified(row: ActivationCount, limit: number): (ActivationCount & { limitReached: boolean }) | undefined {
  const step = nextActivation({ state: row.state, qualifiedTransactions: row.qualified_transactions }, "qualify", limit);
  if (!step.ok) return undefined;
  return { id: row.id, offer_id: row.offer_id, card_id: row.card_id, state: step.state as ActivationCount["state"], qualified_transactions: step.qualifiedTransactions, limitReached: step.reason === "limit" };
}

/**
 * Qualified transactions counted on activations, as a part of a statement (write-together.ts; the qualifier
 * writes them with the results, after `nextActivation`): the one that reached the offer's limit deactivated it.
 */
export function activationCountsPart(counts: (ActivationCount & { limitReached: boolean; at?: Date })[], now: Date): WritePart | undefined {
  if (counts.length === 0) return undefined;
  // `at`: the count's time in its environment (a sandbox's clock), else `now`.
  return {
    ctes: [
      `activations_counted as (
         update offer_activations a set state = u.state, qualified_transactions = u.qualified_transactions,
           deactivated = case when u.state = 'deactivated' then coalesce(u.at, $2::timestamptz) else a.deactivated end,
           deactivation_reason = case when u.limit_reached then 'limit' else null end, updated = coalesce(u.at, $2::timestamptz)
         from jsonb_to_recordset($1::jsonb) as u(id uuid, state text, qualified_transactions int, limit_reached boolean, at timestamptz)
         where a.id = u.id
       )`,
    ],
    params: [JSON.stringify(counts.map((a) => ({ id: a.id, state: a.state, qualified_transactions: a.qualified_transactions, limit_reached: a.limitReached, at: a.at }))), now],
  };
}

/** Activation counts saved in a statement of their own. */
export async function saveActivationCounts(db: Db, counts: (ActivationCount & { limitReached: boolean; at?: Date })[], now: Date): Promise<void> {
  await writeTogether(db, [activationCountsPart(counts, now)]);
}
