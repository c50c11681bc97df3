// The decide step's shared state and helpers (decide.ts and cases.ts use them): the facts the resolve step
// read, the plan the write step writes, the one `Decision` the batch's messages share, and what every case
// does with them (rows as the batch has them, stage claims, message marks, MID touches, activation counts).
import {
  NO_CLEARINGS,
  clearingResult,
  decide,
  earns,
  liveActivationGate,
  rewardBase,
  type ActivationState,
  type OfferResult,
} from "../domain/qualification.ts";
import { matchRefund, type PurchaseToMatch } from "../domain/refund-matching.ts";
import { roundMoney } from "../domain/money.ts";
import { instantOf } from "../domain/local-dates.ts";
import { stageEvents, type EventStage } from "../domain/stage-events.ts";
import { newId } from "../platform/ids.ts";
import type { EnvironmentClock } from "../platform/clock/environment.ts";
import { stageKey, type StageClaim } from "../platform/outbox.ts";
import {
  placeAt,
  stageViewOf,
  type MessageMark,
  type NativeMessages,
  type NetworkTransaction,
  type StoredTransactionRow as Row,
  type TransactionPlace,
  type TransactionRow,
} from "../services/transactions/index.ts";
import { countQualified, type ActivationCount, type Offer } from "../services/offers/index.ts";
import type { LocationWithBrand, StoredCard } from "../services/catalog/index.ts";
import { midKeyOf, type MidTouch } from "../services/mid-insights/index.ts";
import { OK, midKeyFor, purchaseIdOf, type Item, type Verdict } from "./item.ts";

/**
 * What the batch's decisions depend on, as the resolve step reads it (batch.ts): the messages' own facts,
 * then the MIDs and activations their cards and locations name.
 */
export interface Facts {
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
  /** The clocks of the batch's environments that have one of their own (sandboxes'), by account. */
  clocks: ReadonlyMap<string, EnvironmentClock>;
}

/** What the write step writes: the decide step's verdict on each item, and the rows, claims and marks they make. */
export interface Plan {
  verdicts: Verdict[];
  transactionOf: Map<Item, string>;
  inserted: Map<string, Row>;
  updated: Map<string, TransactionRow>;
  /** Stage claims, and the item each one is for. */
  claims: StageClaim[];
  claimItems: Item[];
  marks: MessageMark[];
  /** Recorded rows whose offer result the batch decided again (an increment, an expiry): their update writes it. */
  redecided: Set<string>;
  /** The native messages of stages this batch adds to recorded rows (an inserted row carries its own). */
  messages: Map<string, NativeMessages>;
  midTouches: Map<string, MidTouch>;
  activations: Map<string, ActivationCount & { limitReached: boolean; at: Date }>;
}

/** The decisions of one batch so far: each case reads the facts and what earlier messages added to the plan. */
export interface Decision {
  plan: Plan;
  facts: Facts;
  now: Date;
  nowIso: string;
  /** The stage events already claimed in the batch, by `stageKey`: each is claimed once. */
  claimed: Set<string>;
}

/** A purchase's own stages (a refund is a transaction of its own; a void marks its purchase). */
export type PurchaseStage = "auth" | "clearing";

// ---------------------------------------------------------------------------------------- helpers

/** A recorded row the batch changes: stamped, and written back unless the batch inserts it anyway. */
export function changed(d: Decision, row: TransactionRow): void {
  row.updated = d.now;
  if (!d.plan.inserted.has(row.id)) d.plan.updated.set(row.id, row);
}

/** A transaction as the batch has it: inserted by an earlier message of the batch, else as recorded. */
export function rowOf(d: Decision, id: string): TransactionRow | undefined {
  return d.plan.inserted.get(id) ?? d.facts.existing.get(id);
}

/** Claims the stage's events for the row (each once in the batch), each with the stage's view of the transaction (its payload is assembled from it). */
export function emitStageEvents(d: Decision, item: Item, row: TransactionRow, stage: EventStage): void {
  const view = stageViewOf(row);
  for (const event of stageEvents(stage, row.offer.qualified)) {
    const key = stageKey(row.id, event);
    if (d.claimed.has(key)) continue;
    d.claimed.add(key);
    d.plan.claims.push({ transactionId: row.id, event, eventId: newId(), stage: view, accountId: row.account_id, live: row.live, programId: row.program_id, created: d.now });
    d.plan.claimItems.push(item);
  }
}

/**
 * Keeps the scheme's message a stage of the row was made from, as received: the first of each stage. A row
 * the batch inserts carries it; a recorded row gets it in its stage update, which keeps a stored one.
 */
export function keepNativeMessage(d: Decision, item: Item, transactionId: string): void {
  const { raw } = item;
  if (!raw) return; // a publisher's submission: no network sent a message
  const { stage } = item.tx;
  const inserted = d.plan.inserted.get(transactionId);
  if (inserted) {
    inserted.native_messages = { [stage]: raw.value, ...inserted.native_messages };
    return;
  }
  const added: NativeMessages = d.plan.messages.get(transactionId) ?? {};
  added[stage] ??= raw.value;
  d.plan.messages.set(transactionId, added);
}

/** The item is recorded as the transaction: its message mark, and its stage's native message on the row. */
export function recorded(d: Decision, item: Item, transactionId: string): Verdict {
  d.plan.transactionOf.set(item, transactionId);
  d.plan.marks.push({ scheme: item.tx.scheme, messageId: item.tx.messageId, transactionId, stage: item.tx.stage });
  keepNativeMessage(d, item, transactionId);
  return OK;
}

/** Moves the MID's first and last transactions seen (authorisations and clearings only). */
export function touchMid(d: Decision, tx: NetworkTransaction, programId: string, transactionId: string, zone: string): void {
  if (tx.stage !== "auth" && tx.stage !== "clearing") return;
  const midId = d.facts.mids.get(midKeyOf(midKeyFor(programId, tx)));
  if (!midId) return;
  // The purchase's local time is read in the location's time zone.
  const at = instantOf(tx.localDateTime, zone);
  const touch = d.plan.midTouches.get(midId) ?? { midId, programId, at, lastId: transactionId, firstAuth: null, firstClearing: null };
  if (at >= touch.at) {
    touch.at = at;
    touch.lastId = transactionId;
  }
  if (tx.stage === "auth") touch.firstAuth ??= transactionId;
  else touch.firstClearing ??= transactionId;
  d.plan.midTouches.set(midId, touch);
}

/** The card's activation state of each offer, counting the batch's earlier purchases. */
export function activationOf(d: Decision, cardId: string): (offerId: string) => ActivationState {
  return (offerId) => (d.plan.activations.get(`${offerId}|${cardId}`) ?? d.facts.activations.get(`${offerId}|${cardId}`))?.state ?? "not activated";
}

/** Counts a qualified transaction on the card's activation of an activation offer, up to its limit. */
export function countActivation(d: Decision, candidates: Offer[], offerId: string, cardId: string): void {
  const offer = candidates.find((o) => o.id === offerId);
  const limit = offer?.activation.qualifiedTransactionsLimit ?? null;
  if (!offer?.activation.enabled || limit === null) return;
  const key = `${offerId}|${cardId}`;
  const row = d.plan.activations.get(key) ?? d.facts.activations.get(key);
  const counted = row && countQualified(row, limit);
  if (counted) d.plan.activations.set(key, { ...counted, at: d.now });
}

/** The purchase a refund refunds by the matching rule, among the card's recorded purchases and the batch's. */
export function matchedPurchase(d: Decision, tx: NetworkTransaction, cardId: string, location: LocationWithBrand): TransactionRow | undefined {
  const ids = new Set(d.facts.refundCandidates.get(cardId) ?? []);
  for (const row of d.plan.inserted.values()) if (row.card_id === cardId && row.kind === "purchase") ids.add(row.id);
  const candidates = [...ids].flatMap((candidate) => {
    const row = rowOf(d, candidate);
    return row ? [purchaseToMatch(row)] : [];
  });
  const matched = matchRefund(
    { cardId, locationId: location.id, mid: tx.identifiers.MID, amount: tx.amount, currency: tx.currency, localDateTime: tx.localDateTime },
    candidates,
  );
  return matched ? rowOf(d, matched) : undefined;
}

/**
 * A clearing of part of an authorisation, decided against the authorisation's offer on its own amount,
 * rewarded once across the authorisation's clearings. An authorisation that passed an activation offer's
 * check keeps it for its clearings (the limit it reached then must not refuse them).
 */
export function clearingDecision(d: Decision, auth: TransactionRow, tx: NetworkTransaction, live: boolean, activation: (offerId: string) => ActivationState): OfferResult {
  if (!auth.offer.id) return { ...auth.offer };
  const offer = offerOf(d, auth, live);
  if (!offer) return { id: auth.offer.id, cashback: 0, performanceFee: 0, qualified: false, qualificationDate: null, message: ["The offer no longer applies at the location."] };
  const passed = earns(auth.offer);
  const activationOfClearing = (offerId: string): ActivationState => (passed ? "activated" : activation(offerId));
  const factsOf = (amount: number) => ({ amount, currency: tx.currency, localDateTime: tx.localDateTime, scheme: tx.scheme, targetingTag: tx.targetingTag, created: d.nowIso });
  const soFar = auth.clearings ?? NO_CLEARINGS;
  const own = decide([offer], factsOf(tx.amount), activationOfClearing, d.nowIso);
  const whole = decide([offer], factsOf(rewardBase(auth.amount, soFar.amount, tx.amount, tx.currency)), activationOfClearing, d.nowIso);
  return clearingResult(own, whole, soFar, tx.currency);
}

/** The live offer a recorded authorisation was decided on, as the batch's offer index has it; undefined when it no longer applies. */
export function offerOf(d: Decision, auth: TransactionRow, live: boolean): Offer | undefined {
  return auth.offer.id === null ? undefined : (d.facts.offers.get(auth.location_id ?? "") ?? []).find((o) => o.id === auth.offer.id && o.live === live);
}

/**
 * Where a new purchase is recorded and the offers it is decided against: a network message's location
 * (found by MID) and its live offers, behind the live activation gate; a submission's place and its one
 * offer (the publisher reports the purchase itself, so no gate hides it).
 */
export function siteOf(d: Decision, item: Item, card: StoredCard): { candidates: Offer[]; place: TransactionPlace } | { dropped: string } {
  if (item.submitted) return { candidates: [item.submitted.offer], place: item.submitted.place };
  const location = d.facts.locations.get(item);
  if (!location) return { dropped: "no onboarded location of the card's program has this MID" };
  touchMid(d, item.tx, card.program_id, purchaseIdOf(item.tx), location.timezone);
  const candidates = (d.facts.offers.get(location.id) ?? []).filter((o) => o.live === card.live);
  const gate = liveActivationGate(card.live, candidates, activationOf(d, card.id));
  return gate ? { dropped: gate } : { candidates, place: placeAt(location) };
}

/** Where a recorded purchase happened: the place of its refunds and of its clearings of their own. */
export function placeOfRow(purchase: TransactionRow): TransactionPlace {
  const o = purchase as Row;
  return { location_id: o.location_id, brand_id: o.brand?.id ?? null, brand: o.brand, location: o.location };
}

/**
 * Whether a clearing of a recorded purchase is a transaction of its own: it clears part of the amount, or
 * comes after another clearing. The one clearing of the whole amount is a stage of the purchase's row.
 */
export function isClearingOfItsOwn(purchase: TransactionRow, tx: NetworkTransaction): boolean {
  if (purchase.kind !== "purchase" || purchase.auth_id !== null) return false;
  return purchase.cleared || purchase.clearings !== null || roundMoney(tx.amount, tx.currency) !== roundMoney(purchase.amount, purchase.currency);
}

/** A recorded purchase as the refund matching rule sees it. */
export function purchaseToMatch(r: TransactionRow): PurchaseToMatch {
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
