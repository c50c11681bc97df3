// The qualifier over a batch of network messages (one partition's, in offset order), in ONE database
// transaction, as a list of named steps that a runner times. Each step says of each message still in the
// batch: go on (ok), drop it with an outcome, or dead-letter it with a reason; a step that throws (the
// database) fails the whole batch, so nothing is committed and the bus delivers it again.
//
//   parse              normalise each scheme's message                       (memory)
//   resolve            messages already recorded with the index versions, cards, existing transactions, the
//                      purchases refunds may refund (≤ 4 queries, pipelined: one round trip); then MIDs,
//                      activations and the clocks of sandbox cards' accounts (≤ 3, one round trip); locations
//                      by MID and offers from the in-memory indexes
//   dedupe             within the batch and already recorded                 (memory)
//   decide             every message in batch order, so per card in order (decide.ts):
//                      activation counts and "rewarded once" hold in a batch, across the clearings of one
//                      authorisation too; refunds linked to their purchases (memory, domain rules)
//   write              transactions, updates, MID insights, activations, stage claims with their
//                      outbox events, message marks                          (one statement of set-based parts)
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
// This module holds the runner and every step but decide (decide.ts); item.ts holds a message on its way
// through them and what a step says of it. Every statement is a service's (src/services), so no step holds
// SQL. On PostgreSQL the statements of one round are sent together on the transaction's connection
// (postgres.js pipelines them), and the write step's parts go out as one statement (write-together.ts), so a
// batch costs about three round trips and the commit. The bus commits
// the batch's offsets after the transaction commits. Re-applying a batch changes nothing (every message is
// marked in the same transaction), so a redelivery after a crash is harmless.
import type { Db } from "../platform/db.ts";
import type { Clock } from "../platform/clock/index.ts";
import { claimsWon, stageClaimsPart, stageKey } from "../platform/outbox.ts";
import { writeTogether } from "../platform/write-together.ts";
import { roundMoney } from "../domain/money.ts";
import { earns } from "../domain/qualification.ts";
import {
  lockRefundCandidates,
  lockTransactionRows,
  messageKey,
  messageMarksPart,
  publisherSubmission,
  recordedMessages,
  recordedWithVersions,
  transactionRowsPart,
  transactionStagesPart,
  type NetworkTransaction,
  type PublisherTransactionInput,
} from "../services/transactions/index.ts";
import { activationCountsPart, lockActivationCounts, type Offer } from "../services/offers/index.ts";
import { cardsForTransactions, type LocationWithBrand } from "../services/catalog/index.ts";
import { environmentClocks } from "../services/accounts/index.ts";
import { midIds, midKeyOf, transactionsSeenPart, type MidKey } from "../services/mid-insights/index.ts";
import type { OfferIndex } from "./offer-index.ts";
import type { LocationIndex } from "./location-index.ts";
import { normalise } from "./normalise/index.ts";
import { decideInOrder, type Facts, type Plan } from "./decide.ts";
import { OK, clearingIdOf, midKeyFor, originalIdOf, purchaseIdOf, refundIdOf, type Item, type MessageResult, type RawMessage, type Verdict } from "./item.ts";

export interface BatchDeps {
  db: Db;
  clock: Clock;
  offers: OfferIndex;
  locations: LocationIndex;
}

/** The steps, in the order a batch goes through them; `commit` is the database transaction's commit. */
export const STEPS = ["parse", "resolve", "dedupe", "decide", "write", "commit"] as const;
export type StepName = (typeof STEPS)[number];
/** Milliseconds one batch spent in each step it ran (a batch left empty by a step runs no more). */
export type StepTimings = Partial<Record<StepName, number>>;

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
  /** The service time once per batch; each item's environment time is derived from it (decideInOrder). */
  at: Pick<Clock, "now" | "offsetMs">;
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
      b.facts = await resolveFacts(b.db, b.indexes, b.pending, b.at);
    },
  },
  { name: "dedupe", run: (b) => dropDuplicates(b.pending, b.facts!.recorded) },
  {
    name: "decide",
    run(b) {
      b.plan = decideInOrder(b.pending, b.facts!, b.at);
      return b.plan.verdicts;
    },
  },
  {
    name: "write",
    async run(b) {
      const claimed = await writeBatch(b.db, b.plan!, b.at.now());
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
  const batch: BatchState = { db: deps.db, indexes: deps, at: onceAt(deps.clock), pending: items };
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
  // The request's clock is its environment's already (ctx.clock): a submission looks up no other.
  const at = onceAt(deps.clock);
  return deps.db.tx(async (db) => {
    const submission = await publisherSubmission(db, offer, input);
    if (!submission) return { missing: "card" as const };
    const item: Item = { tx: submission.tx, submitted: { offer: submission.offer, place: submission.place } };
    await runSteps(TRANSACTION_STEPS, { db, at, pending: [item] }, {});
    const result = item.result!;
    if (result.kind === "recorded") return { transactionId: result.transactionId, created: true };
    if (result.kind === "duplicate") return { transactionId: submission.transactionId, created: false };
    throw new Error(`a publisher's submission was not recorded: ${result.reason}`);
  });
}

/** The clock's time and total advance read once: every step of the batch sees the same instant. */
function onceAt(clock: Pick<Clock, "now" | "offsetMs">): Pick<Clock, "now" | "offsetMs"> {
  const now = clock.now();
  return { now: () => now, offsetMs: clock.offsetMs };
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

/**
 * What the batch's decisions depend on. The messages' own facts come in one round of pipelined queries
 * (a duplicate's transaction is locked with the rest: harmless, it is dropped next); the MIDs and the
 * activations depend on the cards and the locations, and come in a second round.
 */
async function resolveFacts(db: Db, indexes: Indexes | undefined, items: Item[], at: Pick<Clock, "now" | "offsetMs">): Promise<Facts> {
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
  // A batch of network messages reads the index versions with its recorded messages: no statement of their own.
  const keys = items.map((i) => i.tx);
  const [{ recorded, versions }, cardRows, existingRows, candidateRows] = await Promise.all([
    located ? recordedWithVersions(db, keys) : recordedMessages(db, keys).then((recorded) => ({ recorded, versions: undefined })),
    cardsForTransactions(db, [...new Set(items.map((i) => i.tx.cardId))]),
    lockTransactionRows(db, [...ids]),
    lockRefundCandidates(db, refunds),
  ]);
  const cards = new Map(cardRows.map((c) => [c.id, c]));
  const existing = new Map([...candidateRows, ...existingRows].map((r) => [r.id, r]));
  const refundCandidates = new Map<string, string[]>();
  for (const r of candidateRows) if (r.card_id) refundCandidates.set(r.card_id, [...(refundCandidates.get(r.card_id) ?? []), r.id]);
  const [locationOf, offers] =
    located && versions
      ? await Promise.all([located.locations.current(db, versions.locations), located.offers.current(db, versions.offers, at)])
      : [() => undefined, new Map<string, Offer[]>()];

  // Locations by MID, from the in-memory location index (location-index.ts). Purchases already recorded
  // keep their location; refunds of a known purchase take the purchase's.
  const locations = new Map<Item, LocationWithBrand>();
  for (const item of items) {
    const { tx } = item;
    const card = cards.get(tx.cardId);
    if (!card || tx.stage === "void" || tx.stage === "increment" || tx.stage === "expiry" || item.submitted) continue;
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
  // An increment may make its authorisation earn on an activation offer it did not earn on before.
  for (const { tx } of items) {
    const auth = tx.stage === "increment" ? existing.get(purchaseIdOf(tx)) : undefined;
    if (!auth?.offer.id || earns(auth.offer)) continue;
    const offer = (offers.get(auth.location_id ?? "") ?? []).find((o) => o.id === auth.offer.id);
    if (offer?.activation.enabled) pairs.push({ offerId: offer.id, cardId: tx.cardId });
  }
  // Network messages carry no environment: their cards' accounts say which have a clock of their own (only a
  // sandbox has one, so a batch without sandbox cards reads no clock).
  const accounts = located ? [...new Set(cardRows.filter((c) => c.in_sandbox).map((c) => c.account_id))] : [];
  const [mids, activationRows, clocks] = await Promise.all([
    midIds(db, [...midKeys.values()]),
    lockActivationCounts(db, pairs),
    environmentClocks(db, accounts),
  ]);
  const activations = new Map(activationRows.map((r) => [`${r.offer_id}|${r.card_id}`, r]));
  return { recorded, cards, existing, refundCandidates, locations, mids, offers, activations, clocks };
}

// ------------------------------------------------------------------------------------------ write

/**
 * Writes the plan in one statement, a set-based part per service (write-together.ts; a part with nothing to
 * write is left out); returns the events each item's stage claims produced.
 */
async function writeBatch(db: Db, plan: Plan, now: Date): Promise<Map<Item, string[]>> {
  const [, , , , claimed] = await writeTogether(db, [
    transactionRowsPart([...plan.inserted.values()]),
    transactionStagesPart([...plan.updated.values()], plan.messages, plan.redecided),
    transactionsSeenPart([...plan.midTouches.values()], now),
    activationCountsPart([...plan.activations.values()], now),
    // A stage's event exists at most once per transaction, whatever is redelivered: claims that lose
    // (the stage was claimed before) write no outbox event.
    stageClaimsPart(plan.claims, now),
    messageMarksPart(plan.marks, now),
  ]);
  const won = claimsWon(claimed!);
  const events = new Map<Item, string[]>();
  plan.claims.forEach((c, i) => {
    if (!won.has(stageKey(c.transactionId, c.event))) return;
    const item = plan.claimItems[i]!;
    events.set(item, [...(events.get(item) ?? []), c.event]);
  });
  return events;
}
