// The decide step's cases (decide.ts sends each message to one): a void, a refund, a clearing of its own,
// the other stage of a recorded purchase, an increment, an expiry and a new purchase. Each adds to the one
// `Decision` (decision.ts) the batch's messages share.
import {
  NO_CLEARINGS,
  addClearing,
  consideredOfResult,
  decide,
  decision,
  earns,
  expiredResult,
  incrementedResult,
  refundResult,
  type OfferResult,
} from "../domain/qualification.ts";
import { roundMoney } from "../domain/money.ts";
import { mergeIdentifiers } from "../domain/transaction-identifiers.ts";
import { placeAt, transactionRowOf, type TransactionRow } from "../services/transactions/index.ts";
import type { StoredCard } from "../services/catalog/index.ts";
import { DUPLICATE, clearingIdOf, drop, originalIdOf, purchaseIdOf, refundIdOf, type Item, type Verdict } from "./item.ts";
import {
  activationOf,
  changed,
  clearingDecision,
  countActivation,
  emitStageEvents,
  matchedPurchase,
  offerOf,
  placeOfRow,
  recorded,
  rowOf,
  siteOf,
  touchMid,
  type Decision,
  type PurchaseStage,
} from "./decision.ts";

/** A void marks the purchase it voids, which Cardlink must have recorded. */
export function decideVoid(d: Decision, item: Item): Verdict {
  const id = purchaseIdOf(item.tx);
  const row = rowOf(d, id);
  if (!row) return drop("void of a purchase Cardlink did not record");
  row.voided = true;
  changed(d, row);
  return recorded(d, item, id);
}

/** A refund is a transaction of its own, linked to the purchase it refunds when Cardlink recorded one. */
export function decideRefund(d: Decision, item: Item, card: StoredCard): Verdict {
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
export function decideClearingOfAuth(d: Decision, item: Item, card: StoredCard, auth: TransactionRow): Verdict {
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
export function decideOtherStage(d: Decision, item: Item, purchase: TransactionRow, stage: PurchaseStage): Verdict {
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
export function decideIncrement(d: Decision, item: Item, card: StoredCard, auth: TransactionRow | undefined): Verdict {
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
export function decideExpiry(d: Decision, item: Item, auth: TransactionRow | undefined): Verdict {
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
export function decidePurchase(d: Decision, item: Item, card: StoredCard, id: string, stage: PurchaseStage): Verdict {
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
