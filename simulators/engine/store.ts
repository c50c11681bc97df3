// The simulated networks' memory in their own store: merchants and their ids, every purchase and message
// (the history look-ups search), and the queue of work due on the service clock or a sandbox's.
import type { OnboardingReply } from "../../src/platform/bus/messages.ts";
import type { SimulatorDb as Db } from "./db.ts";
import type { PurchaseStanding, PurchaseState } from "../../src/domain/purchase-follow-ups.ts";
import type { Delivery } from "./faults.ts";
import type { CountedKind, Merchant, MessageKind, NativeTransaction, Purchase, Scheme } from "./types.ts";

export interface PurchaseRecord {
  purchase: Purchase;
  state: PurchaseState;
  refunded: number;
  /** What its clearings came to so far. */
  cleared: number;
  runId: string | null;
  /** The sandbox it was made in, '' for the accounts' own environments (./environments.ts). */
  environment: string;
}

interface PurchaseRow {
  purchase: Purchase;
  state: PurchaseState;
  refunded: number;
  cleared: number;
  run_id: string | null;
  environment: string;
}

/** The purchase as the follow-up rules of src/domain/purchase-follow-ups.ts see it. */
export const standingOf = (r: PurchaseRecord): PurchaseStanding => ({
  state: r.state,
  amount: r.purchase.amount,
  currency: r.purchase.currency,
  refunded: r.refunded,
  cleared: r.cleared,
});

const toRecord = (r: PurchaseRow): PurchaseRecord => ({
  purchase: r.purchase,
  state: r.state,
  refunded: r.refunded,
  cleared: r.cleared,
  runId: r.run_id,
  environment: r.environment,
});

export async function findMerchant(db: Db, scheme: Scheme, key: string): Promise<{ merchant: Merchant; onboarded: boolean } | undefined> {
  const [row] = await db.query<{ merchant: Merchant; onboarded: boolean }>(
    "select merchant, onboarded from simulator_merchants where scheme = $1 and merchant_key = $2",
    [scheme, key],
  );
  return row;
}

/** A purchase by the id it was given or by the network's own id for it. */
export async function findPurchase(db: Db, scheme: Scheme, ref: string): Promise<PurchaseRecord | undefined> {
  const [row] = await db.query<PurchaseRow>(
    "select purchase, state, refunded, cleared, run_id, environment from simulator_purchases where scheme = $1 and (id = $2 or native_id = $2)",
    [scheme, ref],
  );
  return row && toRecord(row);
}

/** The purchases of these refs (ids or native ids), by each ref that names one: one read for a batch. */
export async function findPurchases(db: Db, scheme: Scheme, refs: string[]): Promise<Map<string, PurchaseRecord>> {
  const found = new Map<string, PurchaseRecord>();
  if (refs.length === 0) return found;
  const rows = await db.query<PurchaseRow & { id: string; native_id: string }>(
    "select id, native_id, purchase, state, refunded, cleared, run_id, environment from simulator_purchases where scheme = $1 and (id = any($2::text[]) or native_id = any($2::text[]))",
    [scheme, refs],
  );
  for (const r of rows) {
    found.set(r.id, toRecord(r));
    found.set(r.native_id, toRecord(r));
  }
  return found;
}

/** The merchants under these keys: one read for a batch. */
export async function findMerchants(db: Db, scheme: Scheme, keys: string[]): Promise<Map<string, { merchant: Merchant; onboarded: boolean }>> {
  if (keys.length === 0) return new Map();
  const rows = await db.query<{ merchant_key: string; merchant: Merchant; onboarded: boolean }>(
    "select merchant_key, merchant, onboarded from simulator_merchants where scheme = $1 and merchant_key = any($2::text[])",
    [scheme, keys],
  );
  return new Map(rows.map((r) => [r.merchant_key, { merchant: r.merchant, onboarded: r.onboarded }]));
}

export interface MessageWrite {
  kind: MessageKind;
  value: NativeTransaction;
  delivery: Delivery;
  at: Date;
}

/** What one step of a purchase changes, written in one transaction after its messages went out. */
export interface PurchaseWrite {
  purchase: Purchase;
  nativeId: string;
  runId: string | null;
  /** The sandbox the purchase is in ('' for the accounts' own): its schedule runs on that sandbox's clock. */
  environment: string;
  state: PurchaseState;
  refunded?: number;
  /** What its clearings came to after this write. */
  cleared?: number;
  /** The purchase is made by this write (its run counts one more). */
  created?: boolean;
  messages: MessageWrite[];
  schedule: Due[];
  cancel: string[];
}

/** A merchant the network learnt of while handling a batch, saved with the batch's purchases. */
export interface MerchantWrite {
  scheme: Scheme;
  merchant: Merchant;
  onboarded: boolean;
  at: Date;
  environment: string;
}

/** Per run and scheme, what a batch adds to its totals. */
export type RunCount = { run_id: string; scheme: Scheme; purchases: number; dropped: number; duplicated: number } & Record<CountedKind, number>;

/** What one batch writes, a list of rows per table (./batch-rows.ts makes them). */
export interface BatchRows {
  merchants: Record<string, unknown>[];
  purchases: Record<string, unknown>[];
  messages: Record<string, unknown>[];
  /** Scheduled and not cancelled in the same batch. */
  due: Record<string, unknown>[];
  /** Due work cancelled or done. */
  cancel: string[];
  counts: RunCount[];
}

/**
 * Writes what a batch did (./batch-rows.ts) in one statement, a part per table: the merchants it learnt of,
 * the purchases, their messages, the work they scheduled, what they cancelled and the runs' counts.
 */
export async function writeBatch(db: Db, batch: BatchRows): Promise<void> {
  const { merchants, purchases, messages, due, cancel, counts } = batch;
  if (merchants.length + purchases.length + messages.length + due.length + cancel.length + counts.length === 0) return;
  // One statement, atomic on its own: a batch's store write is one round however many tables it touches.
  // Its parts see the same snapshot (a due entry the batch both schedules and cancels is left out of its rows).
  const rows = (values: unknown[]) => JSON.stringify(values);
  await db.query(
    `with merchants as (
       insert into simulator_merchants (scheme, merchant_key, location_id, onboarded, merchant, created, updated, environment)
       select scheme, merchant_key, location_id, onboarded, merchant, at, at, environment
       from jsonb_to_recordset($1::jsonb) as m(scheme text, merchant_key text, location_id uuid, onboarded boolean, merchant jsonb, at timestamptz, environment text)
       on conflict (scheme, merchant_key) do update set onboarded = excluded.onboarded, merchant = excluded.merchant, updated = excluded.updated
     ),
     purchases as (
       insert into simulator_purchases (id, scheme, native_id, card_id, location_id, amount, local_date, authorized_at, state, refunded, cleared, run_id, purchase, environment)
       select id, scheme, native_id, card_id, location_id, amount, local_date, authorized_at, state, refunded, cleared, run_id, purchase, environment
       from jsonb_to_recordset($2::jsonb) as p(id text, scheme text, native_id text, card_id text, location_id uuid, amount numeric, local_date date,
         authorized_at timestamptz, state text, refunded numeric, cleared numeric, run_id text, purchase jsonb, environment text)
       on conflict (id) do update set state = excluded.state, refunded = excluded.refunded, cleared = excluded.cleared,
         amount = excluded.amount, purchase = excluded.purchase
     ),
     messages as (
       insert into simulator_messages (message_id, scheme, purchase_id, kind, delivery, copies, sent_at, value)
       select message_id, scheme, purchase_id, kind, delivery, copies, sent_at, value
       from jsonb_to_recordset($3::jsonb) as m(message_id text, scheme text, purchase_id text, kind text, delivery text, copies int, sent_at timestamptz, value jsonb)
       on conflict (message_id) do update set copies = simulator_messages.copies + excluded.copies
     ),
     due as (
       insert into simulator_due (id, scheme, due_at, kind, payload, environment)
       select id, scheme, due_at, kind, payload, environment
       from jsonb_to_recordset($4::jsonb) as d(id text, scheme text, due_at timestamptz, kind text, payload jsonb, environment text)
       on conflict (id) do nothing
     ),
     cancelled as (
       delete from simulator_due where id = any($5::text[])
     ),
     counts as (
       insert into simulator_run_counts as t (run_id, scheme, purchases, auth, clearing, refund, void, dropped, duplicated)
       select * from jsonb_to_recordset($6::jsonb) as c(run_id text, scheme text, purchases int8, auth int8, clearing int8, refund int8, void int8, dropped int8, duplicated int8)
       on conflict (run_id, scheme) do update set purchases = t.purchases + excluded.purchases, auth = t.auth + excluded.auth,
         clearing = t.clearing + excluded.clearing, refund = t.refund + excluded.refund, void = t.void + excluded.void,
         dropped = t.dropped + excluded.dropped, duplicated = t.duplicated + excluded.duplicated
     )
     select 1`,
    [rows(merchants), rows(purchases), rows(messages), rows(due), cancel, rows(counts)],
  );
}

export async function messageExists(db: Db, messageId: string): Promise<boolean> {
  return (await db.query("select 1 from simulator_messages where message_id = $1", [messageId])).length > 0;
}

export type Due =
  // Without `amount`, what is left of the purchase; `clearingId` names one clearing of several.
  // `withoutAuth`: the clearing of a purchase the network never authorised (offline, force-posted).
  | { id: string; kind: "clearing"; dueAt: Date; payload: { purchaseId: string; amount?: number; clearingId?: string; withoutAuth?: boolean } }
  | { id: string; kind: "void"; dueAt: Date; payload: { purchaseId: string } }
  // An authorisation's expiry; an incremental authorisation; a clearing sent again (`part`: which one, null: the whole amount's).
  | { id: string; kind: "expiry"; dueAt: Date; payload: { purchaseId: string } }
  | { id: string; kind: "increment"; dueAt: Date; payload: { purchaseId: string; incrementId: string; amount: number } }
  | { id: string; kind: "resend"; dueAt: Date; payload: { purchaseId: string; part: { clearingId: string; amount: number } | null; withoutAuth: boolean } }
  | { id: string; kind: "refund"; dueAt: Date; payload: { purchaseId: string; refundId: string; amount: number; referenced?: boolean } }
  | { id: string; kind: "onboarding-reply"; dueAt: Date; payload: { reply: OnboardingReply; merchant: Merchant | null } };

/** Work due in `environment` ('' for the accounts' own), at its time; false when it was scheduled already. */
export async function scheduleDue(db: Db, scheme: Scheme, environment: string, due: Due): Promise<boolean> {
  const rows = await db.query(
    `insert into simulator_due (id, scheme, due_at, kind, payload, environment) values ($1, $2, $3, $4, $5::jsonb, $6)
     on conflict (id) do nothing returning id`,
    [due.id, scheme, due.dueAt.toISOString(), due.kind, JSON.stringify(due.payload), environment],
  );
  return rows.length > 0;
}

/** Due work as the store hands it back: with the environment it is due in. */
export type DueIn = Due & { environment: string };

/**
 * The work due by each environment's own time, the earliest first: one statement that compares each row
 * with its environment's time (the service's `now` for the accounts' own environments, a sandbox's over it:
 * now = frozen ? service offset + offset_ms : service now + offset_ms, as src/platform/clock/environment.ts),
 * through the (scheme, environment, due_at) index. `environment`: that sandbox's alone. A forgotten sandbox
 * has no work left.
 */
export async function dueBefore(
  db: Db,
  scheme: Scheme,
  service: { now: Date; offsetMs: number },
  limit: number,
  environment: string | null = null,
): Promise<DueIn[]> {
  const rows = await db.query<{ id: string; kind: Due["kind"]; due_at: Date; payload: Due["payload"]; environment: string }>(
    `with times as (
       select ''::text as environment, $2::timestamptz as now where $4::text is null
       union all
       select environment, case when frozen then to_timestamp(($3::float8 + offset_ms) / 1000) else $2::timestamptz + make_interval(secs => offset_ms / 1000) end
       from simulator_environments where not forgotten and ($4::text is null or environment = $4)
     )
     select d.id, d.kind, d.due_at, d.payload, d.environment
     from times t cross join lateral (
       select id, kind, due_at, payload, environment from simulator_due
       where scheme = $1 and environment = t.environment and due_at <= t.now order by due_at, id limit $5
     ) d
     order by d.due_at, d.id limit $5`,
    [scheme, service.now.toISOString(), service.offsetMs, environment, limit],
  );
  return rows.map((r) => ({ id: r.id, kind: r.kind, dueAt: r.due_at, payload: r.payload, environment: r.environment }) as DueIn);
}

export async function cardKnown(db: Db, scheme: Scheme, cardId: string): Promise<boolean> {
  return (await db.query("select 1 from simulator_purchases where scheme = $1 and card_id = $2 limit 1", [scheme, cardId])).length > 0;
}

/** The card's purchases with a local date in [from, to], authorised at or after `since`. */
export async function purchasesOfCard(db: Db, scheme: Scheme, cardId: string, from: string, to: string, since: Date): Promise<PurchaseRecord[]> {
  const rows = await db.query<PurchaseRow>(
    `select purchase, state, refunded, cleared, run_id, environment from simulator_purchases
     where scheme = $1 and card_id = $2 and local_date between $3 and $4 and authorized_at >= $5
     order by authorized_at limit 200`,
    [scheme, cardId, from, to, since.toISOString()],
  );
  return rows.map(toRecord);
}

/** How many purchases a traffic run has generated for a scheme: where a restarted run picks up. */
export async function purchasesOfRun(db: Db, scheme: Scheme, runId: string): Promise<number> {
  const [row] = await db.query<{ n: number }>("select count(*)::int8 as n from simulator_purchases where run_id = $1 and scheme = $2", [runId, scheme]);
  return row?.n ?? 0;
}

/** The program an onboarding request named for the merchant (traffic runs can keep to one program). */
export async function setMerchantProgram(db: Db, scheme: Scheme, key: string, programId: string): Promise<void> {
  await db.query("update simulator_merchants set program_id = $3 where scheme = $1 and merchant_key = $2", [scheme, key, programId]);
}

/** A card as an enrolment told the network about it (an unenrolment keeps it, no longer enrolled). */
export async function saveCard(
  db: Db,
  card: { scheme: Scheme; cardId: string; programId: string; firstSix: string; lastFour: string; live: boolean; enrolled: boolean; environment: string },
  now: Date,
): Promise<void> {
  await db.query(
    `insert into simulator_cards (scheme, card_id, program_id, first_six, last_four, live, enrolled, updated, environment)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9)
     on conflict (scheme, card_id) do update set enrolled = excluded.enrolled, updated = excluded.updated`,
    [card.scheme, card.cardId, card.programId, card.firstSix, card.lastFour, card.live, card.enrolled, now.toISOString(), card.environment],
  );
}
