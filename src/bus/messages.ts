// The values on the bus, as TypeScript sees them; each mirrors its Avro schema in ./schemas (the
// simulators' tests publish every kind through the schemas, so a drift fails there).
import { MISSING_REQUEST_ERRORS } from "../domain/missing-transaction.ts";

import type { Scheme } from "../domain/scheme.ts";

export type { Scheme } from "../domain/scheme.ts";

/** A merchant's ids on one network, named as MID insights name them; only the scheme's own are set. */
export interface MerchantIds {
  vmid: string | null;
  vsid: string | null;
  visaAcquiringMid: string | null;
  visaBin: string | null;
  mcLocationId: string | null;
  mcAcquiringMid: string | null;
  seNumber: string | null;
  merchantName: string | null;
}

interface MerchantCommon {
  name: string;
  city: string;
  postcode: string;
  /** ISO 3166-1 alpha-3. */
  countryCode: string;
  mcc: string;
}

interface TransactionCommon {
  messageId: string;
  cardFirstSix: string;
  cardLastFour: string;
  currencyCode: string;
  /** ISO 8601 UTC, service time. */
  processedAt: string;
  cardPresent: boolean;
  wallet: string | null;
  targetingTag: string | null;
}

export interface VisaTransaction extends TransactionCommon {
  messageType: "AUTH" | "SETTLEMENT" | "REFUND" | "VOID";
  transactionId: string;
  originalTransactionId: string | null;
  cardId: string;
  amount: number;
  transactionDateTime: string;
  authCode: string | null;
  merchant: MerchantCommon & { vmid: string | null; vsid: string | null; caid: string; acquirerBin: string };
  settlementDate: string | null;
}

export interface MastercardTransaction extends TransactionCommon {
  messageType: "AUTHORIZATION" | "CLEARING" | "REFUND" | "REVERSAL";
  refNumber: string;
  originalRefNumber: string | null;
  transactionSequenceNumber: string | null;
  cardReference: string;
  transactionAmount: number;
  transactionLocalDateTime: string;
  authCode: string | null;
  merchant: MerchantCommon & { locationId: string | null; acquiringMid: string };
  clearingBatchDate: string | null;
}

export interface AmexTransaction extends TransactionCommon {
  messageType: "AUTH" | "SUBMISSION" | "CREDIT" | "REVERSAL";
  transactionId: string;
  originalTransactionId: string | null;
  cardToken: string;
  amount: number;
  transactionDateTime: string;
  approvalCode: string | null;
  merchant: MerchantCommon & { seNumber: string };
  submissionDate: string | null;
}

export type NativeTransaction = VisaTransaction | MastercardTransaction | AmexTransaction;

export interface OnboardingRequest {
  requestId: string;
  scheme: Scheme;
  locationId: string;
  programId: string;
  brandName: string;
  address: string;
  city: string;
  postcode: string;
  countryCode: string;
  mids: MerchantIds[];
  requestedAt: string;
  /** false for the test environment: the network answers at once with test data. */
  live: boolean;
}

export interface OnboardingReply {
  requestId: string;
  scheme: Scheme;
  locationId: string;
  status: "ACTIVE" | "NOT_FOUND";
  reason: string | null;
  mids: MerchantIds[];
  respondedAt: string;
}

export interface LookupRequest {
  requestId: string;
  scheme: Scheme;
  cardId: string;
  cardLastNumbers: string;
  amount: number;
  /** YYYY-MM-DD */
  transactionDate: string;
  locationId: string | null;
  mids: MerchantIds[];
  requestedAt: string;
  /** false for the test environment: the network answers at once with test data. */
  live: boolean;
}

/** The spec's missing-transaction error codes (src/domain/missing-transaction.ts). */
export const LOOKUP_ERROR_CODES = MISSING_REQUEST_ERRORS;
export type LookupErrorCode = (typeof LOOKUP_ERROR_CODES)[number];

export interface LookupTransaction {
  amount: number;
  date: string;
  networkStatus: "SUCCEED" | "MID-NOT-ASSIGNED";
  merchantName: string;
  merchantCity: string;
  matchScore: number;
  type: "settlement" | "authorization" | null;
  transactionId: string;
  vmid: string | null;
  vsid: string | null;
  visaStoreName: string | null;
  visaAcquiringMid: string | null;
  visaBin: string | null;
  mcLocationId: string | null;
  mcAcquiringMid: string | null;
  seNumber: string | null;
}

export interface LookupReply {
  requestId: string;
  scheme: Scheme;
  cardId: string;
  outcome: "SUCCEEDED" | "FAILED";
  error: { code: LookupErrorCode; message: string } | null;
  transactions: LookupTransaction[];
  respondedAt: string;
}

export interface SimulatorCommand {
  commandId: string;
  scheme: Scheme;
  action: "PURCHASE" | "CLEAR" | "REFUND" | "VOID";
  purchaseId: string;
  card: { id: string; firstSix: string; lastFour: string } | null;
  location: {
    id: string;
    name: string;
    address: string;
    city: string;
    postcode: string;
    countryCode: string;
    timezone: string | null;
    mids: MerchantIds[];
  } | null;
  amount: number | null;
  currency: string | null;
  datetime: string | null;
  cardPresent: boolean | null;
  wallet: string | null;
  targetingTag: string | null;
  issuedAt: string;
}

export interface CardEnrolment {
  cardId: string;
  scheme: Scheme;
  action: "ENROL" | "UNENROL";
  programId: string;
  firstSix: string;
  lastFour: string;
  live: boolean;
  at: string;
}

export interface DeadLetter {
  topic: string;
  partition: number;
  offset: number;
  key: string;
  reason: string;
  payload: string;
  failedBy: string;
  failedAt: string;
}
