// Parse and normalise: checks a scheme's native message field by field and maps it to the neutral
// NetworkTransaction. A message that fails gets a reason naming the field, for the dead-letter topic.
import { z } from "zod";
import type { AmexTransaction, MastercardTransaction, Scheme, VisaTransaction } from "../../bus/messages.ts";
import type { NetworkTransaction, Normalised, Stage } from "../../services/network-transaction.ts";

const localDateTime = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/, "must be YYYY-MM-DDThh:mm:ss");
const nullableString = z.string().min(1).nullable();
const common = {
  messageId: z.string().min(1),
  cardFirstSix: z.string().regex(/^\d{6}$/, "must be 6 digits"),
  cardLastFour: z.string().regex(/^\d{4}$/, "must be 4 digits"),
  currencyCode: z.string().regex(/^[A-Z]{3}$/, "must be an ISO 4217 code"),
  processedAt: z.string().min(1),
  cardPresent: z.boolean(),
  wallet: nullableString,
  targetingTag: z.enum(["new", "lapsed", "existing"]).nullable(),
};
const money = z.number().finite();

const visa = z.object({
  ...common,
  messageType: z.enum(["AUTH", "SETTLEMENT", "REFUND", "VOID"]),
  transactionId: z.string().min(1),
  originalTransactionId: nullableString,
  cardId: z.uuid(),
  amount: money,
  transactionDateTime: localDateTime,
  authCode: nullableString,
  merchant: z.object({ vmid: nullableString, vsid: nullableString, caid: z.string().min(1), acquirerBin: z.string().regex(/^\d{6}$/) }),
});

const mastercard = z.object({
  ...common,
  messageType: z.enum(["AUTHORIZATION", "CLEARING", "REFUND", "REVERSAL"]),
  refNumber: z.string().min(1),
  originalRefNumber: nullableString,
  transactionSequenceNumber: nullableString,
  cardReference: z.uuid(),
  transactionAmount: money,
  transactionLocalDateTime: localDateTime,
  authCode: nullableString,
  merchant: z.object({ locationId: nullableString, acquiringMid: z.string().min(1) }),
});

const amex = z.object({
  ...common,
  messageType: z.enum(["AUTH", "SUBMISSION", "CREDIT", "REVERSAL"]),
  transactionId: z.string().min(1),
  originalTransactionId: nullableString,
  cardToken: z.uuid(),
  amount: money,
  transactionDateTime: localDateTime,
  approvalCode: nullableString,
  merchant: z.object({ seNumber: z.string().regex(/^\d{10}$/, "must be 10 digits") }),
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
  const stage: Stage = ({ AUTH: "auth", SETTLEMENT: "clearing", REFUND: "refund", VOID: "void" } as const)[m.messageType];
  return {
    ...shared(m, "visa", stage),
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
  const stage: Stage = ({ AUTHORIZATION: "auth", CLEARING: "clearing", REFUND: "refund", REVERSAL: "void" } as const)[m.messageType];
  return {
    ...shared(m, "mastercard", stage),
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
  const stage: Stage = ({ AUTH: "auth", SUBMISSION: "clearing", CREDIT: "refund", REVERSAL: "void" } as const)[m.messageType];
  return {
    ...shared(m, "amex", stage),
    purchaseKey: m.transactionId,
    originalKey: m.originalTransactionId,
    cardId: m.cardToken,
    amount: m.amount,
    localDateTime: m.transactionDateTime,
    merchant: { ...noMerchant, seNumber: m.merchant.seNumber },
    identifiers: { ...noIds, MID: m.merchant.seNumber, amexApprovalCode: m.approvalCode },
  };
}

function shared(m: VisaTransaction | MastercardTransaction | AmexTransaction, scheme: Scheme, stage: Stage) {
  return {
    scheme,
    stage,
    messageId: m.messageId,
    cardFirstSix: m.cardFirstSix,
    cardLastFour: m.cardLastFour,
    currency: m.currencyCode,
    cardPresent: m.cardPresent,
    wallet: m.wallet,
    // Checked against the three segment names by the schemas above.
    targetingTag: m.targetingTag as NetworkTransaction["targetingTag"],
  };
}

const parsers = {
  visa: (v: unknown) => fromVisa(visa.parse(v) as VisaTransaction),
  mastercard: (v: unknown) => fromMastercard(mastercard.parse(v) as MastercardTransaction),
  amex: (v: unknown) => fromAmex(amex.parse(v) as AmexTransaction),
};

export function normalise(scheme: Scheme, value: unknown): Normalised {
  try {
    const tx = parsers[scheme](value);
    if (tx.stage === "refund" && tx.amount > 0) return { ok: false, reason: "amount: a refund must be negative" };
    if (tx.stage !== "refund" && tx.amount < 0) return { ok: false, reason: "amount: only a refund may be negative" };
    return { ok: true, value: tx };
  } catch (err) {
    if (err instanceof z.ZodError) {
      return { ok: false, reason: err.issues.map((i) => `${i.path.join(".") || "value"}: ${i.message}`).join("; ") };
    }
    throw err;
  }
}
