// A network's state as its parts share it, and the batch its steps build: what a step sends (through the
// operator's faults), records and reads ahead, the batch's one write once its messages are out, and the
// progress reports of the traffic runs the write touched. The parts (./purchases.ts, ./due.ts,
// ./onboarding.ts, ./traffic.ts) are functions over this state, as ./lookups.ts is.
import type { Logger } from "pino";
import type { Bus } from "../../src/platform/bus/bus.ts";
import { TOPICS } from "../../src/platform/bus/topics.ts";
import type { Clock } from "../../src/platform/clock/index.ts";
import type { Refusal } from "../../src/domain/purchase-follow-ups.ts";
import type { SimulatorDb as Db } from "./db.ts";
import { FaultDice, NO_FAULTS, type Faults } from "./faults.ts";
import { findMerchants, findPurchase, findPurchases, writeBatch, type Due, type MerchantWrite, type MessageWrite, type PurchaseRecord, type PurchaseWrite } from "./store.ts";
import { batchRows } from "./batch-rows.ts";
import { parseMessage } from "./requests.ts";
import type { SchemeAdapter } from "./scheme.ts";
import { environmentKey, readEnvironments, type EnvironmentState } from "./environments.ts";
import { runProgress } from "./settings.ts";
import type { Merchant, MessageKind, Scheme } from "./types.ts";

export interface NetworkDeps {
  db: Db;
  bus: Bus;
  clock: Clock;
  log: Logger;
  /** SIMULATOR_SEED: MIDs the network assigns and the fault draws follow it. */
  seed: number;
}

/** One network's state, which its parts take as the class once took `this`. */
export interface Network {
  readonly deps: NetworkDeps;
  readonly adapter: SchemeAdapter;
  readonly scheme: Scheme;
  readonly dice: FaultDice;
  /** Replaced by every refresh: read when used, never kept. */
  faults: Faults;
  readonly log: Logger;
  /** Traffic runs whose purchases changed since the network last reported their progress. */
  readonly unreported: Set<string>;
  stopped: boolean;
  /** The due work runs one after another: this is the last run's end. */
  dueChain: Promise<void>;
}

/** A network as it starts: no faults until its store is read, nothing due running, nothing to report. */
export const networkOf = (adapter: SchemeAdapter, deps: NetworkDeps): Network => ({
  deps,
  adapter,
  scheme: adapter.scheme,
  dice: new FaultDice(deps.seed, adapter.scheme),
  faults: { ...NO_FAULTS },
  log: deps.log.child({ simulator: adapter.scheme }),
  unreported: new Set(),
  stopped: false,
  dueChain: Promise.resolve(),
});

/** Mistakes in a message that no retry can fix: the message is dead-lettered with this reason. */
export class Rejected extends Error {}

/** A follow-up the rules refuse for the purchase `ref`, named by its field. */
export const rejected = (ref: string, refusal: Refusal) => new Rejected(`${refusal.field === "amount" ? "amount" : `purchaseId: ${ref}`}: ${refusal.reason}`);

/** The expiry of purchase `purchaseId`'s authorisation, due at `at`. */
export const expiryDue = (purchaseId: string, at: Date): Due => ({ id: `expiry:${purchaseId}`, kind: "expiry", dueAt: at, payload: { purchaseId } });

/**
 * What one batch does (a batch of commands, of due work, or a traffic tick): built step by step in
 * order, each step seeing what the steps before it did to a purchase; its messages handed to the bus as
 * they are made, not awaited one by one (so they go in one batched send, each card's in order), and,
 * once all are out, written in one transaction of the store.
 */
export class Batch {
  readonly writes: PurchaseWrite[] = [];
  readonly merchants: MerchantWrite[] = [];
  /** Due work done, removed with the batch's writes. */
  readonly done: string[] = [];
  readonly sending: Promise<unknown>[] = [];
  /** Purchases as the store holds them (read ahead) and as this batch left them, by id and native id. */
  readonly purchases = new Map<string, PurchaseRecord | null>();
  readonly known = new Map<string, { merchant: Merchant; onboarded: boolean } | null>();
  /** Ids of the messages this batch made. */
  readonly messageIds = new Set<string>();
  /** The sandboxes the batch's work is in (read once per batch, none for the accounts' own environments). */
  environments = new Map<string, EnvironmentState>();
  /** The requestIds of the onboarding replies the batch published. */
  readonly answered: string[] = [];
}

/** One read of the store for what a batch's steps will look up. */
export async function readAhead(net: Network, b: Batch, refs: string[], merchantKeys: string[]): Promise<void> {
  const purchases = await findPurchases(net.deps.db, net.scheme, refs);
  for (const ref of refs) b.purchases.set(ref, purchases.get(ref) ?? null);
  const merchants = await findMerchants(net.deps.db, net.scheme, merchantKeys);
  for (const key of merchantKeys) b.known.set(key, merchants.get(key) ?? null);
}

/** Waits for the batch's messages, then writes what it did in one transaction. */
export async function commit(net: Network, b: Batch): Promise<void> {
  const failed = (await Promise.allSettled(b.sending)).find((r) => r.status === "rejected");
  if (failed) throw failed.reason;
  await writeBatch(net.deps.db, batchRows(b.writes, b.merchants, b.done));
  for (const w of b.writes) if (w.runId !== null) net.unreported.add(w.runId);
}

/** A step's change to a purchase: part of the batch's write, and what later steps of the batch see. */
export function recordWrite(b: Batch, w: PurchaseWrite): void {
  b.writes.push(w);
  const record: PurchaseRecord = {
    purchase: w.purchase,
    state: w.state,
    refunded: w.refunded ?? 0,
    cleared: w.cleared ?? 0,
    runId: w.runId,
    environment: w.environment,
  };
  b.purchases.set(w.purchase.id, record);
  b.purchases.set(w.nativeId, record);
  for (const m of w.messages) b.messageIds.add(m.value.messageId);
}

export function parse<T>(schema: Parameters<typeof parseMessage<T>>[0], value: unknown): T {
  const parsed = parseMessage(schema, value);
  if (!parsed.ok) throw new Rejected(parsed.reason);
  return parsed.value;
}

/** The sandbox a request is in, as the store knows it: read only for a sandbox's request. */
export async function environmentOf(net: Network, environment: string | null): Promise<{ key: string; environments: Map<string, EnvironmentState> }> {
  const key = environmentKey(environment);
  return { key, environments: await readEnvironments(net.deps.db, [key]) };
}

/** Tells the service what the runs whose purchases changed have done so far (totals: a later report replaces this one). */
export async function reportProgress(net: Network): Promise<void> {
  for (const runId of [...net.unreported]) {
    // Taken off first: a write while this report is made marks the run again, for the next report.
    net.unreported.delete(runId);
    try {
      const progress = await runProgress(net.deps.db, net.scheme, runId, net.deps.clock.now());
      await net.deps.bus.publish(TOPICS.trafficProgress.name, `${runId}:${net.scheme}`, progress);
    } catch (err) {
      net.unreported.add(runId);
      throw err;
    }
  }
}

/**
 * Hands a message to the bus through the faults, now, without waiting for it: the batch waits for all
 * its messages at once. What the faults did is on the returned write once the batch has waited.
 */
export function send(net: Network, b: Batch, kind: MessageKind, value: MessageWrite["value"], at: Date): MessageWrite {
  const key = "cardId" in value ? value.cardId : "cardReference" in value ? value.cardReference : value.cardToken;
  const message: MessageWrite = { kind, value, delivery: { delivery: "sent", copies: 0 }, at };
  b.sending.push(
    net.dice.deliver(net.faults, () => net.deps.bus.publish(net.adapter.topic, key, value)).then((delivery) => {
      message.delivery = delivery;
    }),
  );
  return message;
}

/** The purchase as the store holds it, or as an earlier step of the batch left it. */
export async function purchaseOf(net: Network, b: Batch, ref: string): Promise<PurchaseRecord | null> {
  if (!b.purchases.has(ref)) b.purchases.set(ref, (await findPurchase(net.deps.db, net.scheme, ref)) ?? null);
  return b.purchases.get(ref) ?? null;
}

export async function purchaseOrReject(net: Network, b: Batch, ref: string): Promise<PurchaseRecord> {
  const record = await purchaseOf(net, b, ref);
  if (!record) throw new Rejected(`purchaseId: no ${net.scheme} purchase ${ref}`);
  return record;
}

/** A step's write of `record` with `changes`: nothing sent, scheduled or cancelled unless they say so. */
export function update(net: Network, record: PurchaseRecord, changes: Partial<PurchaseWrite>): PurchaseWrite {
  return {
    purchase: record.purchase,
    nativeId: net.adapter.ids(record.purchase.id).transactionId,
    runId: record.runId,
    environment: record.environment,
    state: record.state,
    refunded: record.refunded,
    cleared: record.cleared,
    messages: [],
    schedule: [],
    cancel: [],
    ...changes,
  };
}
