// The Visa network's message shapes: auth, incremental auth and settlement carrying vmid, vsid, CAID
// (acquiring MID), acquirer BIN, auth code and the card-present flag; the settlement's acquirer reference
// number; refunds (negative), voids and the auth's expiry; the cardholder's billed amount when converted.
import type { VisaTransaction } from "../../src/platform/bus/messages.ts";
import { transactionTopic } from "../../src/platform/bus/topics.ts";
import { MID_FORMATS } from "../../src/domain/mid-formats.ts";
import { luhnCheckDigit } from "../../src/domain/luhn.ts";
import { alphanumeric, derivedRandom, digits } from "../engine/random.ts";
import { billed } from "../engine/fx.ts";
import { baseEntry, clearingDelayMs, descriptor, idAndCodeMessages, type SchemeAdapter } from "../engine/scheme.ts";
import { emptyMids, type MessageKind, type Purchase } from "../engine/types.ts";

const ids = (purchaseId: string) => {
  const random = derivedRandom("visa", purchaseId);
  return { transactionId: digits(random, 15), authCode: alphanumeric(random, 6) };
};

const SUFFIX = { auth: "A", increment: "I", clearing: "S", refund: "R", void: "V", expiry: "X" } as const;
const messageId = (kind: MessageKind, id: string) => `${ids(id).transactionId}-${SUFFIX[kind]}`;

/** A settlement's acquirer reference number: 23 digits, format code 7, a Luhn check digit last; the same for the same clearing. */
export const acquirerReferenceNumber = (clearingId: string) => {
  const payload = `7${digits(derivedRandom("visa-arn", clearingId), 21)}`;
  return payload + luhnCheckDigit(payload);
};

function message(p: Purchase, at: Date, fields: Partial<VisaTransaction> & Pick<VisaTransaction, "messageType" | "messageId">): VisaTransaction {
  const m = p.merchant;
  const value: VisaTransaction = {
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
    acquirerReferenceNumber: null,
    billingAmount: null,
    billingCurrencyCode: null,
    conversionRate: null,
    ...fields,
  };
  const converted = billed(value.amount, value.currencyCode, p.billingCurrency, at);
  return converted ? { ...value, billingAmount: converted.amount, billingCurrencyCode: converted.currency, conversionRate: converted.rate } : value;
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
  ...idAndCodeMessages<VisaTransaction>(message, ids, messageId, {
    types: { increment: "INCREMENTAL_AUTH", clearing: "SETTLEMENT", refund: "REFUND", void: "VOID", expiry: "AUTH_EXPIRY" },
    settledOn: "settlementDate",
    code: "authCode",
    reference: "acquirerReferenceNumber",
    referenceOf: acquirerReferenceNumber,
  }),
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
