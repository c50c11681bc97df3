// The scheme-neutral view of one network message (the qualifier's normalised form, and what the services
// record).
import type { MerchantIds, Scheme } from "../../platform/bus/messages.ts";

/** What a message does to its purchase: `increment` raises its authorisation, `expiry` withdraws it (left uncleared). */
export type Stage = "auth" | "increment" | "clearing" | "refund" | "void" | "expiry";

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
  /** For a clearing: what tells it from the authorisation's other clearings, and what it repeats when sent again (src/domain/transaction-id.ts). */
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


