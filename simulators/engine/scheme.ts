// What differs per network: message shapes and identifiers, when clearing happens, the look-up window,
// and how a look-up result names the merchant. Each scheme's folder implements this.
import type { LookupTransaction } from "../../src/platform/bus/messages.ts";
import { localAt } from "../../src/domain/local-dates.ts";
import { HOUR_MS, SECOND_MS } from "../../src/domain/time-units.ts";
import { clearingKeyOf } from "../../src/domain/transaction-id.ts";
import type { Merchant, MerchantIds, MessageKind, NativeTransaction, Purchase, Scheme } from "./types.ts";

/** One clearing of part of a purchase (or of more than it, by a tip): its own id (the messages' ids derive from it) and amount. */
export interface ClearingPart {
  clearingId: string;
  amount: number;
}

/**
 * How a clearing goes out: `withoutAuth`, with no authorisation before it (an offline or force-posted
 * transaction: no auth code); `resent`, the network sending a clearing again (its own message id, the
 * clearing's reference as the first time).
 */
export interface ClearingOptions {
  withoutAuth?: boolean;
  resent?: boolean;
}

/** The message id of a clearing the network sends again. */
export const resentMessageId = (messageId: string) => `${messageId}-RESENT`;

/** The network's own ids for one purchase, derived from its purchase id. */
export interface PurchaseIds {
  /** Visa/Amex transaction id, Mastercard reference number: what joins clearing to auth. */
  transactionId: string;
  /** Visa/Mastercard auth code, Amex approval code. */
  authCode: string;
}

export interface SchemeAdapter {
  scheme: Scheme;
  /** The topic the network publishes its transaction messages on. */
  topic: string;
  /** How far back a missing-transaction look-up searches. */
  lookupWindowDays: number;
  /** First six digits of the cards the generator makes for this scheme. */
  cardPrefix(random: () => number): { firstSix: string; lastFour: string };
  /** Ids for a merchant; `assigned` false leaves out what the network assigns on onboarding. */
  assignMids(random: () => number, merchantName: string, assigned: boolean): MerchantIds;
  /** Whether `mids` carry this scheme's ids in valid formats (client-supplied MIDs). */
  validMids(mids: MerchantIds): boolean;
  ids(purchaseId: string): PurchaseIds;
  /** The id of the message of `kind` about purchase (or, for a refund, refund) `id`. */
  messageId(kind: MessageKind, id: string): string;
  auth(purchase: Purchase, at: Date): NativeTransaction;
  /** An incremental authorisation: `amount` more authorised on the purchase, in a message of its own (`incrementId`). */
  increment(purchase: Purchase, incrementId: string, amount: number, at: Date): NativeTransaction;
  /** The clearing of the whole amount at once, or, with `part`, one clearing of part of it (one of several, maybe, or more than it). */
  clearing(purchase: Purchase, at: Date, part?: ClearingPart, options?: ClearingOptions): NativeTransaction;
  /**
   * What tells the clearing made with `part.clearingId` (the purchase's id for its clearing of the whole) from the
   * purchase's other clearings, and what a clearing sent again repeats (src/domain/transaction-id.ts clearingKeyOf).
   */
  clearingKey(clearingId: string): string;
  /** A refund; `referenced` false leaves out the purchase it refunds, as networks often do (Cardlink matches it). */
  refund(purchase: Purchase, refundId: string, amount: number, at: Date, referenced?: boolean): NativeTransaction;
  void(purchase: Purchase, at: Date): NativeTransaction;
  /** The network's withdrawal of an authorisation left uncleared: `amount` is what was left of it. */
  expiry(purchase: Purchase, amount: number, at: Date): NativeTransaction;
  /** When the purchase authorised at `authorizedAt` clears (48 to 72 hours later). */
  clearingDue(purchaseId: string, authorizedAt: Date): Date;
  networkStatus(merchant: Merchant): LookupTransaction["networkStatus"];
  /** Look-up entries for a found purchase (Visa reports its authorization and its settlement). */
  lookupEntries(purchase: Purchase, cleared: boolean, matchScore: number): LookupTransaction[];
}

/** 48 to 72 hours after the auth, to the second, the same for the same purchase id. */
export function clearingDelayMs(random: () => number): number {
  return 48 * HOUR_MS + Math.floor(random() * 24 * 3600) * SECOND_MS;
}

export const isoDate = (at: Date) => at.toISOString().slice(0, 10);

/** The name a network registers: upper case, like acquirer descriptors, at most 25 characters. */
export const descriptor = (name: string, city: string) =>
  `${name} ${city}`.toUpperCase().replace(/[^A-Z0-9 &'.-]/g, "").slice(0, 25).trim();

/** What a network with one transaction id and one code per purchase (Visa, Amex) calls its messages' parts. */
export interface MessageNames<T> {
  /** The message types of an incremental authorisation, a clearing, a refund, a void and an authorisation's expiry. */
  types: { increment: string; clearing: string; refund: string; void: string; expiry: string };
  /** The field of the date a clearing or refund settles on. */
  settledOn: keyof T & string;
  /** The field of the purchase's code (a refund and a void carry none). */
  code: keyof T & string;
  /** The field of a clearing's reference, and its value for a clearing id (the same every time it is sent). */
  reference: keyof T & string;
  referenceOf: (clearingId: string) => string;
}

/**
 * The auth, increment, clearing, refund, void and expiry of a network with one transaction id and one code
 * per purchase, from the scheme's `message` (its shape with the purchase's fields) and its ids.
 */
export function idAndCodeMessages<T extends NativeTransaction>(
  message: (p: Purchase, at: Date, fields: Partial<T> & { messageType: string; messageId: string }) => T,
  ids: (purchaseId: string) => PurchaseIds,
  messageId: (kind: MessageKind, id: string) => string,
  names: MessageNames<T>,
): Pick<SchemeAdapter, "auth" | "increment" | "clearing" | "clearingKey" | "refund" | "void" | "expiry"> {
  const fields = (f: Record<string, unknown>) => f as Partial<T> & { messageType: string; messageId: string };
  return {
    auth: (p, at) => message(p, at, fields({ messageId: messageId("auth", p.id), messageType: "AUTH" })),
    increment: (p, incrementId, amount, at) =>
      message(p, at, fields({ messageId: messageId("increment", incrementId), messageType: names.types.increment, amount })),
    clearing: (p, at, part, options = {}) => {
      const id = messageId("clearing", part?.clearingId ?? p.id);
      return message(
        p,
        at,
        fields({
          messageId: options.resent ? resentMessageId(id) : id,
          messageType: names.types.clearing,
          [names.settledOn]: isoDate(at),
          [names.reference]: names.referenceOf(part?.clearingId ?? p.id),
          ...(options.withoutAuth ? { [names.code]: null } : {}),
          ...(part ? { amount: part.amount } : {}),
        }),
      );
    },
    clearingKey: (clearingId) => clearingKeyOf({ messageId: messageId("clearing", clearingId), sequenceNumber: null, reference: names.referenceOf(clearingId) }),
    refund: (p, refundId, amount, at, referenced = true) =>
      message(
        p,
        at,
        fields({
          messageId: messageId("refund", refundId),
          // A refund happens when it happens: its own local time, not the purchase's.
          transactionDateTime: localAt(at, p.merchant.timezone),
          messageType: names.types.refund,
          transactionId: ids(refundId).transactionId,
          originalTransactionId: referenced ? ids(p.id).transactionId : null,
          amount: -Math.abs(amount),
          [names.code]: null,
          [names.settledOn]: isoDate(at),
        }),
      ),
    void: (p, at) => message(p, at, fields({ messageId: messageId("void", p.id), messageType: names.types.void, [names.code]: null })),
    expiry: (p, amount, at) => message(p, at, fields({ messageId: messageId("expiry", p.id), messageType: names.types.expiry, amount })),
  };
}

/** A look-up entry with every per-scheme field null; each scheme fills its own. */
export function baseEntry(purchase: Purchase, matchScore: number, networkStatus: LookupTransaction["networkStatus"], transactionId: string): LookupTransaction {
  return {
    amount: purchase.amount,
    date: purchase.localDateTime.slice(0, 10),
    networkStatus,
    merchantName: purchase.merchant.name,
    merchantCity: purchase.merchant.city,
    matchScore,
    type: null,
    transactionId,
    vmid: null,
    vsid: null,
    visaStoreName: null,
    visaAcquiringMid: null,
    visaBin: null,
    mcLocationId: null,
    mcAcquiringMid: null,
    seNumber: null,
  };
}
