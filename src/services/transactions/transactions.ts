// Transactions as the API and the webhooks show them: the spec's Transaction with its offer result.
import { dueParams, envNowSql, type DueTime } from "../../platform/clock/environment.ts";
import type { Ctx } from "../../platform/context.ts";
import type { Db } from "../../platform/db.ts";
import { notFound } from "../../domain/errors.ts";
import { z } from "zod";
import type { Scheme } from "../../domain/scheme.ts";
import { amexTransactionSchema, mastercardTransactionSchema, visaTransactionSchema } from "../../platform/bus/validators.generated.ts";
import { lostReason, NO_CLEARINGS, type ClearingsSoFar, type ConsideredOffer, type OfferResult, type OffersConsidered } from "../../domain/qualification.ts";
import type { Identifiers, NetworkTransaction, Stage } from "./network-transaction.ts";
import type { StoredCard } from "../catalog/index.ts";
import type { LocationWithBrand } from "../catalog/index.ts";
import { Filters, pageByCreated, type Page, type PageQuery } from "../../platform/page.ts";
import { getProgram } from "../catalog/index.ts";
import { placeOfLocation, type Place } from "../catalog/index.ts";
import { claimStages, stageKey } from "../../platform/outbox.ts";
import type { WritePart } from "../../platform/write-together.ts";
import { newId } from "../../platform/ids.ts";

export interface TransactionCard {
  id: string;
  firstNumbers: string;
  lastNumbers: string;
  scheme: string;
  metadata: Record<string, unknown>;
}
export interface TransactionBrand {
  id: string;
  name: string;
  logoUrl: string | null;
}
export interface TransactionLocation extends Place {
  id: string;
}

export interface Transaction {
  id: string;
  accountId: string;
  programId: string;
  live: boolean;
  type: "purchase" | "refund";
  /**
   * For a refund: the purchase it refunds — the one the network named, when Cardlink recorded it, else the
   * one the matching rule finds (same card, location, MID and amount, made before it).
   */
  originalTransactionId: string | null;
  /** For a purchase: the first refund linked to it. */
  refundTransactionId: string | null;
  /** For a clearing that is a transaction of its own (part of an authorisation, or one of several): the authorisation. */
  authTransactionId: string | null;
  /**
   * For a purchase: how much of it has cleared so far (its own clearing stage, or the clearings of its own
   * that name it); for a clearing of its own, its amount; 0 for a refund.
   */
  clearedAmount: number;
  datetime: string;
  created: string;
  updated: string;
  auth: boolean;
  cleared: boolean;
  voided: boolean;
  /** The network withdrew the authorisation, left (partly) uncleared for its expiry days; `expiredAt` says when (service time). */
  expired: boolean;
  expiredAt: string | null;
  cardPresent: boolean;
  /** A purchase's authorised amount, its increments included; a clearing's or a refund's own. */
  amount: number;
  currency: string;
  wallet: string | null;
  targetingTag: "new" | "lapsed" | "existing" | null;
  card: TransactionCard;
  brand: TransactionBrand | null;
  location: TransactionLocation | null;
  offer: OfferResult;
  identifiers: Identifiers;
}

export interface TransactionRow {
  id: string;
  account_id: string;
  program_id: string;
  live: boolean;
  kind: "purchase" | "refund";
  original_id: string | null;
  refund_id: string | null;
  auth_id: string | null;
  /** On an authorisation: what its clearings came to so far; null before any. */
  clearings: ClearingsSoFar | null;
  datetime: string;
  created: Date;
  updated: Date;
  auth: boolean;
  cleared: boolean;
  voided: boolean;
  /** When the network withdrew the authorisation (its expiry); null while it has not. */
  expired_at: Date | null;
  card_present: boolean;
  amount: number;
  currency: string;
  wallet: string | null;
  targeting_tag: "new" | "lapsed" | "existing" | null;
  card: TransactionCard;
  brand: TransactionBrand | null;
  location: TransactionLocation | null;
  offer: OfferResult;
  identifiers: Identifiers;
  card_id: string | null;
  location_id: string | null;
  scheme: string;
  purchase_key: string;
  qualification_due: string | null;
  /** The offers the qualifier's decision weighed; null on refunds and on rows recorded before it kept them. */
  considered: OffersConsidered | null;
  /** The scheme's message each stage was made from, as received; null when none was kept. */
  native_messages: NativeMessages | null;
}

/** The scheme's own message of each stage of a transaction, as the qualifier received it off the bus. */
export type NativeMessages = Partial<Record<Stage, unknown>>;

export const toTransaction = (r: TransactionRow): Transaction => ({
  id: r.id,
  accountId: r.account_id,
  programId: r.program_id,
  live: r.live,
  type: r.kind,
  originalTransactionId: r.original_id,
  refundTransactionId: r.refund_id,
  authTransactionId: r.auth_id,
  clearedAmount: Number((r.clearings ?? NO_CLEARINGS).amount),
  datetime: r.datetime,
  created: r.created.toISOString(),
  updated: r.updated.toISOString(),
  auth: r.auth,
  cleared: r.cleared,
  voided: r.voided,
  expired: r.expired_at !== null,
  expiredAt: r.expired_at?.toISOString() ?? null,
  cardPresent: r.card_present,
  amount: r.amount,
  currency: r.currency,
  wallet: r.wallet,
  targetingTag: r.targeting_tag,
  // jsonb keeps keys in its own order; the record shows them in the spec's.
  card: { id: r.card.id, firstNumbers: r.card.firstNumbers, lastNumbers: r.card.lastNumbers, scheme: r.card.scheme, metadata: r.card.metadata },
  brand: r.brand && { id: r.brand.id, name: r.brand.name, logoUrl: r.brand.logoUrl },
  location: r.location && {
    id: r.location.id,
    address: r.location.address,
    city: r.location.city,
    postcode: r.location.postcode,
    countryCode: r.location.countryCode,
    timezone: r.location.timezone,
    geolocation: r.location.geolocation && { latitude: r.location.geolocation.latitude, longitude: r.location.geolocation.longitude },
    metadata: r.location.metadata,
  },
  offer: {
    id: r.offer.id,
    cashback: r.offer.cashback,
    performanceFee: r.offer.performanceFee,
    qualified: r.offer.qualified,
    qualificationDate: r.offer.qualificationDate,
    message: r.offer.message,
  },
  identifiers: {
    MID: r.identifiers.MID,
    mastercardTransactionSequenceNumber: r.identifiers.mastercardTransactionSequenceNumber,
    mastercardRefNumber: r.identifiers.mastercardRefNumber,
    amexApprovalCode: r.identifiers.amexApprovalCode,
    visaAuthCode: r.identifiers.visaAuthCode,
    mastercardAuthCode: r.identifiers.mastercardAuthCode,
  },
});

export async function findTransaction(ctx: Ctx, id: string): Promise<Transaction | undefined> {
  const [row] = await ctx.db.query<TransactionRow>(
    "select * from transactions where id = $1 and account_id = $2 and live = $3",
    [id, ctx.accountId, ctx.live],
  );
  return row && toTransaction(row);
}

export async function getTransaction(ctx: Ctx, id: string): Promise<Transaction> {
  const found = await findTransaction(ctx, id);
  if (!found) throw notFound("transaction", id);
  return found;
}

/** One offer a transaction's decision weighed, as the qualification read shows it. */
export interface ConsideredOfferView {
  offerId: string;
  /** The offer's name while it exists (null once deleted). */
  offerName: string | null;
  outcome: ConsideredOffer["outcome"];
  cashback: number | null;
  performanceFee: number | null;
  reason: string | null;
}

/** The scheme's own message a stage of a transaction was made from. */
export interface NativeMessage {
  stage: Stage;
  scheme: Scheme;
  /** The scheme's name for the message (its messageType: Visa AUTH, SETTLEMENT…; Mastercard AUTHORIZATION, CLEARING…; Amex AUTH, SUBMISSION…). */
  kind: string | null;
  /** The message as the network sent it. */
  value: Record<string, unknown>;
}

/** How the qualifier decided a transaction: the offers it weighed and the network's messages it read. */
export interface TransactionQualification {
  transactionId: string;
  /** null when the transaction was not decided against offers (a refund) or was recorded before Cardlink kept them. */
  considered: ConsideredOfferView[] | null;
  /** How many more offers were weighed than are listed. */
  moreConsidered: number;
  nativeMessages: NativeMessage[];
}

const STAGE_ORDER: Stage[] = ["auth", "increment", "clearing", "void", "expiry", "refund"];

const MESSAGE_SCHEMAS: Record<Scheme, z.ZodType> = { visa: visaTransactionSchema, mastercard: mastercardTransactionSchema, amex: amexTransactionSchema };

/** The fields of an object schema (through nullable and optional), or null. */
function shapeOf(schema: z.ZodType): Record<string, z.ZodType> | null {
  if (schema instanceof z.ZodObject) return schema.shape as Record<string, z.ZodType>;
  if (schema instanceof z.ZodNullable || schema instanceof z.ZodOptional) return shapeOf(schema.unwrap() as z.ZodType);
  return null;
}

/**
 * jsonb keeps keys in its own order; a native message is shown in its scheme's field order (the Avro
 * schema's, as the network lays it out), nested objects too, any field the schema does not know after.
 */
function inSchemaOrder(value: unknown, schema: z.ZodType): unknown {
  const shape = shapeOf(schema);
  if (!shape || value === null || typeof value !== "object" || Array.isArray(value)) return value;
  const record = value as Record<string, unknown>;
  const ordered: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(shape)) if (key in record) ordered[key] = inSchemaOrder(record[key], field);
  for (const key of Object.keys(record)) if (!(key in ordered)) ordered[key] = record[key];
  return ordered;
}

/** The names of the caller's offers among `ids`, by id (a read of the offers table; a deleted offer is absent). */
async function offerNames(ctx: Ctx, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await ctx.db.query<{ id: string; name: string }>("select id, name from offers where id = any($1::uuid[]) and account_id = $2 and live = $3", [
    ids,
    ctx.accountId,
    ctx.live,
  ]);
  return new Map(rows.map((r) => [r.id, r.name]));
}

/** The caller's transaction's qualification: what its decision weighed and the native message of each stage. */
export async function getTransactionQualification(ctx: Ctx, id: string): Promise<TransactionQualification> {
  const [row] = await ctx.db.query<Pick<TransactionRow, "id" | "scheme" | "currency" | "considered" | "native_messages">>(
    "select id, scheme, currency, considered, native_messages from transactions where id = $1 and account_id = $2 and live = $3",
    [id, ctx.accountId, ctx.live],
  );
  if (!row) throw notFound("transaction", id);
  const offers = row.considered?.offers ?? [];
  const winner = offers.find((o) => o.outcome === "won");
  const names = await offerNames(ctx, [...new Set(offers.map((o) => o.offerId))]);
  const messages = row.native_messages ?? {};
  return {
    transactionId: row.id,
    considered:
      row.considered &&
      offers.map((o) => ({
        offerId: o.offerId,
        offerName: names.get(o.offerId) ?? null,
        outcome: o.outcome,
        cashback: o.cashback ?? null,
        performanceFee: o.performanceFee ?? null,
        reason: o.outcome === "lost" ? lostReason(o, winner, row.currency) : (o.reason ?? null),
      })),
    moreConsidered: row.considered?.more ?? 0,
    nativeMessages: STAGE_ORDER.flatMap((stage) => {
      const value = messages[stage];
      if (value === null || typeof value !== "object") return [];
      const record = value as Record<string, unknown>;
      const kind = typeof record.messageType === "string" ? record.messageType : null;
      return [{ stage, scheme: row.scheme as Scheme, kind, value: inSchemaOrder(record, MESSAGE_SCHEMAS[row.scheme as Scheme]) as Record<string, unknown> }];
    }),
  };
}

export async function listProgramTransactions(
  ctx: Ctx,
  programId: string,
  filter: { cardId?: string; locationId?: string },
  page: PageQuery,
): Promise<Page<Transaction>> {
  await getProgram(ctx, programId);
  const filters = new Filters()
    .add("program_id = ?", programId)
    .add("account_id = ?", ctx.accountId)
    .add("live = ?", ctx.live);
  if (filter.cardId) filters.add("card_id = ?", filter.cardId);
  if (filter.locationId) filters.add("location_id = ?", filter.locationId);
  return pageByCreated(ctx.db, "transactions", filters, page, toTransaction);
}

// ----------------------------------------------------------------- the qualifier's set-based writes

/** A transaction row as the table has it (brand_id is not part of the record the API shows). */
export type StoredTransactionRow = TransactionRow & { brand_id: string | null };

/** The transactions of `ids` that exist, locked for update until the caller's transaction ends. */
export async function lockTransactionRows(db: Db, ids: string[]): Promise<TransactionRow[]> {
  return db.query<TransactionRow>("select * from transactions where id = any($1::uuid[]) order by id for update", [ids]);
}

/** New transactions, inserted as a part of a statement (write-together.ts). */
export function transactionRowsPart(rows: StoredTransactionRow[]): WritePart | undefined {
  if (rows.length === 0) return undefined;
  return {
    ctes: [
      `transactions_inserted as (
         insert into transactions (id, account_id, live, program_id, card_id, location_id, brand_id, scheme, kind, purchase_key,
           original_id, refund_id, auth_id, clearings, datetime, amount, currency, card_present, wallet, auth, cleared, voided, expired_at, targeting_tag,
           identifiers, card, brand, location, offer, qualification_due, considered, native_messages, created, updated)
         select id, account_id, live, program_id, card_id, location_id, brand_id, scheme, kind, purchase_key,
           original_id, refund_id, auth_id, clearings, datetime, amount, currency, card_present, wallet, auth, cleared, voided, expired_at, targeting_tag,
           identifiers, card, brand, location, offer, qualification_due, considered, native_messages, created, updated
         from jsonb_populate_recordset(null::transactions, $1::jsonb)
       )`,
    ],
    params: [JSON.stringify(rows)],
  };
}

/**
 * A later stage of recorded transactions, as a part of a statement (write-together.ts): their stage flags,
 * authorised amount, expiry, identifiers, what their clearings came to, the refund linked to them and
 * `updated`; the offer result (and what is due of it) of the rows in `redecided` (an increment, an expiry);
 * with the native messages of the stages `messages` adds (by transaction id), merged into the row's, a
 * stage's stored message kept.
 */
export function transactionStagesPart(
  rows: TransactionRow[],
  messages: ReadonlyMap<string, NativeMessages> = new Map(),
  redecided: ReadonlySet<string> = new Set(),
): WritePart | undefined {
  if (rows.length === 0) return undefined;
  return {
    ctes: [
      `transactions_staged as (
         update transactions t set auth = u.auth, cleared = u.cleared, voided = u.voided, amount = u.amount,
           expired_at = coalesce(u.expired_at, t.expired_at), identifiers = u.identifiers, clearings = u.clearings,
           refund_id = u.refund_id, updated = u.updated,
           offer = case when u.redecided then u.offer else t.offer end,
           qualification_due = case when u.redecided then u.qualification_due else t.qualification_due end,
           native_messages = coalesce(u.native_messages || t.native_messages, u.native_messages, t.native_messages)
         from jsonb_to_recordset($1::jsonb)
           as u(id uuid, auth boolean, cleared boolean, voided boolean, amount numeric, expired_at timestamptz, identifiers jsonb, clearings jsonb,
             refund_id uuid, updated timestamptz, redecided boolean, offer jsonb, qualification_due date, native_messages jsonb)
         where t.id = u.id
       )`,
    ],
    params: [
      JSON.stringify(
        rows.map((r) => {
          const again = redecided.has(r.id);
          return {
            id: r.id,
            auth: r.auth,
            cleared: r.cleared,
            voided: r.voided,
            amount: r.amount,
            expired_at: r.expired_at,
            identifiers: r.identifiers,
            clearings: r.clearings,
            refund_id: r.refund_id,
            updated: r.updated,
            redecided: again,
            offer: again ? r.offer : null,
            qualification_due: again ? r.qualification_due : null,
            native_messages: messages.get(r.id) ?? null,
          };
        }),
      ),
    ],
  };
}

/** What a refund is matched against: the refund's card and amount, a positive amount as purchases have. */
export interface RefundCandidateKey {
  cardId: string;
  amount: number;
}

/**
 * Purchases that refunds of these cards and amounts may refund (no refund linked yet, not voided), locked
 * for update until the caller's transaction ends: one statement for a batch.
 */
export async function lockRefundCandidates(db: Db, keys: RefundCandidateKey[]): Promise<TransactionRow[]> {
  if (keys.length === 0) return [];
  return db.query<TransactionRow>(
    `select t.* from transactions t
       join (select distinct card_id, amount from jsonb_to_recordset($1::jsonb) as k(card_id uuid, amount numeric)) k
         on t.card_id = k.card_id and t.amount = k.amount
     where t.kind = 'purchase' and t.refund_id is null and not t.voided order by t.id for update of t`,
    [JSON.stringify(keys.map((k) => ({ card_id: k.cardId, amount: k.amount })))],
  );
}

/** Where a transaction happened, as its row keeps it. */
export type TransactionPlace = Pick<StoredTransactionRow, "location_id" | "brand_id" | "brand" | "location">;

/** A location's place: the location and its brand as the record shows them. */
export function placeAt(location: LocationWithBrand): TransactionPlace {
  return {
    location_id: location.id,
    brand_id: location.brand_id,
    brand: { id: location.brand_id, name: location.brand_name, logoUrl: location.brand_logo_url },
    location: { id: location.id, ...placeOfLocation(location) },
  };
}

export interface NewTransaction {
  id: string;
  kind: "purchase" | "refund";
  tx: NetworkTransaction;
  card: StoredCard;
  now: Date;
  result: OfferResult;
  /** The offers the decision weighed (absent: not decided against offers, as a refund). */
  considered?: OffersConsidered;
  originalId: string | null;
  qualificationDue: string | null;
  place: TransactionPlace;
  /** For a clearing that is a transaction of its own: the authorisation it clears. */
  authId?: string | null;
  /** The row's own key when it is not the message's purchase key (a clearing of its own shares its authorisation's). */
  purchaseKey?: string;
}

/** The row a network message or a publisher's submission records, before it is written. */
export function transactionRowOf(i: NewTransaction): StoredTransactionRow {
  const { tx, card } = i;
  return {
    id: i.id,
    account_id: card.account_id,
    live: card.live,
    program_id: card.program_id,
    card_id: card.id,
    ...i.place,
    scheme: tx.scheme,
    kind: i.kind,
    purchase_key: i.purchaseKey ?? tx.purchaseKey,
    original_id: i.originalId,
    refund_id: null,
    auth_id: i.authId ?? null,
    // A purchase recorded at its clearing (or a clearing of its own) cleared its amount in one.
    clearings:
      i.kind === "purchase" && tx.stage === "clearing"
        ? { amount: tx.amount, count: 1, cashback: i.result.cashback, performanceFee: i.result.performanceFee, ...(tx.clearingKey ? { keys: [tx.clearingKey] } : {}) }
        : null,
    datetime: tx.localDateTime,
    amount: tx.amount,
    currency: tx.currency,
    card_present: tx.cardPresent,
    wallet: tx.wallet,
    auth: tx.stage === "auth",
    cleared: tx.stage === "clearing" || tx.stage === "refund",
    voided: false,
    expired_at: null,
    targeting_tag: tx.targetingTag,
    identifiers: { ...tx.identifiers },
    card: { id: card.id, firstNumbers: card.first_numbers, lastNumbers: card.last_numbers, scheme: card.scheme, metadata: card.metadata ?? {} },
    offer: i.result,
    qualification_due: i.qualificationDue,
    considered: i.considered ?? null,
    // The qualifier adds the network's message of each stage it records (src/qualifier/decide.ts).
    native_messages: null,
    created: i.now,
    updated: i.now,
  };
}

/** Purchases whose return period ended by `today`, locked (skipping rows another worker holds). */
/** Purchases whose return period ended by their environment's date (UTC), each with that environment's time. */
export async function lockQualificationsDue(db: Db, at: DueTime, limit: number): Promise<(TransactionRow & { env_now: Date })[]> {
  return db.query<TransactionRow & { env_now: Date }>(
    `select t.*, ${envNowSql("t.account_id", 1)} as env_now from transactions t
     where t.qualification_due is not null and t.qualification_due <= ($3::timestamptz at time zone 'UTC')::date
       and t.qualification_due <= (${envNowSql("t.account_id", 1)} at time zone 'UTC')::date
     order by t.qualification_due, t.id limit $4 for update of t skip locked`,
    [...dueParams(at), limit],
  );
}

/** What the refunds of a purchase add up to (a positive amount). */
/** How much of each purchase has been refunded, many purchases in one statement. */
export async function refundedAmounts(db: Db, purchaseIds: string[]): Promise<Map<string, number>> {
  const rows = await db.query<{ original_id: string; refunded: number }>(
    "select original_id, coalesce(-sum(amount), 0)::float8 as refunded from transactions where original_id = any($1::uuid[]) group by original_id",
    [purchaseIds],
  );
  return new Map(rows.map((r) => [r.original_id, r.refunded]));
}

export async function refundedAmount(db: Db, purchaseId: string): Promise<number> {
  const [row] = await db.query<{ refunded: number }>("select coalesce(-sum(amount), 0)::float8 as refunded from transactions where original_id = $1", [purchaseId]);
  return row?.refunded ?? 0;
}

/** The return period's end: the purchase's final offer result, with nothing due any more. */
export async function settleQualification(db: Db, id: string, offer: OfferResult, now: Date): Promise<TransactionRow> {
  const [row] = await db.query<TransactionRow>(
    "update transactions set offer = $2::jsonb, qualification_due = null, updated = $3 where id = $1 returning *",
    [id, JSON.stringify(offer), now],
  );
  return row!;
}

/**
 * The refunds of a purchase whose return period ended in its favour: the award they reverse is earned now,
 * so their results become qualified. Returns them as they now stand.
 */
export async function qualifyRefundsOf(db: Db, purchaseId: string, now: Date): Promise<TransactionRow[]> {
  return db.query<TransactionRow>(
    `update transactions set offer = offer || '{"qualified": true, "qualificationDate": null}'::jsonb, updated = $2
     where original_id = $1 and kind = 'refund' and offer->>'id' is not null and not (offer->>'qualified')::boolean returning *`,
    [purchaseId, now],
  );
}

/**
 * The keys of the record a later stage may change (its update, an increment's amount, the expiry, the
 * return period's settling, a refund's link). Every other key is the row's as it was inserted, which the
 * outbox view reads back (transaction_event_base, migration 036).
 */
const STAGE_VIEW_KEYS = [
  "id",
  "refundTransactionId",
  "clearedAmount",
  "updated",
  "auth",
  "cleared",
  "voided",
  "expired",
  "expiredAt",
  "amount",
  "offer",
  "identifiers",
] as const satisfies readonly (keyof Transaction)[];

/**
 * The record as of a stage, as far as a later stage may change it: what a transaction event keeps. Its
 * payload is the transaction's row with this laid over (the outbox view, migration 036), which is the
 * record as of the stage, however the row changes after it.
 */
export function stageViewOf(r: TransactionRow): Record<string, unknown> {
  const t = toTransaction(r);
  return Object.fromEntries(STAGE_VIEW_KEYS.map((k) => [k, t[k]]));
}

/** Claims `names` for one transaction, its record as of now the events' payload; returns the events won. */
export async function emitStageEvents(db: Db, row: TransactionRow, names: string[], now: Date): Promise<string[]> {
  const stage = stageViewOf(row);
  const won = await claimStages(
    db,
    names.map((event) => ({ transactionId: row.id, event, eventId: newId(), accountId: row.account_id, live: row.live, programId: row.program_id, stage })),
    now,
  );
  return names.filter((event) => won.has(stageKey(row.id, event)));
}
