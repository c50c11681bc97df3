// The Visa network's message shapes: auth and settlement carrying vmid, vsid, CAID (acquiring MID),
// acquirer BIN, auth code and the card-present flag; refunds (negative) and voids.
import type { VisaTransaction } from "../../src/platform/bus/messages.ts";
import { transactionTopic } from "../../src/platform/bus/topics.ts";
import { localAt } from "../../src/domain/local-dates.ts";
import { MID_FORMATS } from "../../src/domain/mid-formats.ts";
import { clearingKeyOf } from "../../src/domain/transaction-id.ts";
import { alphanumeric, derivedRandom, digits } from "../engine/random.ts";
import { baseEntry, clearingDelayMs, descriptor, isoDate, type SchemeAdapter } from "../engine/scheme.ts";
import { emptyMids, type MessageKind, type Purchase } from "../engine/types.ts";

const ids = (purchaseId: string) => {
  const random = derivedRandom("visa", purchaseId);
  return { transactionId: digits(random, 15), authCode: alphanumeric(random, 6) };
};

const SUFFIX = { auth: "A", clearing: "S", refund: "R", void: "V" } as const;
const messageId = (kind: MessageKind, id: string) => `${ids(id).transactionId}-${SUFFIX[kind]}`;

function message(p: Purchase, at: Date, fields: Partial<VisaTransaction> & Pick<VisaTransaction, "messageType" | "messageId">): VisaTransaction {
  const m = p.merchant;
  return {
    transactionId: ids(p.id).transactionId,
    originalTransactionId: null,
    cardId: p.card.id,
    cardFirstSix: p.card.firstSix,
    cardLastFour: p.card.lastFour,
    amount: p.amount,
    currencyCode: p.currency,
    transactionDateTime: p.localDateTime,
    processedAt: at.toISOString(),
    authCode: ids(p.id).authCode,
    cardPresent: p.cardPresent,
    wallet: p.wallet,
    merchant: {
      vmid: m.mids.vmid,
      vsid: m.mids.vsid,
      caid: m.mids.visaAcquiringMid ?? "",
      acquirerBin: m.mids.visaBin ?? "",
      name: m.name,
      city: m.city,
      postcode: m.postcode,
      countryCode: m.countryCode,
      mcc: m.mcc,
    },
    settlementDate: null,
    targetingTag: p.targetingTag,
    ...fields,
  };
}

export const visa: SchemeAdapter = {
  scheme: "visa",
  topic: transactionTopic("visa"),
  lookupWindowDays: 90,
  cardPrefix: (random) => ({ firstSix: "444400", lastFour: `4${digits(random, 3)}` }),
  assignMids(random, merchantName, assigned) {
    return {
      ...emptyMids(),
      visaAcquiringMid: digits(random, 15),
      visaBin: `4${digits(random, 5)}`,
      vmid: assigned ? digits(random, 8) : null,
      vsid: assigned ? digits(random, 7 + Math.floor(random() * 2)) : null,
      merchantName,
    };
  },
  validMids: (m) =>
    MID_FORMATS.visaAcquiringMid.pattern.test(m.visaAcquiringMid ?? "") &&
    MID_FORMATS.visaBin.pattern.test(m.visaBin ?? "") &&
    (m.vmid === null || MID_FORMATS.vmid.pattern.test(m.vmid)) &&
    (m.vsid === null || MID_FORMATS.vsid.pattern.test(m.vsid)),
  ids,
  messageId,
  auth: (p, at) => message(p, at, { messageId: messageId("auth", p.id), messageType: "AUTH" }),
  clearing: (p, at, part) =>
    message(p, at, {
      messageId: messageId("clearing", part?.clearingId ?? p.id),
      messageType: "SETTLEMENT",
      settlementDate: isoDate(at),
      ...(part ? { amount: part.amount } : {}),
    }),
  clearingKey: (clearingId) => clearingKeyOf({ messageId: messageId("clearing", clearingId), sequenceNumber: null }),
  refund: (p, refundId, amount, at, referenced = true) =>
    message(p, at, {
      messageId: messageId("refund", refundId),
      // A refund happens when it happens: its own local time, not the purchase's.
      transactionDateTime: localAt(at, p.merchant.timezone),
      messageType: "REFUND",
      transactionId: ids(refundId).transactionId,
      originalTransactionId: referenced ? ids(p.id).transactionId : null,
      amount: -Math.abs(amount),
      authCode: null,
      settlementDate: isoDate(at),
    }),
  void: (p, at) => message(p, at, { messageId: messageId("void", p.id), messageType: "VOID", authCode: null }),
  clearingDue: (purchaseId, authorizedAt) =>
    new Date(authorizedAt.getTime() + clearingDelayMs(derivedRandom("visa-clearing", purchaseId))),
  networkStatus: (m) => (m.mids.vmid && m.mids.vsid ? "SUCCEED" : "MID-NOT-ASSIGNED"),
  lookupEntries(p, cleared, matchScore) {
    const status = visa.networkStatus(p.merchant);
    const entry = (type: "authorization" | "settlement") => ({
      ...baseEntry(p, matchScore, status, ids(p.id).transactionId),
      type,
      vmid: p.merchant.mids.vmid,
      vsid: p.merchant.mids.vsid,
      visaStoreName: descriptor(p.merchant.name, p.merchant.city),
      visaAcquiringMid: p.merchant.mids.visaAcquiringMid,
      visaBin: p.merchant.mids.visaBin,
    });
    return cleared ? [entry("settlement"), entry("authorization")] : [entry("authorization")];
  },
};
