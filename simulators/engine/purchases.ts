// A network's purchases, step by step within a batch: a purchase made (from a command or in traffic) with
// the follow-ups it plans, and each follow-up as a command or due work carries it out (clear, increment,
// expire, a clearing sent again, void, refund). Each step sends its messages and records its change.
import { countryByAlpha3 } from "../../src/domain/countries.ts";
import { localAt } from "../../src/domain/local-dates.ts";
import { roundMoney } from "../../src/domain/money.ts";
import { DAY_MS } from "../../src/domain/time-units.ts";
import type { SimulatorCommand } from "../../src/platform/bus/messages.ts";
import { AUTH_EXPIRY_DAYS, clearingOf, expiresAt, expiryOf, incrementOf, refundOf, voidRefusal } from "../../src/domain/purchase-follow-ups.ts";
import { messageExists, standingOf, type Due, type MessageWrite, type PurchaseWrite } from "./store.ts";
import { expiryDue, purchaseOf, purchaseOrReject, recordWrite, rejected, send, update, type Batch, type Network } from "./batch.ts";
import { merchantForLocation } from "./merchants.ts";
import type { ClearingPart } from "./scheme.ts";
import type { Plan, Purchase } from "./types.ts";

export async function purchaseFromCommand(net: Network, b: Batch, c: SimulatorCommand, environment: string, now: Date): Promise<void> {
  if (await purchaseOf(net, b, c.purchaseId)) return; // a redelivered command
  const location = c.location!;
  // What the network already holds wins: a test purchase at a location it has not onboarded carries
  // no vmid/vsid (Visa) or location id (Mastercard), exactly like network traffic there.
  const merchant = await merchantForLocation(net, b, { ...location, brandName: location.name }, { assigned: true, environment, now }, location.mids);
  const currency = c.currency ?? countryByAlpha3(location.countryCode)?.currency ?? "USD";
  const purchase: Purchase = {
    id: c.purchaseId,
    scheme: net.scheme,
    card: c.card!,
    merchant,
    amount: roundMoney(c.amount!, currency),
    currency,
    localDateTime: c.datetime ?? localAt(now, merchant.timezone),
    authorizedAt: now.toISOString(),
    cardPresent: c.cardPresent ?? true,
    wallet: c.wallet,
    targetingTag: c.targetingTag,
    billingCurrency: c.card!.billingCurrency,
    authExpiryDays: c.authExpiryDays ?? AUTH_EXPIRY_DAYS,
  };
  const plan: Plan = c.withoutAuth ? { outcome: "clear", withoutAuth: true } : c.autoClear === false ? { outcome: "expire" } : { outcome: "clear" };
  authorize(net, b, purchase, plan, null, environment, now);
}

/**
 * Publishes a new purchase's auth (after its clearing, under that fault; or its clearing alone, when it has
 * no authorisation) and plans what follows, at its environment's `now` (scheduleOf).
 */
export function authorize(net: Network, b: Batch, purchase: Purchase, plan: Plan, runId: string | null, environment: string, now: Date): void {
  const messages: MessageWrite[] = [];
  const clear = plan.outcome === "clear" ? plan : null;
  const withoutAuth = clear?.withoutAuth ?? false;
  // Under the fault, the whole amount clears before the auth (a purchase cleared in parts or incremented clears later).
  const early =
    plan.outcome !== "void" && plan.outcome !== "expire" && !clear?.clearings && !withoutAuth && !clear?.increment && net.dice.roll(net.faults.clearingBeforeAuthRate);
  // A clearing with no authorisation goes out at once when a command asks for it (a test purchase); in traffic, when the network clears (in Mastercard's batch).
  const cleared = early || (withoutAuth && runId === null);
  if (cleared) messages.push(send(net, b, "clearing", net.adapter.clearing(purchase, now, undefined, { withoutAuth }), now));
  if (!withoutAuth) messages.push(send(net, b, "auth", net.adapter.auth(purchase, now), now));
  const clearingAt = cleared ? now : net.adapter.clearingDue(purchase.id, now);
  recordWrite(b, {
    purchase,
    nativeId: net.adapter.ids(purchase.id).transactionId,
    runId,
    environment,
    created: true,
    state: cleared ? "cleared" : "authorized",
    cleared: cleared ? purchase.amount : 0,
    messages,
    schedule: scheduleOf(purchase, plan, { cleared, clearingAt, now }),
    cancel: [],
  });
}

/**
 * What a new purchase plans, cleared at once or to clear at `clearingAt`: its clearing (in parts, maybe, or
 * above it by a tip), void or refund, an increment of its authorisation, a clearing sent again — or, for an
 * authorisation the network does not clear (or would clear only after it expires), its expiry.
 */
function scheduleOf(purchase: Purchase, plan: Plan, { cleared, clearingAt, now }: { cleared: boolean; clearingAt: Date; now: Date }): Due[] {
  const clear = plan.outcome === "clear" ? plan : null;
  const parts = clear?.clearings ?? null;
  const withoutAuth = clear?.withoutAuth ?? false;
  const id = purchase.id;
  const expiry = expiresAt(now, purchase.authExpiryDays);
  // An authorisation the network does not clear, or would clear only after it expired, expires instead.
  const expires = !cleared && !withoutAuth && plan.outcome !== "void" && (plan.outcome === "expire" || expiry < clearingAt);
  const schedule: Due[] = [];
  if (expires) schedule.push(expiryDue(id, expiry));
  else if (parts) {
    schedule.push(...plannedClearings(id, clearingAt, parts));
    // What its clearings leave of it (a part that never clears) expires in its time.
    if (roundMoney(parts.reduce((sum, part) => sum + part, 0), purchase.currency) < purchase.amount) schedule.push(expiryDue(id, expiry));
  }
  else if (!cleared && plan.outcome !== "void") {
    schedule.push({ id: `clearing:${id}`, kind: "clearing", dueAt: clearingAt, payload: { purchaseId: id, ...(withoutAuth ? { withoutAuth } : {}) } });
  }
  if (clear?.increment && !expires) {
    const { amount, afterMs } = clear.increment;
    schedule.push({ id: `increment:${id}`, kind: "increment", dueAt: new Date(now.getTime() + afterMs), payload: { purchaseId: id, incrementId: `${id}:increment`, amount } });
  }
  if (clear?.duplicate && !expires) {
    // The first clearing again, a day after it.
    const first = parts ? { clearingId: `${id}:clearing:0`, amount: parts[0]! } : null;
    schedule.push({ id: `resend:${id}`, kind: "resend", dueAt: new Date(clearingAt.getTime() + DAY_MS), payload: { purchaseId: id, part: first, withoutAuth } });
  }
  if (plan.outcome === "void") {
    schedule.push({ id: `void:${id}`, kind: "void", dueAt: new Date(now.getTime() + plan.afterMs), payload: { purchaseId: id } });
  }
  if (plan.outcome === "refund") {
    const refundId = `${id}:refund`;
    schedule.push({
      id: `refund:${refundId}`,
      kind: "refund",
      dueAt: new Date(clearingAt.getTime() + plan.afterClearingMs),
      payload: { purchaseId: id, refundId, amount: plan.amount, referenced: plan.referenced },
    });
  }
  return schedule;
}

/**
 * A purchase's planned clearings of parts of it, a day apart from its clearing time, each due under its own
 * id (the first under the scheduled clearing's) and made under its own clearing id.
 */
export function plannedClearings(purchaseId: string, clearingAt: Date, parts: number[]): PurchaseWrite["schedule"] {
  return parts.map((amount, n) => ({
    id: n === 0 ? `clearing:${purchaseId}` : `clearing:${purchaseId}:${n}`,
    kind: "clearing" as const,
    dueAt: new Date(clearingAt.getTime() + n * DAY_MS),
    payload: { purchaseId, amount, clearingId: `${purchaseId}:clearing:${n}` },
  }));
}

/**
 * Clears `amount` of an authorised purchase (what is left when null) now: a test transaction's clear, or a
 * clearing falling due. The whole amount at once is the purchase's one clearing; anything else is one
 * clearing of part of it, under `clearingId` (a command's id, a planned clearing's), or, without one, an
 * id from what was cleared before. `takeOver`: the network's scheduled clearing is not sent any more.
 */
export async function clear(
  net: Network,
  b: Batch,
  ref: string,
  amount: number | null,
  clearingId: string | null,
  at: Date,
  { takeOver = false, duplicate = false, withoutAuth = false }: { takeOver?: boolean; duplicate?: boolean; withoutAuth?: boolean } = {},
): Promise<void> {
  const record = await purchaseOrReject(net, b, ref);
  // Cleared in full already, or voided (the API refuses that): nothing to send.
  if (record.state !== "authorized") return;
  const decided = clearingOf(standingOf(record), amount);
  if ("done" in decided) return;
  if ("refusal" in decided) throw rejected(ref, decided.refusal);
  const id = record.purchase.id;
  const part = decided.whole ? undefined : { clearingId: clearingId ?? `${id}:clearing:${record.cleared}`, amount: decided.amount };
  if (part) {
    // A redelivered command: its clearing went out already.
    const messageId = net.adapter.messageId("clearing", part.clearingId);
    if (b.messageIds.has(messageId) || (await messageExists(net.deps.db, messageId))) return;
  }
  const messages = [send(net, b, "clearing", net.adapter.clearing(record.purchase, at, part, { withoutAuth }), at)];
  // Asked to, the network sends the same clearing again: its own message id, the clearing's reference.
  if (duplicate) messages.push(send(net, b, "clearing", net.adapter.clearing(record.purchase, at, part, { resent: true }), at));
  // What a clearing taken over leaves uncleared expires in its time, as an authorisation the network does not clear.
  const leftUncleared = !decided.last && takeOver;
  recordWrite(
    b,
    update(net, record, {
      state: decided.last ? "cleared" : "authorized",
      cleared: roundMoney(record.cleared + decided.amount, record.purchase.currency),
      messages,
      schedule: leftUncleared ? [expiryDue(id, expiresAt(new Date(record.purchase.authorizedAt), record.purchase.authExpiryDays))] : [],
      cancel: decided.last ? [`clearing:${id}`, `expiry:${id}`] : takeOver ? [`clearing:${id}`] : [],
    }),
  );
}

/** An incremental authorisation of `amount` with its own id (a command's, a planned one's), so a redelivery increments once. */
export async function increment(net: Network, b: Batch, ref: string, incrementId: string, amount: number, at: Date): Promise<void> {
  const record = await purchaseOrReject(net, b, ref);
  const messageId = net.adapter.messageId("increment", incrementId);
  if (b.messageIds.has(messageId) || (await messageExists(net.deps.db, messageId))) return;
  const decided = incrementOf(standingOf(record), amount);
  if ("refusal" in decided) throw rejected(ref, decided.refusal);
  const message = send(net, b, "increment", net.adapter.increment(record.purchase, incrementId, decided.amount, at), at);
  recordWrite(b, update(net, record, { purchase: { ...record.purchase, amount: decided.total }, messages: [message] }));
}

/** The network withdraws what is left uncleared of an authorisation (its expiry fell due, or a command asks for it now). */
export async function expire(net: Network, b: Batch, ref: string, at: Date): Promise<void> {
  const record = await purchaseOrReject(net, b, ref);
  if (record.state === "expired") return; // a redelivered command
  const decided = expiryOf(standingOf(record));
  if ("refusal" in decided) throw rejected(ref, decided.refusal);
  const id = record.purchase.id;
  const message = send(net, b, "expiry", net.adapter.expiry(record.purchase, decided.amount, at), at);
  recordWrite(b, update(net, record, { state: "expired", messages: [message], cancel: [`clearing:${id}`, `expiry:${id}`, `increment:${id}`] }));
}

/** A clearing the network sends again (a day after it, as planned): its own message id, the clearing's reference. */
export async function resend(net: Network, b: Batch, ref: string, part: ClearingPart | null, withoutAuth: boolean, at: Date): Promise<void> {
  const record = await purchaseOrReject(net, b, ref);
  if (record.cleared <= 0) return; // it never cleared (voided or expired first): nothing to send again
  const message = send(net, b, "clearing", net.adapter.clearing(record.purchase, at, part ?? undefined, { resent: true, withoutAuth }), at);
  recordWrite(b, update(net, record, { messages: [message] }));
}

export async function voidPurchase(net: Network, b: Batch, ref: string, at: Date): Promise<void> {
  const record = await purchaseOrReject(net, b, ref);
  if (record.state === "voided") return;
  const refusal = voidRefusal(record);
  if (refusal) throw rejected(ref, refusal);
  const message = send(net, b, "void", net.adapter.void(record.purchase, at), at);
  const id = record.purchase.id;
  recordWrite(b, update(net, record, { state: "voided", messages: [message], cancel: [`clearing:${id}`, `expiry:${id}`, `increment:${id}`] }));
}

/**
 * A refund of `amount` (default: what is left) with its own id, so a redelivery refunds once;
 * `referenced` false sends it without naming the purchase, as networks often do.
 */
export async function refund(net: Network, b: Batch, ref: string, refundId: string, amount: number | null, at: Date, referenced = true): Promise<void> {
  const record = await purchaseOrReject(net, b, ref);
  const messageId = net.adapter.messageId("refund", refundId);
  if (b.messageIds.has(messageId) || (await messageExists(net.deps.db, messageId))) return;
  const decided = refundOf(standingOf(record), amount);
  if ("refusal" in decided) throw rejected(ref, decided.refusal);
  const refund = decided.amount;
  const message = send(net, b, "refund", net.adapter.refund(record.purchase, refundId, refund, at, referenced), at);
  recordWrite(b, update(net, record, { refunded: record.refunded + refund, messages: [message] }));
}

