// The qualification decision: which offers a transaction qualifies for and which one wins.
// Pure functions over plain data; the qualifier gathers the facts, this decides.
import { roundMoney } from "./money.ts";
import { TIP_BOUND } from "./purchase-follow-ups.ts";

import type { Scheme } from "./scheme.ts";

export type { Scheme } from "./scheme.ts";
export type ActivationState = "not activated" | "activated" | "deactivated";

export interface CandidateOffer {
  id: string;
  /** ISO instant the offer was created: the tie-breaker, most recent wins. */
  created: string;
  /** YYYY-MM-DDThh:mm:ss, local to the location. */
  startDate: string;
  endDate: string | null;
  schemes: Scheme[];
  daysOfWeek: number[];
  minTransactionAmount: number | null;
  type: { name: "amount" | "discount"; value: number; maxRewardAmount: number | null };
  feeSplit: number | null;
  fees: { publisherFee: number; serviceFee: number } | null;
  activation: { enabled: boolean; qualifiedTransactionsLimit?: number };
  targeting: { name: "new" | "lapsed" | "existing"; from?: number | null; to?: number | null } | null;
  returnPeriod: number | null;
}

export interface TransactionFacts {
  amount: number;
  currency: string;
  /** The purchase's local date-time at the location, YYYY-MM-DDThh:mm:ss. */
  localDateTime: string;
  scheme: Scheme;
  /** The segment tag the publisher or the network attached, if any. */
  targetingTag: string | null;
  /** Service time the transaction was created, ISO instant; returnPeriod counts from its date. */
  created: string;
}

export interface OfferResult {
  id: string | null;
  cashback: number;
  performanceFee: number;
  qualified: boolean;
  qualificationDate: string | null;
  message: string[];
}

const DAY_NAMES = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

/** Day of week (0 = Sunday) of a local YYYY-MM-DDThh:mm:ss, independent of the process's zone. */
export function localDayOfWeek(local: string): number {
  // Sakamoto's method on the digits: no Date, no string copies.
  const digit = (i: number) => local.charCodeAt(i) - 48;
  let y = digit(0) * 1000 + digit(1) * 100 + digit(2) * 10 + digit(3);
  const m = digit(5) * 10 + digit(6);
  const d = digit(8) * 10 + digit(9);
  if (m < 3) y -= 1;
  return (y + Math.floor(y / 4) - Math.floor(y / 100) + Math.floor(y / 400) + MONTH_OFFSETS[m - 1]! + d) % 7;
}
const MONTH_OFFSETS = [0, 3, 2, 5, 0, 3, 5, 1, 4, 6, 2, 4];

const addDays = (isoDate: string, days: number): string => {
  const d = new Date(`${isoDate}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
};

/** Why `offer` rejects the transaction, or null when it is eligible. */
export function rejection(offer: CandidateOffer, tx: TransactionFacts, activation: ActivationState): string | null {
  if (tx.localDateTime < offer.startDate) return `The offer starts at ${offer.startDate}, after the purchase.`;
  if (offer.endDate !== null && tx.localDateTime > offer.endDate) return `The offer ended at ${offer.endDate}.`;
  if (offer.schemes.length > 0 && !offer.schemes.includes(tx.scheme)) {
    return `The offer is not available on ${tx.scheme} cards.`;
  }
  const day = localDayOfWeek(tx.localDateTime);
  if (offer.daysOfWeek.length > 0 && !offer.daysOfWeek.includes(day)) {
    return `The offer is not available on ${DAY_NAMES[day]}.`;
  }
  if (offer.minTransactionAmount !== null && tx.amount < offer.minTransactionAmount) {
    return `The amount ${tx.amount} is below the minimum transaction amount of ${offer.minTransactionAmount}.`;
  }
  if (offer.activation.enabled && activation !== "activated") {
    return activation === "deactivated"
      ? "The offer is no longer activated on this card."
      : "The offer has not been activated on this card.";
  }
  if (offer.targeting) {
    if (!tx.targetingTag) return `The offer targets ${offer.targeting.name} customers; the transaction carries no segment tag.`;
    if (tx.targetingTag !== offer.targeting.name) {
      return `The offer targets ${offer.targeting.name} customers; the transaction is tagged ${tx.targetingTag}.`;
    }
  }
  return null;
}

/** Cashback and performance fee of an eligible offer, rounded to the currency's minor unit. */
export function award(offer: CandidateOffer, tx: TransactionFacts): { cashback: number; performanceFee: number } {
  const { name, value, maxRewardAmount } = offer.type;
  let cashback = name === "amount" ? value : (tx.amount * value) / 100;
  if (name === "discount" && maxRewardAmount !== null) cashback = Math.min(cashback, maxRewardAmount);
  // feeSplit (or the variant's publisherFee) is an amount for amount offers, a percentage for discount ones.
  const fee = offer.fees ? offer.fees.publisherFee : (offer.feeSplit ?? 0);
  const performanceFee = name === "amount" ? fee : (tx.amount * fee) / 100;
  return { cashback: roundMoney(cashback, tx.currency), performanceFee: roundMoney(performanceFee, tx.currency) };
}

const notQualified = (id: string | null, message: string): OfferResult => ({
  id,
  cashback: 0,
  performanceFee: 0,
  qualified: false,
  qualificationDate: null,
  message: [message],
});

/** One offer the decision weighed, and how it fared. Absent fields are not stored (the row keeps it compact). */
export interface ConsideredOffer {
  offerId: string;
  /** won: the offer the transaction is decided on; lost: eligible, but another paid more (or as much and is newer); rejected: a rule refused it. */
  outcome: "won" | "lost" | "rejected";
  /** What it pays (won) or would have paid (lost); absent when rejected. */
  cashback?: number;
  performanceFee?: number;
  /** Why a rule rejected it (rejected only; why one lost is `lostReason`, said when read). */
  reason?: string;
}

/** The offers a decision weighed: the winner first, then the others that would have paid, then the rejected. */
export interface OffersConsidered {
  offers: ConsideredOffer[];
  /** How many more were weighed beyond the first CONSIDERED_LIMIT, not listed. */
  more: number;
}

/** The most offers a transaction keeps in its list of those considered. */
export const CONSIDERED_LIMIT = 20;

export const NONE_CONSIDERED: OffersConsidered = { offers: [], more: 0 };

export interface Decision {
  result: OfferResult;
  considered: OffersConsidered;
}

/**
 * Decides a purchase against the live offers linked to its location (one brand and location).
 * The highest cashback wins, the most recent offer at equal cashback; when none is eligible, the
 * message is the most recent offer's. `now` is the service time, for the return period.
 */
export function decide(
  candidates: CandidateOffer[],
  tx: TransactionFacts,
  activationOf: (offerId: string) => ActivationState,
  now: string,
): OfferResult {
  return resultOf(candidates, weigh(candidates, tx, activationOf), tx, now);
}

/** `decide`, with every offer it weighed: each one's award, or why it lost or was rejected. */
export function decision(
  candidates: CandidateOffer[],
  tx: TransactionFacts,
  activationOf: (offerId: string) => ActivationState,
  now: string,
): Decision {
  const weighed = weigh(candidates, tx, activationOf);
  return {
    result: resultOf(candidates, weighed, tx, now),
    considered: candidates.length === 0 ? NONE_CONSIDERED : consideredOffers(candidates, weighed.reasons, weighed.awards, weighed.best),
  };
}

type Award = { cashback: number; performanceFee: number };

/**
 * One pass over the candidates: each offer's rejection or award, the best eligible offer (highest cashback,
 * the newest at equal cashback; -1 when none) and the newest offer of all, whose rejection is the message
 * when none is eligible.
 */
function weigh(candidates: CandidateOffer[], tx: TransactionFacts, activationOf: (offerId: string) => ActivationState) {
  const reasons: (string | null)[] = [];
  const awards: (Award | null)[] = [];
  let newest = 0;
  let best = -1;
  for (let i = 0; i < candidates.length; i++) {
    const offer = candidates[i]!;
    if (isNewer(offer, candidates[newest]!)) newest = i;
    const reason = rejection(offer, tx, activationOf(offer.id));
    reasons.push(reason);
    const a = reason === null ? award(offer, tx) : null;
    awards.push(a);
    if (!a) continue;
    const top = best < 0 ? null : awards[best]!;
    if (!top || a.cashback > top.cashback || (a.cashback === top.cashback && isNewer(offer, candidates[best]!))) best = i;
  }
  return { reasons, awards, best, newest };
}

/** The decision's result from what `weigh` found: the winner's award (after its return period), or the newest offer's rejection. */
function resultOf(candidates: CandidateOffer[], { reasons, awards, best, newest }: ReturnType<typeof weigh>, tx: TransactionFacts, now: string): OfferResult {
  if (candidates.length === 0) return notQualified(null, "No live offer is linked to this location.");
  if (best < 0) return notQualified(candidates[newest]!.id, reasons[newest]!);
  const winner = candidates[best]!;
  const { cashback, performanceFee } = awards[best]!;
  if (winner.returnPeriod) {
    const qualificationDate = addDays(tx.created.slice(0, 10), winner.returnPeriod);
    const due = now.slice(0, 10) >= qualificationDate;
    return {
      id: winner.id,
      cashback,
      performanceFee,
      qualified: due,
      qualificationDate,
      message: due ? [] : [`The transaction qualifies on ${qualificationDate}, after the return period of ${winner.returnPeriod} days.`],
    };
  }
  return { id: winner.id, cashback, performanceFee, qualified: true, qualificationDate: null, message: [] };
}

/**
 * The offers weighed, in the order a reader wants them: the winner, then the eligible ones by what they
 * would have paid (most first), then the rejected ones, newest first; at most CONSIDERED_LIMIT listed.
 */
function consideredOffers(
  candidates: CandidateOffer[],
  reasons: (string | null)[],
  awards: (Award | null)[],
  best: number,
): OffersConsidered {
  const order = candidates.map((_, i) => i);
  const rank = (i: number) => (i === best ? 0 : awards[i] ? 1 : 2);
  order.sort((a, b) => {
    const byRank = rank(a) - rank(b);
    if (byRank !== 0) return byRank;
    const byAward = (awards[b]?.cashback ?? 0) - (awards[a]?.cashback ?? 0);
    if (byAward !== 0) return byAward;
    return isNewer(candidates[a]!, candidates[b]!) ? -1 : isNewer(candidates[b]!, candidates[a]!) ? 1 : 0;
  });
  const offers = order.slice(0, CONSIDERED_LIMIT).map((i): ConsideredOffer => {
    const offerId = candidates[i]!.id;
    const a = awards[i];
    if (i === best) return { offerId, outcome: "won", cashback: a!.cashback, performanceFee: a!.performanceFee };
    if (!a) return { offerId, outcome: "rejected", reason: reasons[i]! };
    return { offerId, outcome: "lost", cashback: a.cashback, performanceFee: a.performanceFee };
  });
  return { offers, more: Math.max(candidates.length - CONSIDERED_LIMIT, 0) };
}

/**
 * Why an eligible offer lost to the winner, said when it is read (the qualifier keeps only the figures, so
 * its hot path formats no text): it paid less, or as much and the winner is the more recent offer.
 */
export function lostReason(lost: Pick<ConsideredOffer, "cashback">, winner: Pick<ConsideredOffer, "cashback"> | undefined, currency: string): string {
  const cashback = lost.cashback ?? 0;
  const top = winner?.cashback ?? 0;
  return cashback < top
    ? `Paid less than the winning offer: cashback ${cashback} vs ${top} ${currency}.`
    : `Paid as much as the winning offer (cashback ${cashback} ${currency}); the more recent offer wins.`;
}

/**
 * What a decision against one offer weighed, from its result alone: the clearing of part of an
 * authorisation is decided on the authorisation's offer, and rewarded once across its clearings.
 */
export function consideredOfResult(result: OfferResult): OffersConsidered {
  if (result.id === null) return NONE_CONSIDERED;
  if (result.qualified || result.qualificationDate !== null) {
    return { offers: [{ offerId: result.id, outcome: "won", cashback: result.cashback, performanceFee: result.performanceFee }], more: 0 };
  }
  return { offers: [{ offerId: result.id, outcome: "rejected", reason: result.message.join(" ") }], more: 0 };
}

/** The most recent offer wins ties: later `created`, then the greater id. */
const isNewer = (a: CandidateOffer, b: CandidateOffer): boolean => a.created > b.created || (a.created === b.created && a.id > b.id);

/**
 * Rule 5, the live activation gate: in live, a location whose offers all need activation receives only
 * the transactions of cards that activated one of them. In test every transaction is visible. Returns
 * why the transaction is not received, or null.
 */
export function liveActivationGate(live: boolean, candidates: CandidateOffer[], activationOf: (offerId: string) => ActivationState): string | null {
  if (!live || candidates.length === 0) return null;
  for (const offer of candidates) if (!offer.activation.enabled || activationOf(offer.id) === "activated") return null;
  return "live activation offer not activated on this card";
}

/** A refund reverses its purchase's award in proportion to the amount refunded. */
export function refundResult(original: OfferResult, originalAmount: number, refundAmount: number, currency: string): OfferResult {
  if (!original.qualified && original.qualificationDate === null) {
    return { ...original, message: ["The original purchase did not qualify; nothing to reverse."] };
  }
  const share = Math.min(1, Math.abs(refundAmount) / Math.abs(originalAmount));
  return {
    ...original,
    cashback: roundMoney(-original.cashback * share, currency),
    performanceFee: roundMoney(-original.performanceFee * share, currency),
    message: ["Refund: reverses the purchase's award."],
  };
}

/** Whether a result earns, or will once its return period passes: what a refund reverses and an expiry withdraws. */
export const earns = (result: OfferResult): boolean => result.qualified || result.qualificationDate !== null;

// ---------------------------------------------------------------------------------------------------------
// What the networks do after an authorisation, and the qualifier's rules for each (docs/transactions-and-
// webhooks.md, "Networks as they behave"):
//
// - Which amount earns cashback: what clears. A purchase is decided at its authorisation on the authorised
//   amount; a clearing of exactly that amount is a stage of the same transaction and changes nothing. Any
//   other clearing (part of it, more than it by a tip, one of several) is a transaction of its own decided
//   on its own amount against the authorisation's offer. A clearing that comes with no authorisation is a
//   purchase decided on its own amount, like any other. A clearing converted into the cardholder's currency
//   is decided on the purchase's own amount and currency (the network's), never the billed one.
// - Rewarded once: the clearings of one authorisation together earn at most what the whole purchase earns on
//   the larger of its authorised amount and what cleared, no more than the tip bound above the authorised
//   amount (`rewardBase`). An increment is no new transaction: it raises the authorisation's amount, which
//   is decided again against the offer it was decided on (`incrementedResult`), and counts on an activation
//   only if it earns now and did not before. A clearing the network sends again (the same reference: Visa's
//   acquirer reference number, Mastercard's transaction sequence number, Amex's ROC id) records nothing and
//   rewards nothing (`isRepeatedClearing`).
// - When a qualified authorisation's cashback is withdrawn: when the network withdraws the authorisation,
//   left uncleared for its expiry days, with nothing of it cleared (`expiredResult`). A clearing earns on
//   its own, so once part of a purchase cleared its expiry withdraws only the rest of the hold.
// ---------------------------------------------------------------------------------------------------------

/** What the clearings of one authorisation have come to so far, and what they took of its reward. */
export interface ClearingsSoFar {
  amount: number;
  count: number;
  cashback: number;
  performanceFee: number;
  /** Each clearing's reference (src/domain/transaction-id.ts clearingKeyOf): a clearing sent again is known by it. Absent on rows kept before. */
  keys?: string[];
}

export const NO_CLEARINGS: ClearingsSoFar = { amount: 0, count: 0, cashback: 0, performanceFee: 0 };

/**
 * The amount the clearings of an authorisation are rewarded on together, once one more of `clearing` is
 * added to `soFar`: the larger of the authorised amount and what cleared, capped at the tip bound above it.
 */
export function rewardBase(authorised: number, soFar: number, clearing: number, currency: string): number {
  return Math.min(Math.max(authorised, roundMoney(soFar + clearing, currency)), roundMoney(authorised * (1 + TIP_BOUND), currency));
}

/**
 * A clearing of its own (part of an authorisation, more than it, or one of several), decided against the
 * authorisation's offer on its own amount (`own`), and rewarded once across them: the clearings of one
 * authorisation together never take more than the whole purchase earns on its reward base (`whole`, see
 * `rewardBase`). A discount pays its percentage of each clearing up to that; an amount offer pays the first
 * clearing that qualifies, and later ones are told why not.
 */
export function clearingResult(own: OfferResult, whole: OfferResult, soFar: ClearingsSoFar, currency: string): OfferResult {
  if (!earns(own)) return own;
  const cashback = roundMoney(Math.min(own.cashback, Math.max(whole.cashback - soFar.cashback, 0)), currency);
  const performanceFee = roundMoney(Math.min(own.performanceFee, Math.max(whole.performanceFee - soFar.performanceFee, 0)), currency);
  if (cashback <= 0 && own.cashback > 0) {
    return notQualified(own.id, "The purchase was rewarded already: its earlier clearings took the offer's whole reward.");
  }
  return { ...own, cashback, performanceFee };
}

/** What the clearings of an authorisation come to with one more (`key`: its reference, kept to know it if sent again). */
export function addClearing(soFar: ClearingsSoFar, amount: number, result: OfferResult, currency: string, key?: string | null): ClearingsSoFar {
  const keys = key ? [...(soFar.keys ?? []), key] : soFar.keys;
  return {
    amount: roundMoney(soFar.amount + amount, currency),
    count: soFar.count + 1,
    cashback: roundMoney(soFar.cashback + result.cashback, currency),
    performanceFee: roundMoney(soFar.performanceFee + result.performanceFee, currency),
    ...(keys ? { keys } : {}),
  };
}

/** Whether a clearing with this reference was recorded for the authorisation already: the network sent it again. */
export const isRepeatedClearing = (soFar: ClearingsSoFar | null, key: string | null): boolean => key !== null && (soFar?.keys?.includes(key) ?? false);

/**
 * An authorisation after an increment: `redecided` is its offer's decision on the new authorised amount (the
 * offer it was decided on, an activation it passed kept). An authorisation decided against no offer stays
 * as it was. `newlyEarned`: it earns now and did not before, so it counts on the card's activation now.
 */
export function incrementedResult(previous: OfferResult, redecided: OfferResult): { result: OfferResult; newlyEarned: boolean } {
  if (previous.id === null) return { result: previous, newlyEarned: false };
  return { result: redecided, newlyEarned: earns(redecided) && !earns(previous) };
}

/**
 * An authorisation the network withdrew, left uncleared for its expiry days: with nothing of it cleared, the
 * cashback it earned (or would earn after its return period) is withdrawn; once part of it cleared, those
 * clearings keep what they earned and the authorisation's result stands.
 */
export function expiredResult(result: OfferResult, cleared: number): OfferResult {
  if (cleared > 0 || !earns(result)) return result;
  return notQualified(result.id, "The authorisation expired uncleared: the network withdrew it, and its cashback with it.");
}
