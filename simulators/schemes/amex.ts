// The Amex network's message shapes: auth, incremental auth and submission with the 10-digit SE number
// and the approval code; the submission's record of charge id; credits (refunds, negative), reversals
// (voids) and the auth's expiry; the Card Member's billed amount when converted.
import type { AmexTransaction } from "../../src/platform/bus/messages.ts";
import { transactionTopic } from "../../src/platform/bus/topics.ts";
import { MID_FORMATS } from "../../src/domain/mid-formats.ts";
import { alphanumeric, derivedRandom, digits } from "../engine/random.ts";
import { billed } from "../engine/fx.ts";
import { baseEntry, clearingDelayMs, idAndCodeMessages, type SchemeAdapter } from "../engine/scheme.ts";
import { emptyMids, type MessageKind, type Purchase } from "../engine/types.ts";

const ids = (purchaseId: string) => {
  const random = derivedRandom("amex", purchaseId);
  return { transactionId: digits(random, 15), authCode: digits(random, 6) };
};

const SUFFIX = { auth: "AUTH", increment: "INC", clearing: "SUB", refund: "CR", void: "REV", expiry: "EXP" } as const;
const messageId = (kind: MessageKind, id: string) => `${ids(id).transactionId}-${SUFFIX[kind]}`;

/** A submission's record of charge id: 12 characters, the same for the same clearing. */
export const rocId = (clearingId: string) => alphanumeric(derivedRandom("amex-roc", clearingId), 12);

function message(p: Purchase, at: Date, fields: Partial<AmexTransaction> & Pick<AmexTransaction, "messageType" | "messageId">): AmexTransaction {
  const m = p.merchant;
  const value: AmexTransaction = {
    transactionId: ids(p.id).transactionId,
    originalTransactionId: null,
    cardToken: p.card.id,
    cardFirstSix: p.card.firstSix,
    cardLastFour: p.card.lastFour,
    amount: p.amount,
    currencyCode: p.currency,
    transactionDateTime: p.localDateTime,
    processedAt: at.toISOString(),
    approvalCode: ids(p.id).authCode,
    cardPresent: p.cardPresent,
    wallet: p.wallet,
    merchant: {
      seNumber: m.mids.seNumber ?? "",
      name: m.name,
      city: m.city,
      postcode: m.postcode,
      countryCode: m.countryCode,
      mcc: m.mcc,
    },
    submissionDate: null,
    targetingTag: p.targetingTag,
    rocId: null,
    cardmemberBillingAmount: null,
    cardmemberBillingCurrencyCode: null,
    conversionRate: null,
    ...fields,
  };
  const converted = billed(value.amount, value.currencyCode, p.billingCurrency, at);
  return converted
    ? { ...value, cardmemberBillingAmount: converted.amount, cardmemberBillingCurrencyCode: converted.currency, conversionRate: converted.rate }
    : value;
}

export const amex: SchemeAdapter = {
  scheme: "amex",
  topic: transactionTopic("amex"),
  lookupWindowDays: 30,
  cardPrefix: (random) => ({ firstSix: random() < 0.5 ? "340000" : "370000", lastFour: `03${digits(random, 2)}` }),
  // The SE number is the merchant's identity at Amex from the start: nothing waits for onboarding.
  assignMids: (random, merchantName) => ({ ...emptyMids(), seNumber: digits(random, 10), merchantName }),
  validMids: (m) => MID_FORMATS.seNumber.pattern.test(m.seNumber ?? ""),
  ids,
  messageId,
  ...idAndCodeMessages<AmexTransaction>(message, ids, messageId, {
    types: { increment: "INCREMENTAL_AUTH", clearing: "SUBMISSION", refund: "CREDIT", void: "REVERSAL", expiry: "AUTH_EXPIRY" },
    settledOn: "submissionDate",
    code: "approvalCode",
    reference: "rocId",
    referenceOf: rocId,
  }),
  clearingDue: (purchaseId, authorizedAt) =>
    new Date(authorizedAt.getTime() + clearingDelayMs(derivedRandom("amex-clearing", purchaseId))),
  networkStatus: () => "SUCCEED",
  lookupEntries: (p, _cleared, matchScore) => [
    { ...baseEntry(p, matchScore, "SUCCEED", ids(p.id).transactionId), seNumber: p.merchant.mids.seNumber },
  ],
};
