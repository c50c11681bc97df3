// Parse and normalise: checks a scheme's native message field by field and maps it to the neutral
// NetworkTransaction. A message that fails gets a reason naming the field, for the dead-letter topic.
import { z } from "zod";
import type { AmexTransaction, MastercardTransaction, NativeTransaction, Scheme, VisaTransaction } from "../../platform/bus/messages.ts";
import { amexTransactionSchema, mastercardTransactionSchema, visaTransactionSchema } from "../../platform/bus/validators.generated.ts";
import { describeZodError } from "../../domain/field-errors.ts";
import { currencyCode, digits, localDateTime, nonEmpty, uuid, withFieldRules, type FieldRules } from "../../domain/field-rules.ts";
import type { NetworkTransaction, Normalised, Stage } from "../../services/transactions/index.ts";
import { clearingKeyOf } from "../../domain/transaction-id.ts";

// The structure (fields, types, message types, targeting tags, null) is the schemas'; these are the rules
// beyond it, for the fields every scheme's message has and then each scheme's own.
const common = {
  messageId: nonEmpty,
  cardFirstSix: digits(6),
  cardLastFour: digits(4),
  currencyCode,
  processedAt: nonEmpty,
  wallet: nonEmpty,
} satisfies FieldRules<NativeTransaction>;

const visa = withFieldRules(visaTransactionSchema, {
  ...common,
  transactionId: nonEmpty,
  originalTransactionId: nonEmpty,
  cardId: uuid,
  transactionDateTime: localDateTime,
  authCode: nonEmpty,
  merchant: { vmid: nonEmpty, vsid: nonEmpty, caid: nonEmpty, acquirerBin: digits(6) },
  acquirerReferenceNumber: digits(23),
  billingCurrencyCode: currencyCode,
});

const mastercard = withFieldRules(mastercardTransactionSchema, {
  ...common,
  refNumber: nonEmpty,
  originalRefNumber: nonEmpty,
  transactionSequenceNumber: nonEmpty,
  cardReference: uuid,
  transactionLocalDateTime: localDateTime,
  authCode: nonEmpty,
  merchant: { locationId: nonEmpty, acquiringMid: nonEmpty },
  cardholderBillingCurrencyCode: currencyCode,
});

const amex = withFieldRules(amexTransactionSchema, {
  ...common,
  transactionId: nonEmpty,
  originalTransactionId: nonEmpty,
  cardToken: uuid,
  transactionDateTime: localDateTime,
  approvalCode: nonEmpty,
  merchant: { seNumber: digits(10) },
  rocId: nonEmpty,
  cardmemberBillingCurrencyCode: currencyCode,
});

const noIds = {
  MID: null,
  mastercardTransactionSequenceNumber: null,
  mastercardRefNumber: null,
  amexApprovalCode: null,
  visaAuthCode: null,
  mastercardAuthCode: null,
};
const noMerchant = { vmid: null, vsid: null, visaAcquiringMid: null, visaBin: null, mcLocationId: null, mcAcquiringMid: null, seNumber: null };

function fromVisa(m: VisaTransaction): NetworkTransaction {
  const stage: Stage = ({ AUTH: "auth", INCREMENTAL_AUTH: "increment", SETTLEMENT: "clearing", REFUND: "refund", VOID: "void", AUTH_EXPIRY: "expiry" } as const)[
    m.messageType
  ];
  return {
    ...shared(m, "visa", stage),
    clearingKey: stage === "clearing" ? clearingKeyOf({ messageId: m.messageId, sequenceNumber: null, reference: m.acquirerReferenceNumber }) : null,
    purchaseKey: m.transactionId,
    originalKey: m.originalTransactionId,
    cardId: m.cardId,
    amount: m.amount,
    localDateTime: m.transactionDateTime,
    merchant: { ...noMerchant, vmid: m.merchant.vmid, vsid: m.merchant.vsid, visaAcquiringMid: m.merchant.caid, visaBin: m.merchant.acquirerBin },
    identifiers: { ...noIds, MID: m.merchant.caid, visaAuthCode: m.authCode },
  };
}

function fromMastercard(m: MastercardTransaction): NetworkTransaction {
  const stage: Stage = (
    {
      AUTHORIZATION: "auth",
      INCREMENTAL_AUTHORIZATION: "increment",
      CLEARING: "clearing",
      REFUND: "refund",
      REVERSAL: "void",
      AUTHORIZATION_EXPIRY: "expiry",
    } as const
  )[m.messageType];
  return {
    ...shared(m, "mastercard", stage),
    clearingKey: stage === "clearing" ? clearingKeyOf({ messageId: m.messageId, sequenceNumber: m.transactionSequenceNumber }) : null,
    purchaseKey: m.refNumber,
    originalKey: m.originalRefNumber,
    cardId: m.cardReference,
    amount: m.transactionAmount,
    localDateTime: m.transactionLocalDateTime,
    merchant: { ...noMerchant, mcLocationId: m.merchant.locationId, mcAcquiringMid: m.merchant.acquiringMid },
    identifiers: {
      ...noIds,
      MID: m.merchant.acquiringMid,
      mastercardRefNumber: m.refNumber,
      mastercardTransactionSequenceNumber: m.transactionSequenceNumber,
      mastercardAuthCode: m.authCode,
    },
  };
}

function fromAmex(m: AmexTransaction): NetworkTransaction {
  const stage: Stage = ({ AUTH: "auth", INCREMENTAL_AUTH: "increment", SUBMISSION: "clearing", CREDIT: "refund", REVERSAL: "void", AUTH_EXPIRY: "expiry" } as const)[
    m.messageType
  ];
  return {
    ...shared(m, "amex", stage),
    clearingKey: stage === "clearing" ? clearingKeyOf({ messageId: m.messageId, sequenceNumber: null, reference: m.rocId }) : null,
    purchaseKey: m.transactionId,
    originalKey: m.originalTransactionId,
    cardId: m.cardToken,
    amount: m.amount,
    localDateTime: m.transactionDateTime,
    merchant: { ...noMerchant, seNumber: m.merchant.seNumber },
    identifiers: { ...noIds, MID: m.merchant.seNumber, amexApprovalCode: m.approvalCode },
  };
}

function shared(m: NativeTransaction, scheme: Scheme, stage: Stage) {
  return {
    scheme,
    stage,
    messageId: m.messageId,
    cardFirstSix: m.cardFirstSix,
    cardLastFour: m.cardLastFour,
    currency: m.currencyCode,
    cardPresent: m.cardPresent,
    wallet: m.wallet,
    targetingTag: m.targetingTag,
  };
}

const parsers = {
  visa: (v: unknown) => fromVisa(visa.parse(v)),
  mastercard: (v: unknown) => fromMastercard(mastercard.parse(v)),
  amex: (v: unknown) => fromAmex(amex.parse(v)),
};

export function normalise(scheme: Scheme, value: unknown): Normalised {
  try {
    const tx = parsers[scheme](value);
    if (tx.stage === "refund" && tx.amount > 0) return { ok: false, reason: "amount: a refund must be negative" };
    if (tx.stage !== "refund" && tx.amount < 0) return { ok: false, reason: "amount: only a refund may be negative" };
    return { ok: true, value: tx };
  } catch (err) {
    if (err instanceof z.ZodError) return { ok: false, reason: describeZodError(err, "value") };
    throw err;
  }
}
