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
}

export type MessageKind = "auth" | "clearing" | "refund" | "void";

/**
 * What happens to a purchase after its auth: it clears (the whole amount at once, or in `clearings`: one
 * part of it, or several parts adding up to it), is voided, or clears and is refunded (`referenced` false:
 * the refund does not name the purchase).
 */
export type Plan =
  | { outcome: "clear"; clearings?: number[] }
  | { outcome: "void"; afterMs: number }
  | { outcome: "refund"; amount: number; afterClearingMs: number; referenced: boolean };

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
