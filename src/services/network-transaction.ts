// The scheme-neutral view of one network message (the qualifier's normalised form, and what the services
// record), and the card and location rows it is matched to.
import type { MerchantIds, Scheme } from "../bus/messages.ts";
import type { LocationRow } from "./location-records.ts";

export type Stage = "auth" | "clearing" | "refund" | "void";

export interface Identifiers {
  MID: string | null;
  mastercardTransactionSequenceNumber: string | null;
  mastercardRefNumber: string | null;
  amexApprovalCode: string | null;
  visaAuthCode: string | null;
  mastercardAuthCode: string | null;
}

export interface NetworkTransaction {
  scheme: Scheme;
  messageId: string;
  stage: Stage;
  /** The scheme's key for the purchase this message is about (for a refund: the refund's own key). */
  purchaseKey: string;
  /** For a refund: the purchase it refunds, when the network says. */
  originalKey: string | null;
  /** For a clearing: what tells it from the authorisation's other clearings (src/domain/transaction-id.ts). */
  clearingKey: string | null;
  cardId: string;
  cardFirstSix: string;
  cardLastFour: string;
  amount: number;
  currency: string;
  /** Local to the merchant, YYYY-MM-DDThh:mm:ss. */
  localDateTime: string;
  cardPresent: boolean;
  wallet: string | null;
  targetingTag: "new" | "lapsed" | "existing" | null;
  /** What the network says about the merchant, to find the location by MID. */
  merchant: Pick<MerchantIds, "vmid" | "vsid" | "visaAcquiringMid" | "visaBin" | "mcLocationId" | "mcAcquiringMid" | "seNumber">;
  identifiers: Identifiers;
}

export type Normalised = { ok: true; value: NetworkTransaction } | { ok: false; reason: string };

/** The card a transaction is matched to, as stored. */
export interface TransactionCard {
  id: string;
  account_id: string;
  live: boolean;
  program_id: string;
  first_numbers: string;
  last_numbers: string;
  scheme: string;
  metadata: Record<string, unknown> | null;
}

/** A location with its brand's name and logo, as the transaction record shows them. */
export interface TransactionLocation extends LocationRow {
  brand_name: string;
  brand_logo_url: string | null;
}
