// The commands the simulator control sends a scheme's network (simulator.commands.<scheme>) and the receipts it
// answers with: pure, from the purchase's id, since every message a network publishes for a purchase (and
// each step of it) derives its ids from that id or the step's command id (simulators/schemes).
import type { MerchantIds, SimulatorCommand } from "../../platform/bus/messages.ts";
import { ADAPTERS } from "../../../simulators/schemes/index.ts";
import { emptyMids, type MessageKind, type Scheme } from "../../../simulators/engine/types.ts";

export interface PurchaseInput {
  scheme: Scheme;
  /** `billingCurrency`: what the card is billed in, when the network is to convert (a purchase abroad). */
  card: { id: string; firstSix: string; lastFour: string; billingCurrency?: string | null };
  location: {
    id: string;
    /** The brand's name: what the network calls the merchant. */
    name: string;
    address: string;
    city: string;
    postcode: string;
    countryCode: string;
    timezone?: string | null;
    /** The location's MIDs for this scheme that the service knows, if any. */
    mids?: Partial<MerchantIds>[];
  };
  amount: number;
  currency?: string;
  /** Local to the location, YYYY-MM-DDThh:mm:ss; the network's now when absent. */
  datetime?: string;
  cardPresent?: boolean;
  wallet?: string | null;
  targetingTag?: SimulatorCommand["targetingTag"];
  /** The network clears it with no authorisation first (offline, force-posted); the clearing goes out at once. */
  withoutAuth?: boolean;
  /** false: the network does not clear it (it stays authorised until cleared by request, or it expires). */
  autoClear?: boolean;
  /** Days the authorisation lasts uncleared before the network withdraws it (AUTH_EXPIRY_DAYS when absent). */
  authExpiryDays?: number;
  /** Choose it to make the call idempotent; a new one otherwise. */
  purchaseId?: string;
  /** The sandbox the card is in (its account id); null or absent for an account's own environments. */
  environment?: string | null;
}

/** A purchase (or a step of it) as the network will identify it in the messages it publishes. */
export interface PurchaseReceipt {
  purchaseId: string;
  scheme: Scheme;
  /** Visa/Amex transaction id, Mastercard reference number: of the purchase, or of the refund. */
  transactionId: string;
  /** The auth code (Amex approval code) of the purchase. */
  authCode: string;
  /** The id of the message this step publishes (for a clear, when it clears the whole amount at once). */
  messageId: string;
  /**
   * For a clear that turns out to be a clearing of part of the purchase (or of what is left after one): what
   * tells that clearing from the purchase's others (src/domain/transaction-id.ts clearingTransactionIdFor).
   */
  clearingKey?: string;
}

export interface PurchaseRef {
  scheme: Scheme;
  cardId: string;
  /** The purchase's id, from its receipt. */
  purchaseId: string;
  /** The sandbox the purchase is in; null or absent for an account's own environments. */
  environment?: string | null;
}

/** A step after the purchase, as its command names it. */
export type StepAction = "CLEAR" | "VOID" | "REFUND" | "INCREMENT" | "EXPIRE";

function command(scheme: Scheme, action: SimulatorCommand["action"], purchaseId: string, commandId: string, environment: string | null, issuedAt: Date): SimulatorCommand {
  return {
    commandId,
    scheme,
    action,
    purchaseId,
    card: null,
    location: null,
    amount: null,
    currency: null,
    datetime: null,
    cardPresent: null,
    wallet: null,
    targetingTag: null,
    withoutAuth: null,
    autoClear: null,
    authExpiryDays: null,
    duplicate: null,
    issuedAt: issuedAt.toISOString(),
    environment,
  };
}

/** The command that makes a purchase on its scheme's network. */
export function purchaseCommand(input: PurchaseInput, purchaseId: string, commandId: string, issuedAt: Date): SimulatorCommand {
  return {
    ...command(input.scheme, "PURCHASE", purchaseId, commandId, input.environment ?? null, issuedAt),
    card: { id: input.card.id, firstSix: input.card.firstSix, lastFour: input.card.lastFour, billingCurrency: input.card.billingCurrency ?? null },
    location: {
      id: input.location.id,
      name: input.location.name,
      address: input.location.address,
      city: input.location.city,
      postcode: input.location.postcode,
      countryCode: input.location.countryCode,
      timezone: input.location.timezone ?? null,
      mids: (input.location.mids ?? []).map((m) => ({ ...emptyMids(), ...m })),
    },
    amount: input.amount,
    currency: input.currency ?? null,
    datetime: input.datetime ?? null,
    cardPresent: input.cardPresent ?? null,
    wallet: input.wallet ?? null,
    targetingTag: input.targetingTag ?? null,
    withoutAuth: input.withoutAuth ?? null,
    autoClear: input.autoClear ?? null,
    authExpiryDays: input.authExpiryDays ?? null,
  };
}

/** The command of a step after the purchase, named by the purchase's id. */
export function stepCommand(ref: PurchaseRef, action: StepAction, commandId: string, issuedAt: Date, amount?: number, duplicate?: boolean): SimulatorCommand {
  return { ...command(ref.scheme, action, ref.purchaseId, commandId, ref.environment ?? null, issuedAt), amount: amount ?? null, duplicate: duplicate ?? null };
}

function receipt(scheme: Scheme, purchaseId: string, transactionId: string, messageId: string): PurchaseReceipt {
  return { purchaseId, scheme, transactionId, authCode: ADAPTERS[scheme].ids(purchaseId).authCode, messageId };
}

/** A purchase's receipt, known before anything is sent: its first message is the auth, or the clearing of one without. */
export function purchaseReceipt(scheme: Scheme, purchaseId: string, first: Extract<MessageKind, "auth" | "clearing">): PurchaseReceipt {
  return receipt(scheme, purchaseId, ADAPTERS[scheme].ids(purchaseId).transactionId, ADAPTERS[scheme].messageId(first, purchaseId));
}

/** A step's receipt: a refund and an increment are messages of their own command; the others the purchase's. */
export function stepReceipt(ref: PurchaseRef, action: StepAction, commandId: string): PurchaseReceipt {
  const adapter = ADAPTERS[ref.scheme];
  if (action === "REFUND") return receipt(ref.scheme, ref.purchaseId, adapter.ids(commandId).transactionId, adapter.messageId("refund", commandId));
  if (action === "INCREMENT") return receipt(ref.scheme, ref.purchaseId, adapter.ids(ref.purchaseId).transactionId, adapter.messageId("increment", commandId));
  const kind = action === "CLEAR" ? "clearing" : action === "EXPIRE" ? "expiry" : "void";
  const made = receipt(ref.scheme, ref.purchaseId, adapter.ids(ref.purchaseId).transactionId, adapter.messageId(kind, ref.purchaseId));
  // A clearing of part of the purchase is made under the command's id (simulators/engine/purchases.ts clear).
  return action === "CLEAR" ? { ...made, clearingKey: adapter.clearingKey(commandId) } : made;
}
