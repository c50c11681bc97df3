// The qualifier over a batch of network messages (one partition's, in offset order), in ONE database
// transaction, as a list of named steps that a runner times. Each step says of each message still in the
// batch: go on (ok), drop it with an outcome, or dead-letter it with a reason; a step that throws (the
// database) fails the whole batch, so nothing is committed and the bus delivers it again.
//
//   parse              normalise each scheme's message                       (memory)
//   resolve            messages already recorded, cards, existing transactions, the purchases refunds may
//                      refund, the index versions (5 queries, pipelined: one round trip); then MIDs and activations (≤ 2, one
//                      round trip); locations by MID and offers from the in-memory indexes
//   dedupe             within the batch and already recorded                 (memory)
//   decide             every message in batch order, so per card in order:
//                      activation counts and "rewarded once" hold in a batch, across the clearings of one
//                      authorisation too; refunds linked to their purchases (memory, domain rules)
//   write              transactions, updates, MID insights, activations, stage claims with their
//                      outbox events, message marks                          (≤ 6 set-based statements, pipelined)
//   commit             the database transaction's commit
//
// The runner reports each batch's time in each step (`StepTimings`): the qualifier's role puts them in the
// cardlink_qualifier_step_seconds histogram and a debug log line, and the pipeline bench prints their shares.
//
// A purchase a publisher submits for an oaas offer (src/services/transactions/publisher.ts) goes through the
// same steps after parse, as a batch of one: decided against its one offer, recorded at the offer's brand,
// counted on its activation and reported through the outbox by the same statements.
//
// A transaction's row also keeps, in the same insert or update, the offers its decision weighed (each one's
// award or why it lost) and the scheme's native message of each of its stages, as received: the dashboard's
// transaction page and GET /v1/transactions/{id}/qualification read them.
//
// Every statement is a service's (src/services): this module holds the steps and no SQL. On PostgreSQL
// the statements of one round are sent together on the transaction's connection (postgres.js pipelines
// them), so a batch costs about three round trips and the commit. The bus commits the batch's offsets
// after the transaction commits. Re-applying a batch changes nothing (every message is marked in the
// same transaction), so a redelivery after a crash is harmless.
import type { Db } from "../platform/db.ts";
import type { Clock } from "../platform/clock/index.ts";
import type { Scheme } from "../platform/bus/messages.ts";
import {
  NO_CLEARINGS,
  addClearing,
  clearingResult,
  consideredOfResult,
  decide,
  decision,
  liveActivationGate,
  refundResult,
  type ActivationState,
  type OfferResult,
} from "../domain/qualification.ts";
import { matchRefund, type PurchaseToMatch } from "../domain/refund-matching.ts";
import { roundMoney } from "../domain/money.ts";
import { clearingTransactionIdFor, transactionIdFor } from "../domain/transaction-id.ts";
import { networkKey } from "../domain/mid-insights.ts";
import { mergeIdentifiers } from "../domain/transaction-identifiers.ts";
import { instantOf } from "../domain/local-dates.ts";
import { stageEvents } from "../domain/stage-events.ts";
import { newId } from "../platform/ids.ts";
import {
  insertTransactionRows,
  lockRefundCandidates,
  lockTransactionRows,
  placeAt,
  publisherSubmission,
  toTransaction,
  transactionRowOf,
  updateTransactionStages,
  type NativeMessages,
  type PublisherTransactionInput,
  type StoredTransactionRow as Row,
  type TransactionPlace,
  type TransactionRow,
} from "../services/transactions/index.ts";
import type { Offer } from "../services/offers/index.ts";
import { cardsForTransactions } from "../services/catalog/index.ts";
import { indexVersions } from "../services/transactions/index.ts";
import { markMessages, messageKey, recordedMessages, type MessageMark } from "../services/transactions/index.ts";
import { midIds, midKeyOf, recordTransactionsSeen, type MidKey, type MidTouch } from "../services/mid-insights/index.ts";
import { countQualified, lockActivationCounts, saveActivationCounts, type ActivationCount } from "../services/offers/index.ts";
import { claimStages, stageKey, type StageClaim } from "../platform/outbox.ts";
import type { OfferIndex } from "./offer-index.ts";
import type { LocationIndex } from "./location-index.ts";
import { normalise } from "./normalise/index.ts";
import type { NetworkTransaction } from "../services/transactions/index.ts";
import type { StoredCard } from "../services/catalog/index.ts";
import type { LocationWithBrand } from "../services/catalog/index.ts";

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

/** The steps, in the order a batch goes through them; `commit` is the database transaction's commit. */
export const STEPS = ["parse", "resolve", "dedupe", "decide", "write", "commit"] as const;
export type StepName = (typeof STEPS)[number];
/** Milliseconds one batch spent in each step it ran (a batch left empty by a step runs no more). */
export type StepTimings = Partial<Record<StepName, number>>;

/** One message on its way through the steps; `result` is set once a step drops or dead-letters it. */
interface Item {
  /** The network's message as received (kept as its stage's native message); absent for a submission. */
  raw?: RawMessage;
  tx: NetworkTransaction;
  /** A publisher's submission: decided against its one offer, recorded at the offer's brand. */
  submitted?: { offer: Offer; place: TransactionPlace };
  result?: MessageResult;
}

type Verdict = { kind: "ok" } | { kind: "drop"; outcome: Outcome } | { kind: "dead-letter"; reason: string };
const OK: Verdict = { kind: "ok" };
const drop = (reason: string): Verdict => ({ kind: "drop", outcome: { kind: "dropped", reason } });
const DUPLICATE: Verdict = { kind: "drop", outcome: { kind: "duplicate" } };

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

/** The in-memory indexes that locate network messages (a batch of submissions alone needs none). */
type Indexes = Pick<BatchDeps, "offers" | "locations">;

/** What the steps share as a batch goes through them: each step reads what the earlier ones left. */
interface BatchState {
  db: Db;
  indexes?: Indexes;
  now: Date;
  /** The items still in the batch. */
  pending: Item[];
  facts?: Facts;
  plan?: Plan;
}

/** A named step: its verdict on each pending item, or none when it only adds to the state. */
interface Step {
  name: StepName;
  run(batch: BatchState): Verdict[] | void | Promise<Verdict[] | void>;
}

/** The steps inside the database transaction, after parse. */
const TRANSACTION_STEPS: Step[] = [
  {
    name: "resolve",
    async run(b) {
      b.facts = await resolveFacts(b.db, b.indexes, b.pending, b.now);
    },
  },
  { name: "dedupe", run: (b) => dropDuplicates(b.pending, b.facts!.recorded) },
  {
    name: "decide",
    run(b) {
      b.plan = decideInOrder(b.pending, b.facts!, b.now);
      return b.plan.verdicts;
    },
  },
  {
    name: "write",
    async run(b) {
      const claimed = await writeBatch(b.db, b.plan!, b.now);
      for (const item of b.pending) {
        item.result = { kind: "recorded", transactionId: b.plan!.transactionOf.get(item)!, events: claimed.get(item) ?? [] };
      }
    },
  },
];

/** Runs `steps` in order over the batch, timing each into `timings`; an item a step drops leaves the batch. */
async function runSteps(steps: Step[], batch: BatchState, timings: StepTimings): Promise<void> {
  for (const step of steps) {
    if (batch.pending.length === 0) return;
    const began = performance.now();
    const verdicts = await step.run(batch);
    timings[step.name] = (timings[step.name] ?? 0) + performance.now() - began;
    if (verdicts) batch.pending = apply(batch.pending, verdicts);
  }
}

/** Runs the transaction's steps in one database transaction, timing its commit as the last step. */
async function inTransaction(db: Db, timings: StepTimings, run: (db: Db) => Promise<void>): Promise<void> {
  let ran = 0;
  await db.tx(async (tx) => {
    await run(tx);
    ran = performance.now();
  });
  timings.commit = (timings.commit ?? 0) + performance.now() - ran;
}

/** A batch of network messages through every step; each message's result and the batch's time in each step. */
export async function processBatch(deps: BatchDeps, messages: RawMessage[]): Promise<{ results: MessageResult[]; timings: StepTimings }> {
  const timings: StepTimings = {};
  const items: Item[] = messages.map((raw) => ({ raw, tx: undefined as unknown as NetworkTransaction }));
  const batch: BatchState = { db: deps.db, indexes: deps, now: deps.clock.now(), pending: items };
  await runSteps([{ name: "parse", run: (b) => parseMessages(b.pending) }], batch, timings);
  if (batch.pending.length > 0) {
    await inTransaction(deps.db, timings, async (db) => runSteps(TRANSACTION_STEPS, { ...batch, db }, timings));
  }
  return { results: items.map((item) => item.result!), timings };
}

/**
 * A purchase a publisher submits for an oaas offer, through the batch's steps as a batch of one; `created`
 * is false when the reference was submitted before (its transaction is returned as it stands).
 */
export async function processSubmission(
  deps: Pick<BatchDeps, "db" | "clock">,
  offer: Offer,
  input: PublisherTransactionInput,
): Promise<{ transactionId: string; created: boolean } | { missing: "card" }> {
  const now = deps.clock.now();
  return deps.db.tx(async (db) => {
    const submission = await publisherSubmission(db, offer, input);
    if (!submission) return { missing: "card" as const };
    const item: Item = { tx: submission.tx, submitted: { offer: submission.offer, place: submission.place } };
    await runSteps(TRANSACTION_STEPS, { db, now, pending: [item] }, {});
    const result = item.result!;
    if (result.kind === "recorded") return { transactionId: result.transactionId, created: true };
    if (result.kind === "duplicate") return { transactionId: submission.transactionId, created: false };
    throw new Error(`a publisher's submission was not recorded: ${result.reason}`);
  });
}

// ------------------------------------------------------------------------------------------ parse

function parseMessages(items: Item[]): Verdict[] {
  return items.map((item) => {
    if (!item.raw) return OK; // a submission arrives as a transaction
    const parsed = normalise(item.raw.scheme, item.raw.value);
    if (!parsed.ok) return { kind: "dead-letter", reason: parsed.reason };
    item.tx = parsed.value;
    return OK;
  });
}

// ------------------------------------------------------------------------------------- duplicates

function dropDuplicates(items: Item[], recorded: Set<string>): Verdict[] {
  const seen = new Set(recorded);
  return items.map((item) => {
    const key = messageKey(item.tx);
    if (seen.has(key)) return { kind: "drop", outcome: { kind: "duplicate" } };
    seen.add(key); // a second copy inside the batch is a duplicate too
    return OK;
  });
}

// ------------------------------------------------------------------------------------------ facts


interface Facts {
  /** The batch's messages already recorded, by `messageKey`. */
  recorded: Set<string>;
  cards: Map<string, StoredCard>;
  /** Transactions already recorded that the batch's messages name, and the purchases its refunds may refund (locked for update). */
  existing: Map<string, TransactionRow>;
  /** Ids of the purchases the batch's refunds may refund, by card. */
  refundCandidates: Map<string, string[]>;
  /** Per item: the location its MIDs name in its card's program. */
  locations: Map<Item, LocationWithBrand>;
  /** MID record ids by `midKeyOf`. */
  mids: Map<string, string>;
  offers: ReadonlyMap<string, Offer[]>;
  /** Activation rows by `offerId|cardId` (locked for update). */
  activations: Map<string, ActivationCount>;
}

const purchaseIdOf = (tx: NetworkTransaction) => transactionIdFor(tx.scheme, "purchase", tx.purchaseKey);
const originalIdOf = (tx: NetworkTransaction) => (tx.originalKey ? transactionIdFor(tx.scheme, "purchase", tx.originalKey) : null);
const refundIdOf = (tx: NetworkTransaction) => transactionIdFor(tx.scheme, "refund", tx.purchaseKey);
const clearingIdOf = (tx: NetworkTransaction) => clearingTransactionIdFor(tx.scheme, tx.purchaseKey, tx.clearingKey ?? tx.messageId);
const midKeyFor = (programId: string, tx: NetworkTransaction): MidKey => ({ programId, scheme: tx.scheme, networkKey: networkKey(tx.scheme, tx.merchant) });

/**
 * What the batch's decisions depend on. The messages' own facts come in one round of pipelined queries
 * (a duplicate's transaction is locked with the rest: harmless, it is dropped next); the MIDs and the
 * activations depend on the cards and the locations, and come in a second round.
 */
async function resolveFacts(db: Db, indexes: Indexes | undefined, items: Item[], now: Date): Promise<Facts> {
  const ids = new Set<string>();
  for (const { tx } of items) {
    if (tx.stage === "refund") {
      ids.add(refundIdOf(tx));
      const original = originalIdOf(tx);
      if (original) ids.add(original);
    } else {
      ids.add(purchaseIdOf(tx));
      if (tx.stage === "clearing") ids.add(clearingIdOf(tx));
    }
  }
  const refunds = items.filter((i) => i.tx.stage === "refund").map((i) => ({ cardId: i.tx.cardId, amount: roundMoney(-i.tx.amount, i.tx.currency) }));
  // Only network messages are located by MID: submissions alone need neither index.
  const located = items.some((i) => !i.submitted) ? indexes : undefined;
  const [recorded, cardRows, existingRows, candidateRows, versions] = await Promise.all([
    recordedMessages(db, items.map((i) => i.tx)),
    cardsForTransactions(db, [...new Set(items.map((i) => i.tx.cardId))]),
    lockTransactionRows(db, [...ids]),
    lockRefundCandidates(db, refunds),
    located ? indexVersions(db) : undefined,
  ]);
  const cards = new Map(cardRows.map((c) => [c.id, c]));
  const existing = new Map([...candidateRows, ...existingRows].map((r) => [r.id, r]));
  const refundCandidates = new Map<string, string[]>();
  for (const r of candidateRows) if (r.card_id) refundCandidates.set(r.card_id, [...(refundCandidates.get(r.card_id) ?? []), r.id]);
  const [locationOf, offers] =
    located && versions
      ? await Promise.all([located.locations.current(db, versions.locations), located.offers.current(db, versions.offers, now)])
      : [() => undefined, new Map<string, Offer[]>()];

  // Locations by MID, from the in-memory location index (location-index.ts). Purchases already recorded
  // keep their location; refunds of a known purchase take the purchase's.
  const locations = new Map<Item, LocationWithBrand>();
  for (const item of items) {
    const { tx } = item;
    const card = cards.get(tx.cardId);
    if (!card || tx.stage === "void" || item.submitted) continue;
    if (tx.stage === "refund" ? existing.has(originalIdOf(tx) ?? "") : existing.has(purchaseIdOf(tx))) continue;
    const location = locationOf(card.program_id, tx);
    if (location) locations.set(item, location);
  }

  // MID records, for the MID insights' first and last transactions seen; activations of the offers the
  // located purchases may earn.
  const midKeys = new Map<string, MidKey>();
  for (const { tx, submitted } of items) {
    const card = cards.get(tx.cardId);
    if (!card || submitted || (tx.stage !== "auth" && tx.stage !== "clearing")) continue;
    const key = midKeyFor(card.program_id, tx);
    midKeys.set(midKeyOf(key), key);
  }
  const pairs: { offerId: string; cardId: string }[] = [];
  for (const [item, location] of locations) {
    for (const offer of offers.get(location.id) ?? []) if (offer.activation.enabled) pairs.push({ offerId: offer.id, cardId: item.tx.cardId });
  }
  for (const { tx, submitted } of items) if (submitted?.offer.activation.enabled) pairs.push({ offerId: submitted.offer.id, cardId: tx.cardId });
  const [mids, activationRows] = await Promise.all([midIds(db, [...midKeys.values()]), lockActivationCounts(db, pairs)]);
  const activations = new Map(activationRows.map((r) => [`${r.offer_id}|${r.card_id}`, r]));
  return { recorded, cards, existing, refundCandidates, locations, mids, offers, activations };
}

// ----------------------------------------------------------------------------------------- decide

interface Plan {
  verdicts: Verdict[];
  transactionOf: Map<Item, string>;
  inserted: Map<string, Row>;
  updated: Map<string, TransactionRow>;
  /** Stage claims, and the item each one is for. */
  claims: StageClaim[];
  claimItems: Item[];
  marks: MessageMark[];
  /** The native messages of stages this batch adds to recorded rows (an inserted row carries its own). */
  messages: Map<string, NativeMessages>;
  midTouches: Map<string, MidTouch>;
  activations: Map<string, ActivationCount & { limitReached: boolean }>;
}

function decideInOrder(items: Item[], facts: Facts, now: Date): Plan {
  const plan: Plan = {
    verdicts: [],
    transactionOf: new Map(),
    inserted: new Map(),
    updated: new Map(),
    claims: [],
    claimItems: [],
    marks: [],
    messages: new Map(),
    midTouches: new Map(),
    activations: new Map(),
  };
  const claimed = new Set<string>();
  const rowOf = (id: string): TransactionRow | undefined => plan.inserted.get(id) ?? facts.existing.get(id);
  const nowIso = now.toISOString();

  const emit = (item: Item, row: TransactionRow, stage: "auth" | "clearing" | "refund") => {
    const data = toTransaction(row);
    for (const event of stageEvents(stage, row.offer.qualified)) {
      const key = stageKey(row.id, event);
      if (claimed.has(key)) continue;
      claimed.add(key);
      plan.claims.push({ transactionId: row.id, event, eventId: newId(), data, accountId: row.account_id, live: row.live, programId: row.program_id });
      plan.claimItems.push(item);
    }
  };
  /**
   * The scheme's message a stage of the row was made from, as received: the first of each stage. A row the
   * batch inserts carries it; a recorded row gets it in its stage update, which keeps a stored one.
   */
  const keepMessage = (item: Item, transactionId: string) => {
    const { raw } = item;
    if (!raw) return; // a publisher's submission: no network sent a message
    const { stage } = item.tx;
    const inserted = plan.inserted.get(transactionId);
    if (inserted) {
      inserted.native_messages = { [stage]: raw.value, ...inserted.native_messages };
      return;
    }
    const added: NativeMessages = plan.messages.get(transactionId) ?? {};
    added[stage] ??= raw.value;
    plan.messages.set(transactionId, added);
  };
  const recorded = (item: Item, transactionId: string): Verdict => {
    plan.transactionOf.set(item, transactionId);
    plan.marks.push({ scheme: item.tx.scheme, messageId: item.tx.messageId, transactionId, stage: item.tx.stage });
    keepMessage(item, transactionId);
    return OK;
  };
  const touchMid = (tx: NetworkTransaction, programId: string, transactionId: string, zone: string) => {
    if (tx.stage !== "auth" && tx.stage !== "clearing") return;
    const midId = facts.mids.get(midKeyOf(midKeyFor(programId, tx)));
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
  /** The purchase a refund refunds by the matching rule, among the card's recorded purchases and the batch's. */
  const matchedPurchase = (tx: NetworkTransaction, cardId: string, location: LocationWithBrand): TransactionRow | undefined => {
    const ids = new Set(facts.refundCandidates.get(cardId) ?? []);
    for (const row of plan.inserted.values()) if (row.card_id === cardId && row.kind === "purchase") ids.add(row.id);
    const candidates = [...ids].flatMap((candidate) => {
      const row = rowOf(candidate);
      return row ? [purchaseToMatch(row)] : [];
    });
    const matched = matchRefund(
      { cardId, locationId: location.id, mid: tx.identifiers.MID, amount: tx.amount, currency: tx.currency, localDateTime: tx.localDateTime },
      candidates,
    );
    return matched ? rowOf(matched) : undefined;
  };
  /**
   * A clearing of part of an authorisation, decided against the authorisation's offer on its own amount,
   * rewarded once across the authorisation's clearings. An authorisation that passed an activation offer's
   * check keeps it for its clearings (the limit it reached then must not refuse them).
   */
  const clearingDecision = (auth: TransactionRow, tx: NetworkTransaction, live: boolean, activation: (offerId: string) => ActivationState): OfferResult => {
    if (!auth.offer.id) return { ...auth.offer };
    const offer = (facts.offers.get(auth.location_id ?? "") ?? []).find((o) => o.id === auth.offer.id && o.live === live);
    if (!offer) return { id: auth.offer.id, cashback: 0, performanceFee: 0, qualified: false, qualificationDate: null, message: ["The offer no longer applies at the location."] };
    const passed = auth.offer.qualified || auth.offer.qualificationDate !== null;
    const activationOfClearing = (offerId: string): ActivationState => (passed ? "activated" : activation(offerId));
    const factsOf = (amount: number) => ({ amount, currency: tx.currency, localDateTime: tx.localDateTime, scheme: tx.scheme, targetingTag: tx.targetingTag, created: nowIso });
    const own = decide([offer], factsOf(tx.amount), activationOfClearing, nowIso);
    const whole = decide([offer], factsOf(auth.amount), activationOfClearing, nowIso);
    return clearingResult(own, whole, auth.clearings ?? NO_CLEARINGS, tx.currency);
  };

  /**
   * Where a new purchase is recorded and the offers it is decided against: a network message's location
   * (found by MID) and its live offers, behind the live activation gate; a submission's place and its one
   * offer (the publisher reports the purchase itself, so no gate hides it).
   */
  const siteOf = (item: Item, card: StoredCard): { candidates: Offer[]; place: TransactionPlace } | { dropped: string } => {
    if (item.submitted) return { candidates: [item.submitted.offer], place: item.submitted.place };
    const location = facts.locations.get(item);
    if (!location) return { dropped: "no onboarded location of the card's program has this MID" };
    touchMid(item.tx, card.program_id, purchaseIdOf(item.tx), location.timezone);
    const candidates = (facts.offers.get(location.id) ?? []).filter((o) => o.live === card.live);
    const gate = liveActivationGate(card.live, candidates, activationOf(card.id));
    return gate ? { dropped: gate } : { candidates, place: placeAt(location) };
  };

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
      // The purchase the network named, when Cardlink recorded it; else the one the matching rule finds.
      const originalId = originalIdOf(tx);
      const named = originalId ? rowOf(originalId) : undefined;
      const location = named ? null : facts.locations.get(item);
      if (!named && !location) {
        plan.verdicts.push(drop("refund at no onboarded location of the card's program"));
        continue;
      }
      const original = named ?? matchedPurchase(tx, card.id, location!);
      const result: OfferResult = original
        ? refundResult(original.offer, original.amount, tx.amount, tx.currency)
        : { id: null, cashback: 0, performanceFee: 0, qualified: false, qualificationDate: null, message: ["The refund matches no purchase Cardlink recorded."] };
      const row = transactionRowOf({ id, kind: "refund", tx, card, now, result, originalId: original?.id ?? null, qualificationDue: null, place: original ? placeOfRow(original) : placeAt(location!) });
      plan.inserted.set(id, row);
      if (original && original.refund_id === null) {
        // The purchase's refundTransactionId: its first refund.
        original.refund_id = id;
        original.updated = now;
        if (!plan.inserted.has(original.id)) plan.updated.set(original.id, original);
      }
      emit(item, row, "refund");
      plan.verdicts.push(recorded(item, id));
      continue;
    }
    const id = purchaseIdOf(tx);
    const existing = rowOf(id);
    if (existing && item.submitted) {
      // A reference submitted before: its transaction stands as recorded.
      plan.verdicts.push(DUPLICATE);
      continue;
    }
    if (existing && tx.stage === "clearing" && isClearingOfItsOwn(existing, tx)) {
      const clearingId = clearingIdOf(tx);
      if (rowOf(clearingId)) {
        plan.verdicts.push(drop("clearing already recorded"));
        continue;
      }
      const result = clearingDecision(existing, tx, card.live, activationOf(card.id));
      const row = transactionRowOf({
        id: clearingId,
        kind: "purchase",
        tx,
        card,
        now,
        result,
        considered: consideredOfResult(result),
        originalId: null,
        qualificationDue: result.qualified ? null : result.qualificationDate,
        place: placeOfRow(existing),
        authId: existing.id,
        purchaseKey: `${tx.purchaseKey}:clearing:${tx.clearingKey ?? tx.messageId}`,
      });
      plan.inserted.set(clearingId, row);
      existing.clearings = addClearing(existing.clearings ?? NO_CLEARINGS, tx.amount, result, tx.currency);
      existing.updated = now;
      if (!plan.inserted.has(id)) plan.updated.set(id, existing);
      touchMid(tx, existing.program_id, clearingId, existing.location?.timezone ?? "UTC");
      emit(item, row, "clearing");
      plan.verdicts.push(recorded(item, clearingId));
      continue;
    }
    if (existing) {
      // The purchase's other stage: auth after a clearing that came first, or the clearing after the auth.
      if (tx.stage === "auth") existing.auth = true;
      else {
        existing.cleared = true;
        existing.clearings = addClearing(NO_CLEARINGS, tx.amount, existing.offer, tx.currency);
      }
      existing.identifiers = mergeIdentifiers(existing.identifiers, tx.identifiers);
      existing.updated = now;
      if (!plan.inserted.has(id)) plan.updated.set(id, existing);
      touchMid(tx, existing.program_id, id, existing.location?.timezone ?? "UTC");
      emit(item, existing, tx.stage);
      plan.verdicts.push(recorded(item, id));
      continue;
    }
    const site = siteOf(item, card);
    if ("dropped" in site) {
      plan.verdicts.push(drop(site.dropped));
      continue;
    }
    const { candidates, place } = site;
    const activation = activationOf(card.id);
    const { result, considered } = decision(
      candidates,
      { amount: tx.amount, currency: tx.currency, localDateTime: tx.localDateTime, scheme: tx.scheme, targetingTag: tx.targetingTag, created: nowIso },
      activation,
      nowIso,
    );
    const row = transactionRowOf({
      id,
      kind: "purchase",
      tx,
      card,
      now,
      result,
      considered,
      originalId: null,
      qualificationDue: result.qualified ? null : result.qualificationDate,
      place,
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
  const counted = row && countQualified(row, limit);
  if (counted) plan.activations.set(key, counted);
}

/** Where a recorded purchase happened: the place of its refunds and of its clearings of their own. */
function placeOfRow(purchase: TransactionRow): TransactionPlace {
  const o = purchase as Row;
  return { location_id: o.location_id, brand_id: o.brand?.id ?? null, brand: o.brand, location: o.location };
}

/**
 * Whether a clearing of a recorded purchase is a transaction of its own: it clears part of the amount, or
 * comes after another clearing. The one clearing of the whole amount is a stage of the purchase's row.
 */
function isClearingOfItsOwn(purchase: TransactionRow, tx: NetworkTransaction): boolean {
  if (purchase.kind !== "purchase" || purchase.auth_id !== null) return false;
  return purchase.cleared || purchase.clearings !== null || roundMoney(tx.amount, tx.currency) !== roundMoney(purchase.amount, purchase.currency);
}

/** A recorded purchase as the refund matching rule sees it. */
function purchaseToMatch(r: TransactionRow): PurchaseToMatch {
  return {
    id: r.id,
    cardId: r.card_id,
    locationId: r.location_id,
    mid: r.identifiers.MID,
    amount: r.amount,
    currency: r.currency,
    localDateTime: r.datetime,
    voided: r.voided,
    refundId: r.refund_id,
  };
}

// ------------------------------------------------------------------------------------------ write

/**
 * Writes the plan with set-based statements, sent together (each service call is one statement, and
 * each skips itself when it has nothing to write); returns the events each item's stage claims produced.
 */
async function writeBatch(db: Db, plan: Plan, now: Date): Promise<Map<Item, string[]>> {
  const [, , , , won] = await Promise.all([
    insertTransactionRows(db, [...plan.inserted.values()]),
    updateTransactionStages(db, [...plan.updated.values()], plan.messages),
    recordTransactionsSeen(db, [...plan.midTouches.values()], now),
    saveActivationCounts(db, [...plan.activations.values()], now),
    // A stage's event exists at most once per transaction, whatever is redelivered: claims that lose
    // (the stage was claimed before) write no outbox event.
    claimStages(db, plan.claims, now),
    markMessages(db, plan.marks, now),
  ]);
  const events = new Map<Item, string[]>();
  plan.claims.forEach((c, i) => {
    if (!won.has(stageKey(c.transactionId, c.event))) return;
    const item = plan.claimItems[i]!;
    events.set(item, [...(events.get(item) ?? []), c.event]);
  });
  return events;
}
