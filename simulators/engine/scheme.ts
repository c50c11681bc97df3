// What differs per network: message shapes and identifiers, when clearing happens, the look-up window,
// and how a look-up result names the merchant. Each scheme's folder implements this.
import type { LookupTransaction } from "../../src/platform/bus/messages.ts";
import { localAt } from "../../src/domain/local-dates.ts";
import { clearingKeyOf } from "../../src/domain/transaction-id.ts";
import type { Merchant, MerchantIds, MessageKind, NativeTransaction, Purchase, Scheme } from "./types.ts";

/** One clearing of part of a purchase: its own id (the messages' ids derive from it) and amount. */
export interface ClearingPart {
  clearingId: string;
  amount: number;
}

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
  /** The clearing of the whole amount at once, or, with `part`, one clearing of part of it (one of several, maybe). */
  clearing(purchase: Purchase, at: Date, part?: ClearingPart): NativeTransaction;
  /** What tells the clearing made with `part.clearingId` from the purchase's other clearings (src/domain/transaction-id.ts clearingKeyOf). */
  clearingKey(clearingId: string): string;
  /** A refund; `referenced` false leaves out the purchase it refunds, as networks often do (Cardlink matches it). */
  refund(purchase: Purchase, refundId: string, amount: number, at: Date, referenced?: boolean): NativeTransaction;
  void(purchase: Purchase, at: Date): NativeTransaction;
  /** When the purchase authorised at `authorizedAt` clears (48 to 72 hours later). */
  clearingDue(purchaseId: string, authorizedAt: Date): Date;
  networkStatus(merchant: Merchant): LookupTransaction["networkStatus"];
  /** Look-up entries for a found purchase (Visa reports its authorization and its settlement). */
  lookupEntries(purchase: Purchase, cleared: boolean, matchScore: number): LookupTransaction[];
}

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;

/** 48 to 72 hours after the auth, to the second, the same for the same purchase id. */
export function clearingDelayMs(random: () => number): number {
  return 48 * HOUR_MS + Math.floor(random() * 24 * 3600) * 1000;
}

export const isoDate = (at: Date) => at.toISOString().slice(0, 10);

/** The name a network registers: upper case, like acquirer descriptors, at most 25 characters. */
export const descriptor = (name: string, city: string) =>
  `${name} ${city}`.toUpperCase().replace(/[^A-Z0-9 &'.-]/g, "").slice(0, 25).trim();

/** What a network with one transaction id and one code per purchase (Visa, Amex) calls its messages' parts. */
export interface MessageNames<T> {
  /** The message types of a clearing, a refund and a void. */
  types: { clearing: string; refund: string; void: string };
  /** The field of the date a clearing or refund settles on. */
  settledOn: keyof T & string;
  /** The field of the purchase's code (a refund and a void carry none). */
  code: keyof T & string;
}

/**
 * The auth, clearing, refund and void of a network with one transaction id and one code per purchase,
 * from the scheme's `message` (its shape with the purchase's fields) and its ids.
 */
export function idAndCodeMessages<T extends NativeTransaction>(
  message: (p: Purchase, at: Date, fields: Partial<T> & { messageType: string; messageId: string }) => T,
  ids: (purchaseId: string) => PurchaseIds,
  messageId: (kind: MessageKind, id: string) => string,
  names: MessageNames<T>,
): Pick<SchemeAdapter, "auth" | "clearing" | "clearingKey" | "refund" | "void"> {
  const fields = (f: Record<string, unknown>) => f as Partial<T> & { messageType: string; messageId: string };
  return {
    auth: (p, at) => message(p, at, fields({ messageId: messageId("auth", p.id), messageType: "AUTH" })),
    clearing: (p, at, part) =>
      message(
        p,
        at,
        fields({
          messageId: messageId("clearing", part?.clearingId ?? p.id),
          messageType: names.types.clearing,
          [names.settledOn]: isoDate(at),
          ...(part ? { amount: part.amount } : {}),
        }),
      ),
    clearingKey: (clearingId) => clearingKeyOf({ messageId: messageId("clearing", clearingId), sequenceNumber: null }),
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
