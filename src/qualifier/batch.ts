// The qualifier over a batch of network messages (one partition's, in offset order), in ONE database
// transaction, as named steps. Each step says of each message: go on (ok), drop it with an outcome, or
// dead-letter it with a reason.
//
//   parseMessages      normalise each scheme's message                       (memory)
//   dropDuplicates     within the batch and already recorded                 (1 query)
//   resolveFacts       cards, existing transactions, locations by MID, MIDs,
//                      offers (in-memory index), activations                 (6 queries; 5 when no activation offer)
//   decideInOrder      every message in batch order, so per card in order:
//                      activation counts and "rewarded once" hold in a batch (memory, domain rules)
//   writeBatch         transactions, updates, MID insights, activations,
//                      stage claims, outbox events, message marks           (≤ 7 set-based statements)
//
// The bus commits the batch's offsets after the transaction commits. Re-applying a batch changes
// nothing (every message is marked in the same transaction), so a redelivery after a crash is harmless.
import type { Db } from "../services/db.ts";
import type { Clock } from "../clock/index.ts";
import type { Scheme } from "../bus/messages.ts";
import { decide, liveActivationGate, refundResult, type ActivationState, type OfferResult } from "../domain/qualification.ts";
import { nextActivation } from "../domain/offer-activation.ts";
import { transactionIdFor } from "../domain/transaction-id.ts";
import { networkKey } from "../domain/mid-insights.ts";
import { mergeIdentifiers } from "../domain/transaction-identifiers.ts";
import { instantOf } from "../domain/local-dates.ts";
import { newId } from "../services/ids.ts";
import { toTransaction, type Transaction, type TransactionRow } from "../services/transactions.ts";
import type { Offer } from "../services/offers.ts";
import type { OfferIndex } from "./offer-index.ts";
import type { LocationIndex } from "./location-index.ts";
import { normalise } from "./normalise/index.ts";
import type { NetworkTransaction, TransactionCard, TransactionLocation } from "../services/network-transaction.ts";

export type Outcome =
  | { kind: "recorded"; transactionId: string; events: string[] }
  | { kind: "duplicate" }
  | { kind: "dropped"; reason: string };

/** What the batch did with one message: an outcome, or a reason to dead-letter it. */
export type MessageResult = Outcome | { kind: "dead-letter"; reason: string };

export interface BatchDeps {
  db: Db;
  clock: Clock;
  offers: OfferIndex;
  locations: LocationIndex;
}

export interface RawMessage {
  scheme: Scheme;
  value: unknown;
}

/** One message on its way through the steps; `result` is set once a step drops or dead-letters it. */
interface Item {
  raw: RawMessage;
  tx: NetworkTransaction;
  result?: MessageResult;
}

type Verdict = { kind: "ok" } | { kind: "drop"; outcome: Outcome } | { kind: "dead-letter"; reason: string };
const OK: Verdict = { kind: "ok" };
const drop = (reason: string): Verdict => ({ kind: "drop", outcome: { kind: "dropped", reason } });

/** Applies a step's verdicts: dropped and dead-lettered items leave the batch. */
function apply(items: Item[], verdicts: Verdict[]): Item[] {
  const next: Item[] = [];
  items.forEach((item, i) => {
    const v = verdicts[i]!;
    if (v.kind === "ok") next.push(item);
    else item.result = v.kind === "drop" ? v.outcome : { kind: "dead-letter", reason: v.reason };
  });
  return next;
}

export async function processBatch(deps: BatchDeps, messages: RawMessage[]): Promise<MessageResult[]> {
  const now = deps.clock.now();
  const items: Item[] = messages.map((raw) => ({ raw, tx: undefined as unknown as NetworkTransaction }));
  let pending = apply(items, parseMessages(items));
  if (pending.length > 0) {
    await deps.db.tx(async (db) => {
      pending = apply(pending, await dropDuplicates(db, pending));
      const facts = await resolveFacts(db, deps, pending, now);
      const plan = decideInOrder(pending, facts, now);
      pending = apply(pending, plan.verdicts);
      const claimed = await writeBatch(db, plan, now);
      for (const item of pending) {
        const id = plan.transactionOf.get(item)!;
        item.result = { kind: "recorded", transactionId: id, events: claimed.get(item) ?? [] };
      }
    });
  }
  return items.map((item) => item.result!);
}

// ------------------------------------------------------------------------------------------ parse

function parseMessages(items: Item[]): Verdict[] {
  return items.map((item) => {
    const parsed = normalise(item.raw.scheme, item.raw.value);
    if (!parsed.ok) return { kind: "dead-letter", reason: parsed.reason };
    item.tx = parsed.value;
    return OK;
  });
}

// ------------------------------------------------------------------------------------- duplicates

async function dropDuplicates(db: Db, items: Item[]): Promise<Verdict[]> {
  const rows = await db.query<{ scheme: string; message_id: string }>(
    `select m.scheme, m.message_id from transaction_messages m
     join unnest($1::text[], $2::text[]) as b(scheme, message_id) on m.scheme = b.scheme and m.message_id = b.message_id`,
    [items.map((i) => i.tx.scheme), items.map((i) => i.tx.messageId)],
  );
  const seen = new Set(rows.map((r) => `${r.scheme}\u0000${r.message_id}`));
  return items.map((item) => {
    const key = `${item.tx.scheme}\u0000${item.tx.messageId}`;
    if (seen.has(key)) return { kind: "drop", outcome: { kind: "duplicate" } };
    seen.add(key); // a second copy inside the batch is a duplicate too
    return OK;
  });
}

// ------------------------------------------------------------------------------------------ facts


interface ActivationRow {
  id: string;
  offer_id: string;
  card_id: string;
  state: "activated" | "deactivated";
  qualified_transactions: number;
}

interface Facts {
  cards: Map<string, TransactionCard>;
  /** Transactions already recorded that the batch's messages name (locked for update). */
  existing: Map<string, TransactionRow>;
  /** Per item: the location its MIDs name in its card's program. */
  locations: Map<Item, TransactionLocation>;
  /** MID record ids by `programId|scheme|networkKey`. */
  mids: Map<string, string>;
  offers: ReadonlyMap<string, Offer[]>;
  /** Activation rows by `offerId|cardId` (locked for update). */
  activations: Map<string, ActivationRow>;
}

const purchaseIdOf = (tx: NetworkTransaction) => transactionIdFor(tx.scheme, "purchase", tx.purchaseKey);
const originalIdOf = (tx: NetworkTransaction) => (tx.originalKey ? transactionIdFor(tx.scheme, "purchase", tx.originalKey) : null);
const refundIdOf = (tx: NetworkTransaction) => transactionIdFor(tx.scheme, "refund", tx.purchaseKey);
const midKey = (programId: string, scheme: string, key: string) => `${programId}|${scheme}|${key}`;

async function resolveFacts(db: Db, indexes: Pick<BatchDeps, "offers" | "locations">, items: Item[], now: Date): Promise<Facts> {
  const cardRows = await db.query<TransactionCard>("select * from cards where id = any($1::uuid[])", [[...new Set(items.map((i) => i.tx.cardId))]]);
  const cards = new Map(cardRows.map((c) => [c.id, c]));

  const ids = new Set<string>();
  for (const { tx } of items) {
    if (tx.stage === "refund") {
      ids.add(refundIdOf(tx));
      const original = originalIdOf(tx);
      if (original) ids.add(original);
    } else ids.add(purchaseIdOf(tx));
  }
  const existingRows = await db.query<TransactionRow>("select * from transactions where id = any($1::uuid[]) order by id for update", [[...ids]]);
  const existing = new Map(existingRows.map((r) => [r.id, r]));

  // Locations by MID, from the in-memory location index (location-index.ts). Purchases already recorded
  // keep their location; refunds of a known purchase take the purchase's.
  const locationOf = await indexes.locations.current(db);
  const locations = new Map<Item, TransactionLocation>();
  for (const item of items) {
    const { tx } = item;
    const card = cards.get(tx.cardId);
    if (!card || tx.stage === "void") continue;
    if (tx.stage === "refund" ? existing.has(originalIdOf(tx) ?? "") : existing.has(purchaseIdOf(tx))) continue;
    const location = locationOf(card.program_id, tx);
    if (location) locations.set(item, location);
  }

  // MID records, for the MID insights' first and last transactions seen.
  const midKeys = new Map<string, { programId: string; scheme: string; key: string }>();
  for (const { tx } of items) {
    const card = cards.get(tx.cardId);
    if (!card || (tx.stage !== "auth" && tx.stage !== "clearing")) continue;
    const key = networkKey(tx.scheme, tx.merchant);
    midKeys.set(midKey(card.program_id, tx.scheme, key), { programId: card.program_id, scheme: tx.scheme, key });
  }
  const midList = [...midKeys.values()];
  const midRows = midList.length
    ? await db.query<{ id: string; program_id: string; scheme: string; network_key: string }>(
        `select m.id, m.program_id, m.scheme::text as scheme, m.network_key from mids m
         join unnest($1::uuid[], $2::text[], $3::text[]) as k(program_id, scheme, network_key)
           on m.program_id = k.program_id and m.scheme::text = k.scheme and m.network_key = k.network_key`,
        [midList.map((m) => m.programId), midList.map((m) => m.scheme), midList.map((m) => m.key)],
      )
    : [];
  const mids = new Map(midRows.map((r) => [midKey(r.program_id, r.scheme, r.network_key), r.id]));

  const offers = await indexes.offers.current(db, now);
  const pairs: { offerId: string; cardId: string }[] = [];
  for (const [item, location] of locations) {
    for (const offer of offers.get(location.id) ?? []) if (offer.activation.enabled) pairs.push({ offerId: offer.id, cardId: item.tx.cardId });
  }
  const activationRows = pairs.length
    ? await db.query<ActivationRow>(
        `select a.id, a.offer_id, a.card_id, a.state, a.qualified_transactions from offer_activations a
         join unnest($1::uuid[], $2::uuid[]) as p(offer_id, card_id) on a.offer_id = p.offer_id and a.card_id = p.card_id
         order by a.id for update of a`,
        [pairs.map((p) => p.offerId), pairs.map((p) => p.cardId)],
      )
    : [];
  const activations = new Map(activationRows.map((r) => [`${r.offer_id}|${r.card_id}`, r]));
  return { cards, existing, locations, mids, offers, activations };
}

// ----------------------------------------------------------------------------------------- decide

/** A transaction row as the table has it (brand_id is not part of the record the API shows). */
type Row = TransactionRow & { brand_id: string | null };

interface StageClaim {
  item: Item;
  transactionId: string;
  event: string;
  eventId: string;
  /** The record as of this stage: the event's data. */
  data: Transaction;
  accountId: string;
  live: boolean;
  programId: string;
}

interface MidTouch {
  midId: string;
  programId: string;
  at: Date;
  lastId: string;
  firstAuth: string | null;
  firstClearing: string | null;
}

interface Plan {
  verdicts: Verdict[];
  transactionOf: Map<Item, string>;
  inserted: Map<string, Row>;
  updated: Map<string, TransactionRow>;
  claims: StageClaim[];
  marks: { scheme: string; messageId: string; transactionId: string; stage: string }[];
  midTouches: Map<string, MidTouch>;
  activations: Map<string, ActivationRow & { limitReached: boolean }>;
}

const STAGE_EVENT = { auth: "transaction.auth", clearing: "transaction.clearing", refund: "transaction.refund" } as const;

function decideInOrder(items: Item[], facts: Facts, now: Date): Plan {
  const plan: Plan = {
    verdicts: [],
    transactionOf: new Map(),
    inserted: new Map(),
    updated: new Map(),
    claims: [],
    marks: [],
    midTouches: new Map(),
    activations: new Map(),
  };
  const claimed = new Set<string>();
  const rowOf = (id: string): TransactionRow | undefined => plan.inserted.get(id) ?? facts.existing.get(id);
  const nowIso = now.toISOString();

  const emit = (item: Item, row: TransactionRow, stage: "auth" | "clearing" | "refund") => {
    const base = STAGE_EVENT[stage];
    const names = stage !== "refund" && row.offer.qualified ? [base, `${base}.qualified`] : [base];
    const data = toTransaction(row);
    for (const event of names) {
      const key = `${row.id}\u0000${event}`;
      if (claimed.has(key)) continue;
      claimed.add(key);
      plan.claims.push({ item, transactionId: row.id, event, eventId: newId(), data, accountId: row.account_id, live: row.live, programId: row.program_id });
    }
  };
  const recorded = (item: Item, transactionId: string): Verdict => {
    plan.transactionOf.set(item, transactionId);
    plan.marks.push({ scheme: item.tx.scheme, messageId: item.tx.messageId, transactionId, stage: item.tx.stage });
    return OK;
  };
  const touchMid = (tx: NetworkTransaction, programId: string, transactionId: string, zone: string) => {
    if (tx.stage !== "auth" && tx.stage !== "clearing") return;
    const midId = facts.mids.get(midKey(programId, tx.scheme, networkKey(tx.scheme, tx.merchant)));
    if (!midId) return;
    // The purchase's local time is read in the location's time zone.
    const at = instantOf(tx.localDateTime, zone);
    const touch = plan.midTouches.get(midId) ?? { midId, programId, at, lastId: transactionId, firstAuth: null, firstClearing: null };
    if (at >= touch.at) {
      touch.at = at;
      touch.lastId = transactionId;
    }
    if (tx.stage === "auth") touch.firstAuth ??= transactionId;
    else touch.firstClearing ??= transactionId;
    plan.midTouches.set(midId, touch);
  };
  const activationOf = (cardId: string) => (offerId: string): ActivationState =>
    (plan.activations.get(`${offerId}|${cardId}`) ?? facts.activations.get(`${offerId}|${cardId}`))?.state ?? "not activated";

  for (const item of items) {
    const { tx } = item;
    const card = facts.cards.get(tx.cardId);
    if (!card) {
      plan.verdicts.push(drop("card not enrolled"));
      continue;
    }
    if (tx.stage === "void") {
      const id = purchaseIdOf(tx);
      const row = rowOf(id);
      if (!row) {
        plan.verdicts.push(drop("void of a purchase Cardlink did not record"));
        continue;
      }
      row.voided = true;
      row.updated = now;
      if (!plan.inserted.has(id)) plan.updated.set(id, row);
      plan.verdicts.push(recorded(item, id));
      continue;
    }
    if (tx.stage === "refund") {
      const id = refundIdOf(tx);
      if (rowOf(id)) {
        plan.verdicts.push(drop("refund already recorded"));
        continue;
      }
      const originalId = originalIdOf(tx);
      const original = originalId ? rowOf(originalId) : undefined;
      const location = original ? null : facts.locations.get(item);
      if (!original && !location) {
        plan.verdicts.push(drop("refund at no onboarded location of the card's program"));
        continue;
      }
      const result: OfferResult = original
        ? refundResult(original.offer, original.amount, tx.amount, tx.currency)
        : { id: null, cashback: 0, performanceFee: 0, qualified: false, qualificationDate: null, message: ["The refund matches no purchase Cardlink recorded."] };
      const row = newRow({ id, kind: "refund", tx, card, now, result, originalId: original?.id ?? null, qualificationDue: null, ...placeOf(original, location!) });
      plan.inserted.set(id, row);
      emit(item, row, "refund");
      plan.verdicts.push(recorded(item, id));
      continue;
    }
    const id = purchaseIdOf(tx);
    const existing = rowOf(id);
    if (existing) {
      // The purchase's other stage: auth after a clearing that came first, or the clearing after the auth.
      if (tx.stage === "auth") existing.auth = true;
      else existing.cleared = true;
      existing.identifiers = mergeIdentifiers(existing.identifiers, tx.identifiers);
      existing.updated = now;
      if (!plan.inserted.has(id)) plan.updated.set(id, existing);
      touchMid(tx, existing.program_id, id, existing.location?.timezone ?? "UTC");
      emit(item, existing, tx.stage);
      plan.verdicts.push(recorded(item, id));
      continue;
    }
    const location = facts.locations.get(item);
    if (!location) {
      plan.verdicts.push(drop("no onboarded location of the card's program has this MID"));
      continue;
    }
    touchMid(tx, card.program_id, id, location.timezone);
    const candidates = (facts.offers.get(location.id) ?? []).filter((o) => o.live === card.live);
    const activation = activationOf(card.id);
    const gate = liveActivationGate(card.live, candidates, activation);
    if (gate) {
      plan.verdicts.push(drop(gate));
      continue;
    }
    const result = decide(
      candidates,
      { amount: tx.amount, currency: tx.currency, localDateTime: tx.localDateTime, scheme: tx.scheme, targetingTag: tx.targetingTag, created: nowIso },
      activation,
      nowIso,
    );
    const row = newRow({
      id,
      kind: "purchase",
      tx,
      card,
      now,
      result,
      originalId: null,
      qualificationDue: result.qualified ? null : result.qualificationDate,
      ...placeOf(undefined, location),
    });
    plan.inserted.set(id, row);
    if (result.qualified && result.id) countActivation(plan, facts, candidates, result.id, card.id);
    emit(item, row, tx.stage);
    plan.verdicts.push(recorded(item, id));
  }
  return plan;
}

/** Counts a qualified transaction on the card's activation of an activation offer, up to its limit. */
function countActivation(plan: Plan, facts: Facts, candidates: Offer[], offerId: string, cardId: string) {
  const offer = candidates.find((o) => o.id === offerId);
  const limit = offer?.activation.qualifiedTransactionsLimit ?? null;
  if (!offer?.activation.enabled || limit === null) return;
  const key = `${offerId}|${cardId}`;
  const row = plan.activations.get(key) ?? facts.activations.get(key);
  if (!row) return;
  const step = nextActivation({ state: row.state, qualifiedTransactions: row.qualified_transactions }, "qualify", limit);
  if (!step.ok) return;
  plan.activations.set(key, { ...row, state: step.state as ActivationRow["state"], qualified_transactions: step.qualifiedTransactions, limitReached: step.reason === "limit" });
}

/** Where the record says the purchase happened: the original purchase's place for a refund of one. */
function placeOf(original: TransactionRow | undefined, location: TransactionLocation): Pick<Row, "location_id" | "brand_id" | "brand" | "location"> {
  if (original) {
    const o = original as Row;
    return { location_id: o.location_id, brand_id: o.brand?.id ?? null, brand: o.brand, location: o.location };
  }
  return {
    location_id: location.id,
    brand_id: location.brand_id,
    brand: { id: location.brand_id, name: location.brand_name, logoUrl: location.brand_logo_url },
    location: {
      id: location.id,
      address: location.address,
      city: location.city,
      postcode: location.postcode,
      countryCode: location.country_code,
      timezone: location.timezone,
      geolocation: location.latitude === null || location.longitude === null ? null : { latitude: location.latitude, longitude: location.longitude },
      metadata: location.metadata ?? {},
    },
  };
}

function newRow(i: {
  id: string;
  kind: "purchase" | "refund";
  tx: NetworkTransaction;
  card: TransactionCard;
  now: Date;
  result: OfferResult;
  originalId: string | null;
  qualificationDue: string | null;
} & Pick<Row, "location_id" | "brand_id" | "brand" | "location">): Row {
  const { tx, card } = i;
  return {
    id: i.id,
    account_id: card.account_id,
    live: card.live,
    program_id: card.program_id,
    card_id: card.id,
    location_id: i.location_id,
    brand_id: i.brand_id,
    scheme: tx.scheme,
    kind: i.kind,
    purchase_key: tx.purchaseKey,
    original_id: i.originalId,
    datetime: tx.localDateTime,
    amount: tx.amount,
    currency: tx.currency,
    card_present: tx.cardPresent,
    wallet: tx.wallet,
    auth: tx.stage === "auth",
    cleared: tx.stage === "clearing" || tx.stage === "refund",
    voided: false,
    targeting_tag: tx.targetingTag,
    identifiers: { ...tx.identifiers },
    card: { id: card.id, firstNumbers: card.first_numbers, lastNumbers: card.last_numbers, scheme: card.scheme, metadata: card.metadata ?? {} },
    brand: i.brand,
    location: i.location,
    offer: i.result,
    qualification_due: i.qualificationDue,
    created: i.now,
    updated: i.now,
  };
}

// ------------------------------------------------------------------------------------------ write

/** Writes the plan with set-based statements; returns the events each item's stage claims produced. */
async function writeBatch(db: Db, plan: Plan, now: Date): Promise<Map<Item, string[]>> {
  if (plan.inserted.size > 0) {
    await db.query(
      `insert into transactions (id, account_id, live, program_id, card_id, location_id, brand_id, scheme, kind, purchase_key,
         original_id, datetime, amount, currency, card_present, wallet, auth, cleared, voided, targeting_tag, identifiers, card,
         brand, location, offer, qualification_due, created, updated)
       select id, account_id, live, program_id, card_id, location_id, brand_id, scheme, kind, purchase_key,
         original_id, datetime, amount, currency, card_present, wallet, auth, cleared, voided, targeting_tag, identifiers, card,
         brand, location, offer, qualification_due, created, updated
       from jsonb_populate_recordset(null::transactions, $1::jsonb)`,
      [JSON.stringify([...plan.inserted.values()])],
    );
  }
  if (plan.updated.size > 0) {
    await db.query(
      `update transactions t set auth = u.auth, cleared = u.cleared, voided = u.voided, identifiers = u.identifiers, updated = u.updated
       from jsonb_to_recordset($1::jsonb) as u(id uuid, auth boolean, cleared boolean, voided boolean, identifiers jsonb, updated timestamptz)
       where t.id = u.id`,
      [JSON.stringify([...plan.updated.values()].map((r) => ({ id: r.id, auth: r.auth, cleared: r.cleared, voided: r.voided, identifiers: r.identifiers, updated: r.updated })))],
    );
  }
  if (plan.midTouches.size > 0) {
    await db.query(
      `update mid_insights m set
         last_seen_transaction_id = case when m.last_seen_transaction_date is null or u.at >= m.last_seen_transaction_date
           then u.last_id else m.last_seen_transaction_id end,
         last_seen_transaction_date = greatest(m.last_seen_transaction_date, u.at),
         first_transaction_auth_id = coalesce(m.first_transaction_auth_id, u.first_auth),
         first_transaction_clearing_id = coalesce(m.first_transaction_clearing_id, u.first_clearing),
         event_ts = greatest(m.event_ts, u.at), updated = $2
       from jsonb_to_recordset($1::jsonb) as u(mid_id uuid, program_id uuid, at timestamptz, last_id uuid, first_auth uuid, first_clearing uuid)
       where m.mid_id = u.mid_id and m.program_id = u.program_id`,
      [
        JSON.stringify([...plan.midTouches.values()].map((t) => ({ mid_id: t.midId, program_id: t.programId, at: t.at, last_id: t.lastId, first_auth: t.firstAuth, first_clearing: t.firstClearing }))),
        now,
      ],
    );
  }
  if (plan.activations.size > 0) {
    await db.query(
      `update offer_activations a set state = u.state, qualified_transactions = u.qualified_transactions,
         deactivated = case when u.state = 'deactivated' then $2::timestamptz else a.deactivated end,
         deactivation_reason = case when u.limit_reached then 'limit' else null end, updated = $2
       from jsonb_to_recordset($1::jsonb) as u(id uuid, state text, qualified_transactions int, limit_reached boolean)
       where a.id = u.id`,
      [JSON.stringify([...plan.activations.values()].map((a) => ({ id: a.id, state: a.state, qualified_transactions: a.qualified_transactions, limit_reached: a.limitReached }))), now],
    );
  }
  const events = new Map<Item, string[]>();
  if (plan.claims.length > 0) {
    // A stage's event exists at most once per transaction, whatever is redelivered: claims that lose
    // (the stage was claimed before) write no outbox event.
    const won = await db.query<{ transaction_id: string; event: string }>(
      `insert into transaction_stages (transaction_id, event, event_id, created)
       select c.transaction_id, c.event, c.event_id, $4 from unnest($1::uuid[], $2::text[], $3::uuid[]) as c(transaction_id, event, event_id)
       on conflict do nothing returning transaction_id, event`,
      [plan.claims.map((c) => c.transactionId), plan.claims.map((c) => c.event), plan.claims.map((c) => c.eventId), now],
    );
    const keys = new Set(won.map((w) => `${w.transaction_id}\u0000${w.event}`));
    const outbox = plan.claims.filter((c) => keys.has(`${c.transactionId}\u0000${c.event}`));
    if (outbox.length > 0) {
      await db.query(
        `insert into outbox (id, account_id, live, program_id, event, data, created)
         select id, account_id, live, program_id, event, data, $2 from jsonb_to_recordset($1::jsonb)
           as e(id uuid, account_id uuid, live boolean, program_id uuid, event text, data jsonb)`,
        [JSON.stringify(outbox.map((c) => ({ id: c.eventId, account_id: c.accountId, live: c.live, program_id: c.programId, event: c.event, data: c.data }))), now],
      );
    }
    for (const c of outbox) events.set(c.item, [...(events.get(c.item) ?? []), c.event]);
  }
  if (plan.marks.length > 0) {
    await db.query(
      `insert into transaction_messages (scheme, message_id, transaction_id, stage, received)
       select scheme, message_id, transaction_id, stage, $5 from unnest($1::text[], $2::text[], $3::uuid[], $4::text[])
         as m(scheme, message_id, transaction_id, stage)`,
      [plan.marks.map((m) => m.scheme), plan.marks.map((m) => m.messageId), plan.marks.map((m) => m.transactionId), plan.marks.map((m) => m.stage), now],
    );
  }
  return events;
}
