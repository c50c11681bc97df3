// What a simulated network knows about cards, merchants and purchases, whatever the scheme.
import type { MerchantIds, NativeTransaction, Scheme } from "../../src/platform/bus/messages.ts";
import type { TargetingName } from "../../src/domain/offer.ts";

export type { MerchantIds, NativeTransaction, Scheme };

export interface Card {
  id: string;
  firstSix: string;
  lastFour: string;
}

export interface Merchant {
  /** The network's key for the merchant: the service's location id, or a generated id. */
  key: string;
  /** The service's location, when the merchant is one (onboarded or not). */
  locationId: string | null;
  name: string;
  address: string;
  city: string;
  postcode: string;
  /** ISO 3166-1 alpha-3. */
  countryCode: string;
  timezone: string;
  mcc: string;
  /** This scheme's ids for the merchant; partly null where the network has not assigned them. */
  mids: MerchantIds;
}

export interface Purchase {
  id: string;
  scheme: Scheme;
  card: Card;
  merchant: Merchant;
  amount: number;
  currency: string;
  /** Local to the merchant, YYYY-MM-DDThh:mm:ss. */
  localDateTime: string;
  /** When the network authorised it: ISO 8601, service time. */
  authorizedAt: string;
  cardPresent: boolean;
  wallet: string | null;
  targetingTag: TargetingName | null;
  /** The currency the card is billed in, when not the purchase's: the network converts (absent on purchases kept before). */
  billingCurrency?: string | null;
  /** Days its authorisation lasts uncleared before the network withdraws it (absent: AUTH_EXPIRY_DAYS). */
  authExpiryDays?: number;
}

/** What a network's message is about: `increment` an incremental authorisation, `expiry` the withdrawal of an authorisation left uncleared. */
export type MessageKind = "auth" | "increment" | "clearing" | "refund" | "void" | "expiry";

/** The kinds a traffic run counts its messages by: an increment is an authorisation, an expiry a reversal. */
export type CountedKind = "auth" | "clearing" | "refund" | "void";
export const COUNTED_AS: Record<MessageKind, CountedKind> = {
  auth: "auth",
  increment: "auth",
  clearing: "clearing",
  refund: "refund",
  void: "void",
  expiry: "void",
};

/**
 * What happens to a purchase after its auth: it clears (the whole amount at once, or in `clearings`: one
 * part of it, several parts adding up to it, or one above it by a tip), is voided, clears and is refunded
 * (`referenced` false: the refund does not name the purchase), or is never cleared and expires. A clearing
 * may come `withoutAuth` (offline, force-posted: no authorisation first), follow an `increment` of the
 * authorisation, or be sent again a day later (`duplicate`).
 */
export type Plan =
  | { outcome: "clear"; clearings?: number[]; withoutAuth?: boolean; increment?: { amount: number; afterMs: number }; duplicate?: boolean }
  | { outcome: "void"; afterMs: number }
  | { outcome: "refund"; amount: number; afterClearingMs: number; referenced: boolean }
  | { outcome: "expire" };

export const emptyMids = (): MerchantIds => ({
  vmid: null,
  vsid: null,
  visaAcquiringMid: null,
  visaBin: null,
  mcLocationId: null,
  mcAcquiringMid: null,
  seNumber: null,
  merchantName: null,
});
