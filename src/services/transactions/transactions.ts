// A transaction as the API and the webhooks show it: the spec's Transaction with its offer result, the row
// the qualifier writes, and the record as of a stage that a transaction event keeps.
import type { ClearingsSoFar, OfferResult, OffersConsidered } from "../../domain/qualification.ts";
import { NO_CLEARINGS } from "../../domain/qualification.ts";
import type { Identifiers, Stage } from "./network-transaction.ts";
import type { Place } from "../catalog/index.ts";

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

/** A transaction row as the table has it (brand_id is not part of the record the API shows). */
export type StoredTransactionRow = TransactionRow & { brand_id: string | null };

/** Where a transaction happened, as its row keeps it. */
export type TransactionPlace = Pick<StoredTransactionRow, "location_id" | "brand_id" | "brand" | "location">;

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
