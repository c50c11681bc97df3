// The qualifier's decide step (batch.ts runs it): every message of the batch in batch order, so per card in
// order, into the plan the write step writes. Activation counts and "rewarded once" hold in a batch, across
// the clearings of one authorisation too; refunds are linked to their purchases. Memory only: the rules are
// the domain's (src/domain/qualification.ts), the facts are what the resolve step read.
//
// `decideInOrder` sends each message to its case: a void, a refund, an increment or the expiry of a
// recorded authorisation, a clearing of its own (part of its authorisation, more than it, one of several),
// a clearing the network sent again, the other stage of a recorded purchase, or a new purchase (a
// network's — with an authorisation or a clearing with none — or a publisher's submission). Each case adds
// to the one `Decision` the batch's messages share.
import {
  NO_CLEARINGS,
  addClearing,
  clearingResult,
  consideredOfResult,
  decide,
  decision,
  earns,
  expiredResult,
  incrementedResult,
  isRepeatedClearing,
  liveActivationGate,
  refundResult,
  rewardBase,
  type ActivationState,
  type OfferResult,
} from "../domain/qualification.ts";
import { matchRefund, type PurchaseToMatch } from "../domain/refund-matching.ts";
import { roundMoney } from "../domain/money.ts";
import { mergeIdentifiers } from "../domain/transaction-identifiers.ts";
import { instantOf } from "../domain/local-dates.ts";
import { stageEvents, type EventStage } from "../domain/stage-events.ts";
import { newId } from "../platform/ids.ts";
import type { Clock } from "../platform/clock/index.ts";
import { environmentNow, type EnvironmentClock } from "../platform/clock/environment.ts";
import { stageKey, type StageClaim } from "../platform/outbox.ts";
import {
  placeAt,
  stageViewOf,
  transactionRowOf,
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
import { DUPLICATE, OK, clearingIdOf, drop, midKeyFor, originalIdOf, purchaseIdOf, refundIdOf, type Item, type Verdict } from "./item.ts";

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
interface Decision {
  plan: Plan;
  facts: Facts;
  now: Date;
  nowIso: string;
  /** The stage events already claimed in the batch, by `stageKey`: each is claimed once. */
  claimed: Set<string>;
}

/** A purchase's own stages (a refund is a transaction of its own; a void marks its purchase). */
type PurchaseStage = "auth" | "clearing";

/**
 * Decides every item in batch order; the plan holds one verdict per item, in the items' order. Each item
 * is stamped with its environment's time: the service time `at`, or its sandbox's clock over it.
 */
export function decideInOrder(items: Item[], facts: Facts, at: Pick<Clock, "now" | "offsetMs">): Plan {
  const now = at.now();
  const plan: Plan = {
    verdicts: [],
    transactionOf: new Map(),
    inserted: new Map(),
    updated: new Map(),
    claims: [],
    claimItems: [],
    marks: [],
    redecided: new Set(),
    messages: new Map(),
    midTouches: new Map(),
    activations: new Map(),
  };
  const d: Decision = { plan, facts, now, nowIso: now.toISOString(), claimed: new Set() };
  const service = { now, nowIso: d.nowIso };
  const own = new Map<string, { now: Date; nowIso: string }>();
  for (const item of items) {
    const account = facts.cards.get(item.tx.cardId)?.account_id;
    const clock = account === undefined ? undefined : facts.clocks.get(account);
    let time = service;
    if (clock) {
      time = own.get(account!) ?? { now: environmentNow({ now: () => now, offsetMs: at.offsetMs }, clock), nowIso: "" };
      time.nowIso ||= time.now.toISOString();
      own.set(account!, time);
    }
    d.now = time.now;
    d.nowIso = time.nowIso;
    plan.verdicts.push(decideItem(d, item));
  }
  return plan;
}

/** Sends an item to its case by its stage and what is recorded of its purchase. */
function decideItem(d: Decision, item: Item): Verdict {
  const { tx } = item;
  const card = d.facts.cards.get(tx.cardId);
  if (!card) return drop("card not enrolled");
  if (tx.stage === "void") return decideVoid(d, item);
  if (tx.stage === "refund") return decideRefund(d, item, card);
  const id = purchaseIdOf(tx);
  const existing = rowOf(d, id);
  if (tx.stage === "increment") return decideIncrement(d, item, card, existing);
  if (tx.stage === "expiry") return decideExpiry(d, item, existing);
  if (!existing) return decidePurchase(d, item, card, id, tx.stage);
  // A reference submitted before: its transaction stands as recorded.
  if (item.submitted) return DUPLICATE;
  // The network sent a clearing again (its own message id, the clearing's reference): recorded and rewarded once.
  if (tx.stage === "clearing" && isRepeatedClearing(existing.clearings, tx.clearingKey)) return DUPLICATE;
  if (tx.stage === "clearing" && isClearingOfItsOwn(existing, tx)) return decideClearingOfAuth(d, item, card, existing);
  return decideOtherStage(d, item, existing, tx.stage);
}

// ------------------------------------------------------------------------------------------ cases

/** A recorded row the batch changes: stamped, and written back unless the batch inserts it anyway. */
function changed(d: Decision, row: TransactionRow): void {
  row.updated = d.now;
  if (!d.plan.inserted.has(row.id)) d.plan.updated.set(row.id, row);
}

/** A void marks the purchase it voids, which Cardlink must have recorded. */
function decideVoid(d: Decision, item: Item): Verdict {
  const id = purchaseIdOf(item.tx);
  const row = rowOf(d, id);
  if (!row) return drop("void of a purchase Cardlink did not record");
  row.voided = true;
  changed(d, row);
  return recorded(d, item, id);
}

/** A refund is a transaction of its own, linked to the purchase it refunds when Cardlink recorded one. */
function decideRefund(d: Decision, item: Item, card: StoredCard): Verdict {
  const { tx } = item;
  const { plan, now } = d;
  const id = refundIdOf(tx);
  if (rowOf(d, id)) return drop("refund already recorded");
  // The purchase the network named, when Cardlink recorded it; else the one the matching rule finds.
  const originalId = originalIdOf(tx);
  const named = originalId ? rowOf(d, originalId) : undefined;
  const location = named ? null : d.facts.locations.get(item);
  if (!named && !location) return drop("refund at no onboarded location of the card's program");
  const original = named ?? matchedPurchase(d, tx, card.id, location!);
  const result: OfferResult = original
    ? refundResult(original.offer, original.amount, tx.amount, tx.currency)
    : { id: null, cashback: 0, performanceFee: 0, qualified: false, qualificationDate: null, message: ["The refund matches no purchase Cardlink recorded."] };
  const row = transactionRowOf({ id, kind: "refund", tx, card, now, result, originalId: original?.id ?? null, qualificationDue: null, place: original ? placeOfRow(original) : placeAt(location!) });
  plan.inserted.set(id, row);
  if (original && original.refund_id === null) {
    // The purchase's refundTransactionId: its first refund.
    original.refund_id = id;
    changed(d, original);
  }
  emitStageEvents(d, item, row, "refund");
  return recorded(d, item, id);
}

/**
 * A clearing of part of a recorded authorisation (or one after another clearing) is a transaction of its
 * own, at the authorisation's place, and adds to the authorisation's clearings.
 */
function decideClearingOfAuth(d: Decision, item: Item, card: StoredCard, auth: TransactionRow): Verdict {
  const { tx } = item;
  const { plan, now } = d;
  const clearingId = clearingIdOf(tx);
  if (rowOf(d, clearingId)) return drop("clearing already recorded");
  const result = clearingDecision(d, auth, tx, card.live, activationOf(d, card.id));
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
    place: placeOfRow(auth),
    authId: auth.id,
    purchaseKey: `${tx.purchaseKey}:clearing:${tx.clearingKey ?? tx.messageId}`,
  });
  plan.inserted.set(clearingId, row);
  auth.clearings = addClearing(auth.clearings ?? NO_CLEARINGS, tx.amount, result, tx.currency, tx.clearingKey);
  changed(d, auth);
  touchMid(d, tx, auth.program_id, clearingId, auth.location?.timezone ?? "UTC");
  emitStageEvents(d, item, row, "clearing");
  return recorded(d, item, clearingId);
}

/** The purchase's other stage: auth after a clearing that came first, or the clearing of the whole amount after the auth. */
function decideOtherStage(d: Decision, item: Item, purchase: TransactionRow, stage: PurchaseStage): Verdict {
  const { tx } = item;
  if (stage === "auth") purchase.auth = true;
  else {
    purchase.cleared = true;
    purchase.clearings = addClearing(NO_CLEARINGS, tx.amount, purchase.offer, tx.currency, tx.clearingKey);
  }
  purchase.identifiers = mergeIdentifiers(purchase.identifiers, tx.identifiers);
  changed(d, purchase);
  touchMid(d, tx, purchase.program_id, purchase.id, purchase.location?.timezone ?? "UTC");
  emitStageEvents(d, item, purchase, stage);
  return recorded(d, item, purchase.id);
}

/**
 * An incremental authorisation raises a recorded authorisation's amount; the authorisation is decided again on
 * it against its offer (src/domain/qualification.ts incrementedResult). No transaction of its own: it sends
 * the authorisation's `.qualified` event when it made it qualify (its `transaction.auth` went before).
 */
function decideIncrement(d: Decision, item: Item, card: StoredCard, auth: TransactionRow | undefined): Verdict {
  const { tx } = item;
  if (!auth || auth.kind !== "purchase" || auth.auth_id !== null) return drop("increment of an authorisation Cardlink did not record");
  auth.amount = roundMoney(auth.amount + tx.amount, auth.currency);
  const offer = offerOf(d, auth, card.live);
  if (offer) {
    const passed = earns(auth.offer);
    const activation = activationOf(d, card.id);
    const facts = { amount: auth.amount, currency: auth.currency, localDateTime: auth.datetime, scheme: tx.scheme, targetingTag: auth.targeting_tag, created: auth.created.toISOString() };
    const redecided = decide([offer], facts, (offerId) => (passed ? "activated" : activation(offerId)), d.nowIso);
    const { result, newlyEarned } = incrementedResult(auth.offer, redecided);
    auth.offer = result;
    auth.qualification_due = result.qualified ? null : result.qualificationDate;
    d.plan.redecided.add(auth.id);
    if (newlyEarned && result.qualified) countActivation(d, [offer], offer.id, card.id);
  }
  changed(d, auth);
  emitStageEvents(d, item, auth, "auth");
  return recorded(d, item, auth.id);
}

/**
 * The network withdrew an authorisation left uncleared: the transaction is marked expired and, with nothing
 * of it cleared, its cashback is withdrawn (src/domain/qualification.ts expiredResult); `transaction.auth.expired`.
 */
function decideExpiry(d: Decision, item: Item, auth: TransactionRow | undefined): Verdict {
  if (!auth || auth.kind !== "purchase" || auth.auth_id !== null) return drop("expiry of an authorisation Cardlink did not record");
  if (auth.expired_at) return DUPLICATE;
  auth.expired_at = d.now;
  const result = expiredResult(auth.offer, auth.cleared ? auth.amount : (auth.clearings?.amount ?? 0));
  if (result !== auth.offer) {
    auth.offer = result;
    auth.qualification_due = null;
    d.plan.redecided.add(auth.id);
  }
  changed(d, auth);
  emitStageEvents(d, item, auth, "expiry");
  return recorded(d, item, auth.id);
}

/** A purchase Cardlink has not recorded: decided against its site's offers, counted on the activation it earns. */
function decidePurchase(d: Decision, item: Item, card: StoredCard, id: string, stage: PurchaseStage): Verdict {
  const { tx } = item;
  const { plan, now, nowIso } = d;
  const site = siteOf(d, item, card);
  if ("dropped" in site) return drop(site.dropped);
  const { candidates, place } = site;
  const { result, considered } = decision(
    candidates,
    { amount: tx.amount, currency: tx.currency, localDateTime: tx.localDateTime, scheme: tx.scheme, targetingTag: tx.targetingTag, created: nowIso },
    activationOf(d, card.id),
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
  if (result.qualified && result.id) countActivation(d, candidates, result.id, card.id);
  emitStageEvents(d, item, row, stage);
  return recorded(d, item, id);
}

// ---------------------------------------------------------------------------------------- helpers

/** A transaction as the batch has it: inserted by an earlier message of the batch, else as recorded. */
function rowOf(d: Decision, id: string): TransactionRow | undefined {
  return d.plan.inserted.get(id) ?? d.facts.existing.get(id);
}

/** Claims the stage's events for the row (each once in the batch), each with the stage's view of the transaction (its payload is assembled from it). */
function emitStageEvents(d: Decision, item: Item, row: TransactionRow, stage: EventStage): void {
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
function keepNativeMessage(d: Decision, item: Item, transactionId: string): void {
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
function recorded(d: Decision, item: Item, transactionId: string): Verdict {
  d.plan.transactionOf.set(item, transactionId);
  d.plan.marks.push({ scheme: item.tx.scheme, messageId: item.tx.messageId, transactionId, stage: item.tx.stage });
  keepNativeMessage(d, item, transactionId);
  return OK;
}

/** Moves the MID's first and last transactions seen (authorisations and clearings only). */
function touchMid(d: Decision, tx: NetworkTransaction, programId: string, transactionId: string, zone: string): void {
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
function activationOf(d: Decision, cardId: string): (offerId: string) => ActivationState {
  return (offerId) => (d.plan.activations.get(`${offerId}|${cardId}`) ?? d.facts.activations.get(`${offerId}|${cardId}`))?.state ?? "not activated";
}

/** Counts a qualified transaction on the card's activation of an activation offer, up to its limit. */
function countActivation(d: Decision, candidates: Offer[], offerId: string, cardId: string): void {
  const offer = candidates.find((o) => o.id === offerId);
  const limit = offer?.activation.qualifiedTransactionsLimit ?? null;
  if (!offer?.activation.enabled || limit === null) return;
  const key = `${offerId}|${cardId}`;
  const row = d.plan.activations.get(key) ?? d.facts.activations.get(key);
  const counted = row && countQualified(row, limit);
  if (counted) d.plan.activations.set(key, { ...counted, at: d.now });
}

/** The purchase a refund refunds by the matching rule, among the card's recorded purchases and the batch's. */
function matchedPurchase(d: Decision, tx: NetworkTransaction, cardId: string, location: LocationWithBrand): TransactionRow | undefined {
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
function clearingDecision(d: Decision, auth: TransactionRow, tx: NetworkTransaction, live: boolean, activation: (offerId: string) => ActivationState): OfferResult {
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
function offerOf(d: Decision, auth: TransactionRow, live: boolean): Offer | undefined {
  return auth.offer.id === null ? undefined : (d.facts.offers.get(auth.location_id ?? "") ?? []).find((o) => o.id === auth.offer.id && o.live === live);
}

/**
 * Where a new purchase is recorded and the offers it is decided against: a network message's location
 * (found by MID) and its live offers, behind the live activation gate; a submission's place and its one
 * offer (the publisher reports the purchase itself, so no gate hides it).
 */
function siteOf(d: Decision, item: Item, card: StoredCard): { candidates: Offer[]; place: TransactionPlace } | { dropped: string } {
  if (item.submitted) return { candidates: [item.submitted.offer], place: item.submitted.place };
  const location = d.facts.locations.get(item);
  if (!location) return { dropped: "no onboarded location of the card's program has this MID" };
  touchMid(d, item.tx, card.program_id, purchaseIdOf(item.tx), location.timezone);
  const candidates = (d.facts.offers.get(location.id) ?? []).filter((o) => o.live === card.live);
  const gate = liveActivationGate(card.live, candidates, activationOf(d, card.id));
  return gate ? { dropped: gate } : { candidates, place: placeAt(location) };
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
