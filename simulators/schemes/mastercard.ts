// The Mastercard network's message shapes: authorization, incremental authorization and clearing joined by
// the reference number, the transaction sequence number on clearing only (one per clearing: a purchase may
// clear more than once; a clearing sent again repeats it), location id and acquiring MID; refunds,
// reversals and the authorization's expiry; the cardholder's billed amount when converted. Clearing goes
// out in a daily batch at 12:00 UTC, the first at least 48 hours after the authorization.
import type { MastercardTransaction } from "../../src/platform/bus/messages.ts";
import { transactionTopic } from "../../src/platform/bus/topics.ts";
import { localAt } from "../../src/domain/local-dates.ts";
import { MID_FORMATS } from "../../src/domain/mid-formats.ts";
import { clearingKeyOf } from "../../src/domain/transaction-id.ts";
import { alphanumeric, derivedRandom, digits } from "../engine/random.ts";
import { billed } from "../engine/fx.ts";
import { DAY_MS, HOUR_MS } from "../../src/domain/time-units.ts";
import { baseEntry, isoDate, resentMessageId, type SchemeAdapter } from "../engine/scheme.ts";
import { emptyMids, type MessageKind, type Purchase } from "../engine/types.ts";

const BANKNET_PREFIXES = ["MCC", "MDS", "MWE"];

const ids = (purchaseId: string) => {
  const random = derivedRandom("mastercard", purchaseId);
  const prefix = BANKNET_PREFIXES[Math.floor(random() * BANKNET_PREFIXES.length)]!;
  return {
    transactionId: `${prefix}${alphanumeric(random, 6)}`,
    authCode: alphanumeric(random, 6),
    sequenceNumber: digits(random, 13),
  };
};

const SUFFIX = { auth: "AUTH", increment: "INC", clearing: "CLR", refund: "REF", void: "REV", expiry: "EXP" } as const;
const messageId = (kind: MessageKind, id: string) => `${ids(id).transactionId}-${SUFFIX[kind]}`;

function message(
  p: Purchase,
  at: Date,
  fields: Partial<MastercardTransaction> & Pick<MastercardTransaction, "messageType" | "messageId">,
): MastercardTransaction {
  const m = p.merchant;
  const value: MastercardTransaction = {
    refNumber: ids(p.id).transactionId,
    originalRefNumber: null,
    transactionSequenceNumber: null,
    cardReference: p.card.id,
    cardFirstSix: p.card.firstSix,
    cardLastFour: p.card.lastFour,
    transactionAmount: p.amount,
    currencyCode: p.currency,
    transactionLocalDateTime: p.localDateTime,
    processedAt: at.toISOString(),
    authCode: ids(p.id).authCode,
    cardPresent: p.cardPresent,
    wallet: p.wallet,
    merchant: {
      locationId: m.mids.mcLocationId,
      acquiringMid: m.mids.mcAcquiringMid ?? "",
      name: m.name,
      city: m.city,
      postcode: m.postcode,
      countryCode: m.countryCode,
      mcc: m.mcc,
    },
    clearingBatchDate: null,
    targetingTag: p.targetingTag,
    cardholderBillingAmount: null,
    cardholderBillingCurrencyCode: null,
    conversionRate: null,
    ...fields,
  };
  const converted = billed(value.transactionAmount, value.currencyCode, p.billingCurrency, at);
  return converted
    ? { ...value, cardholderBillingAmount: converted.amount, cardholderBillingCurrencyCode: converted.currency, conversionRate: converted.rate }
    : value;
}

/** The first daily 12:00 UTC batch at or after `from`. */
export function nextBatch(from: Date): Date {
  const noon = Date.UTC(from.getUTCFullYear(), from.getUTCMonth(), from.getUTCDate(), 12);
  return new Date(noon >= from.getTime() ? noon : noon + DAY_MS);
}

export const mastercard: SchemeAdapter = {
  scheme: "mastercard",
  topic: transactionTopic("mastercard"),
  lookupWindowDays: 90,
  cardPrefix: (random) => ({ firstSix: "555500", lastFour: `5${digits(random, 3)}` }),
  assignMids(random, merchantName, assigned) {
    return {
      ...emptyMids(),
      mcAcquiringMid: digits(random, 15),
      mcLocationId: assigned ? digits(random, 9) : null,
      merchantName,
    };
  },
  validMids: (m) =>
    MID_FORMATS.mcAcquiringMid.pattern.test(m.mcAcquiringMid ?? "") &&
    (m.mcLocationId === null || MID_FORMATS.mcLocationId.pattern.test(m.mcLocationId)),
  ids,
  messageId,
  auth: (p, at) => message(p, at, { messageId: messageId("auth", p.id), messageType: "AUTHORIZATION" }),
  increment: (p, incrementId, amount, at) =>
    message(p, at, { messageId: messageId("increment", incrementId), messageType: "INCREMENTAL_AUTHORIZATION", transactionAmount: amount }),
  // Each clearing of a purchase has its own transaction sequence number; the reference number joins them all to the authorization.
  clearing: (p, at, part, options = {}) => {
    const id = messageId("clearing", part?.clearingId ?? p.id);
    return message(p, at, {
      messageId: options.resent ? resentMessageId(id) : id,
      messageType: "CLEARING",
      transactionSequenceNumber: ids(part?.clearingId ?? p.id).sequenceNumber,
      clearingBatchDate: isoDate(at),
      ...(options.withoutAuth ? { authCode: null } : {}),
      ...(part ? { transactionAmount: part.amount } : {}),
    });
  },
  clearingKey: (clearingId) => clearingKeyOf({ messageId: messageId("clearing", clearingId), sequenceNumber: ids(clearingId).sequenceNumber }),
  refund: (p, refundId, amount, at, referenced = true) =>
    message(p, at, {
      messageId: messageId("refund", refundId),
      // A refund happens when it happens: its own local time, not the purchase's.
      transactionLocalDateTime: localAt(at, p.merchant.timezone),
      messageType: "REFUND",
      refNumber: ids(refundId).transactionId,
      originalRefNumber: referenced ? ids(p.id).transactionId : null,
      transactionSequenceNumber: ids(refundId).sequenceNumber,
      transactionAmount: -Math.abs(amount),
      authCode: null,
      clearingBatchDate: isoDate(at),
    }),
  void: (p, at) => message(p, at, { messageId: messageId("void", p.id), messageType: "REVERSAL", authCode: null }),
  expiry: (p, amount, at) => message(p, at, { messageId: messageId("expiry", p.id), messageType: "AUTHORIZATION_EXPIRY", transactionAmount: amount }),
  clearingDue: (_purchaseId, authorizedAt) => nextBatch(new Date(authorizedAt.getTime() + 48 * HOUR_MS)),
  networkStatus: (m) => (m.mids.mcLocationId ? "SUCCEED" : "MID-NOT-ASSIGNED"),
  lookupEntries: (p, _cleared, matchScore) => [
    {
      ...baseEntry(p, matchScore, mastercard.networkStatus(p.merchant), ids(p.id).transactionId),
      mcLocationId: p.merchant.mids.mcLocationId,
      mcAcquiringMid: p.merchant.mids.mcAcquiringMid,
    },
  ],
};
