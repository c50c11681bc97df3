// The qualifier's and the return period's writes of transactions: set-based parts of the qualifier's one
// statement, the rows it locks, the row a message records, and the return period's settling.
import { dueParams, envNowSql, type DueTime } from "../../platform/clock/environment.ts";
import type { Db } from "../../platform/db.ts";
import type { OfferResult, OffersConsidered } from "../../domain/qualification.ts";
import type { NetworkTransaction } from "./network-transaction.ts";
import type { LocationWithBrand, StoredCard } from "../catalog/index.ts";
import { placeOfLocation } from "../catalog/index.ts";
import { claimStages, stageKey } from "../../platform/outbox.ts";
import type { WritePart } from "../../platform/write-together.ts";
import { newId } from "../../platform/ids.ts";
import { stageViewOf, type NativeMessages, type StoredTransactionRow, type TransactionPlace, type TransactionRow } from "./transactions.ts";

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
    // The qualifier adds the network's message of each stage it records (src/qualifier/decision.ts keepNativeMessage).
    native_messages: null,
    created: i.now,
    updated: i.now,
  };
}

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
