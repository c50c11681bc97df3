// One simulated card network at work: it takes commands, onboarding requests, look-ups and the
// operator's settings from the bus, publishes its native transaction messages and replies, clears on
// the service clock, generates traffic when a run asks for it (reporting its progress back), and passes
// everything it publishes through the operator's faults. A sandbox's commands and requests run on that
// sandbox's clock (./environments.ts), and so does its due work; ./sandbox-settings.ts applies the service's
// settings for a sandbox. How it answers a look-up is ./lookups.ts.
import type { Logger } from "pino";
import type { Bus, BusMessage, Subscription } from "../../src/platform/bus/bus.ts";
import { deadLetter } from "../../src/platform/bus/dead-letter.ts";
import type { OnboardingReply, OnboardingRequest, SimulatorCommand, SimulatorSetting } from "../../src/platform/bus/messages.ts";
import { TOPICS, commandTopic } from "../../src/platform/bus/topics.ts";
import type { Clock } from "../../src/platform/clock/index.ts";
import { countryByAlpha3 } from "../../src/domain/countries.ts";
import { addressFindable, onboardingDelayMs } from "../../src/domain/location-status.ts";
import { localAt } from "../../src/domain/local-dates.ts";
import { roundMoney } from "../../src/domain/money.ts";
import { AUTH_EXPIRY_DAYS, clearingOf, expiresAt, expiryOf, incrementOf, refundOf, voidRefusal, type Refusal } from "../../src/domain/purchase-follow-ups.ts";
import type { SimulatorDb as Db } from "./store.ts";
import { FaultDice, NO_FAULTS, faultsSchema, type Faults } from "./faults.ts";
import { PurchaseStream } from "./generator.ts";
import {
  dueBefore,
  findMerchant,
  findMerchants,
  findPurchase,
  findPurchases,
  messageExists,
  purchasesOfRun,
  saveCard,
  setMerchantProgram,
  scheduleDue,
  standingOf,
  writePurchases,
  type Due,
  type DueIn,
  type MerchantWrite,
  type MessageWrite,
  type PurchaseRecord,
  type PurchaseWrite,
} from "./history.ts";
import { loadPools } from "./population.ts";
import { derivedRandom, hashSeed, seededRandom } from "./random.ts";
import { answerLookup } from "./lookups.ts";
import { cardEnrolments, lookupRequests, onboardingRequests, parseMessage, simulatorCommands } from "./requests.ts";
import { DAY_MS, descriptor, type ClearingPart, type SchemeAdapter } from "./scheme.ts";
import { SERVICE_ENVIRONMENT, clockOf, environmentKey, forgotten, readEnvironments, timeIn, type EnvironmentState } from "./environments.ts";
import { applySandboxSetting } from "./sandbox-settings.ts";
import {
  latestRun,
  mixOf,
  plannedPurchases,
  readFaults,
  runOfSetting,
  runProgress,
  saveClockOffset,
  saveFaults,
  saveRun,
  storeId,
  type TrafficRun,
} from "./settings.ts";
import type { Merchant, MessageKind, Plan, Purchase } from "./types.ts";

export interface NetworkDeps {
  db: Db;
  bus: Bus;
  clock: Clock;
  log: Logger;
  /** SIMULATOR_SEED: MIDs the network assigns and the fault draws follow it. */
  seed: number;
}

/** How often (real time) the network looks for due work, new faults and traffic runs. */
const POLL_MS = 1000;
/** How often a traffic run generates its next purchases. */
const TRAFFIC_TICK_MS = 100;
/** The most purchases one tick makes (a tick that fell behind catches up by this much at a time). */
const MAX_PER_TICK = 1000;
/** How often (real time) a generating network reports a run's progress to the service. */
const REPORT_MS = 1000;

/** A traffic run this network is generating. */
interface Traffic {
  run: TrafficRun;
  stream: PurchaseStream;
  timer: NodeJS.Timeout;
  busy: boolean;
  /** Real time the run started here: traffic is paced in purchases per real second. */
  startedMs: number;
  /** Purchases made before (a run resumed after a restart). */
  from: number;
  planned: number | null;
  /** Real time of the last progress report. */
  reportedMs: number;
}

/** Mistakes in a message that no retry can fix: the message is dead-lettered with this reason. */
class Rejected extends Error {}

/** A follow-up the rules refuse for the purchase `ref`, named by its field. */
const rejected = (ref: string, refusal: Refusal) => new Rejected(`${refusal.field === "amount" ? "amount" : `purchaseId: ${ref}`}: ${refusal.reason}`);

/** The expiry of purchase `purchaseId`'s authorisation, due at `at`. */
const expiryDue = (purchaseId: string, at: Date): Due => ({ id: `expiry:${purchaseId}`, kind: "expiry", dueAt: at, payload: { purchaseId } });

/**
 * What one batch does (a batch of commands, of due work, or a traffic tick): built step by step in
 * order, each step seeing what the steps before it did to a purchase; its messages handed to the bus as
 * they are made, not awaited one by one (so they go in one batched send, each card's in order), and,
 * once all are out, written in one transaction of the store.
 */
class Batch {
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

export class NetworkSimulator {
  readonly scheme;
  faults: Faults = { ...NO_FAULTS };
  private readonly dice: FaultDice;
  private subscription: Subscription | undefined;
  private settings: Subscription | undefined;
  private timer: NodeJS.Timeout | undefined;
  private offAdvance: (() => void) | undefined;
  private dueChain: Promise<void> = Promise.resolve();
  private traffic: Traffic | undefined;
  /** The run this network made all its planned purchases of: not started again (until restarted and found done). */
  private finished: string | undefined;
  /** The traffic tick in progress, which stop() lets finish. */
  private tick: Promise<void> = Promise.resolve();
  private stopped = false;
  /** Traffic runs whose purchases changed since the network last reported their progress. */
  private readonly unreported = new Set<string>();
  private readonly log: Logger;

  constructor(
    readonly adapter: SchemeAdapter,
    private readonly deps: NetworkDeps,
  ) {
    this.scheme = adapter.scheme;
    this.dice = new FaultDice(deps.seed, adapter.scheme);
    this.log = deps.log.child({ simulator: adapter.scheme });
  }

  get groupId() {
    return `simulator-${this.scheme}`;
  }

  async start(): Promise<void> {
    await this.refresh();
    this.subscription = await this.deps.bus.subscribe({
      groupId: this.groupId,
      topics: [commandTopic(this.scheme), TOPICS.onboardingRequests.name, TOPICS.lookupRequests.name, TOPICS.cardEnrolments.name],
      batchHandler: async (batch, handled) => {
        // Commands a batch at a time; the requests (every scheme's, mostly others') one by one.
        const commands = batch.filter((m) => m.topic === commandTopic(this.scheme));
        for (const m of batch) {
          if (m.topic === commandTopic(this.scheme)) continue;
          await this.onMessage(m);
          handled(m);
        }
        await this.onCommands(commands);
      },
    });
    // Settings in a group named after the store: a fresh store reads every setting from the topic's start,
    // one that persists resumes where it was (what it applied is in it).
    this.settings = await this.deps.bus.subscribe({
      groupId: `${this.groupId}-settings-${await storeId(this.deps.db)}`,
      topics: [TOPICS.simulatorSettings.name],
      handler: (m) => this.onMessage(m),
    });
    this.offAdvance = this.deps.clock.onAdvance((now) => this.runDue(now));
    // On a running clock nothing calls advance: due work is polled for, as are settings other processes wrote.
    this.timer = setInterval(() => {
      void this.refresh()
        .then(() => this.runDue(this.deps.clock.now()))
        .catch((err: unknown) => this.log.error({ err }, "simulator poll failed"));
    }, POLL_MS);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.offAdvance?.();
    this.stopTraffic();
    await this.tick;
    await this.subscription?.stop();
    await this.settings?.stop();
    await this.dueChain;
  }

  /** Reads faults and the traffic run from its store (another process of this network may have changed them). */
  async refresh(): Promise<void> {
    if (this.stopped) return;
    this.faults = await readFaults(this.deps.db, this.scheme);
    await this.syncTraffic();
  }

  // ---------------------------------------------------------------- messages from the bus

  private async onMessage(message: BusMessage): Promise<void> {
    const value = message.value as { scheme?: string };
    const forAll = message.topic === TOPICS.simulatorSettings.name && value.scheme === null; // traffic runs, the clock
    if (value.scheme !== this.scheme && !forAll) return; // another network's
    try {
      if (message.topic === TOPICS.simulatorSettings.name) await this.apply(message.value as SimulatorSetting);
      else if (message.topic === TOPICS.onboardingRequests.name) await this.onboard(message.value);
      else if (message.topic === TOPICS.lookupRequests.name) await this.lookup(message.value);
      else if (message.topic === TOPICS.cardEnrolments.name) await this.enrol(message.value);
    } catch (err) {
      if (!(err instanceof Rejected)) throw err; // infrastructure: leave uncommitted, try again
      await this.deadLetter(message, err.message);
    }
  }

  private async deadLetter(message: BusMessage, reason: string): Promise<void> {
    this.log.warn({ topic: message.topic, offset: message.offset, reason }, "dead-lettering a message");
    await deadLetter(this.deps.bus, { message, payload: message.value, reason, groupId: this.groupId, at: this.deps.clock.now() });
  }

  /**
   * A batch of this network's commands (one partition's, so each card's in order): one read ahead of the
   * purchases and merchants they name, each carried out in order as one step of a batch, the batch
   * written once its messages are out. A command no retry can fix is dead-lettered and the rest go on;
   * a failure of the bus or the store leaves the whole batch to be delivered again (the steps are
   * idempotent: a purchase made, a refund with its id, a clear or void already done are not repeated).
   */
  private async onCommands(messages: BusMessage[]): Promise<void> {
    if (messages.length === 0) return;
    const dead: { message: BusMessage; reason: string }[] = [];
    const commands: { message: BusMessage; command: SimulatorCommand }[] = [];
    for (const message of messages) {
      try {
        const command = this.parse(simulatorCommands, message.value);
        if (command.scheme !== this.scheme) throw new Rejected(`scheme: ${command.scheme} on the ${this.scheme} network's command topic`);
        commands.push({ message, command });
      } catch (err) {
        if (!(err instanceof Rejected)) throw err;
        dead.push({ message, reason: err.message });
      }
    }
    const b = new Batch();
    await this.readAhead(
      b,
      commands.map((c) => c.command.purchaseId),
      commands.flatMap((c) => (c.command.location ? [c.command.location.id] : [])),
    );
    b.environments = await readEnvironments(this.deps.db, commands.map((c) => environmentKey(c.command.environment)));
    for (const { message, command } of commands) {
      if (forgotten(b.environments, environmentKey(command.environment))) continue; // a deleted sandbox's: unanswered
      try {
        await this.onCommand(b, command);
      } catch (err) {
        if (!(err instanceof Rejected)) throw err;
        dead.push({ message, reason: err.message });
      }
    }
    await this.commit(b);
    await Promise.all(dead.sort((x, y) => x.message.offset - y.message.offset).map((d) => this.deadLetter(d.message, d.reason)));
  }

  /** One read of the store for what a batch's steps will look up. */
  private async readAhead(b: Batch, refs: string[], merchantKeys: string[]): Promise<void> {
    const purchases = await findPurchases(this.deps.db, this.scheme, refs);
    for (const ref of refs) b.purchases.set(ref, purchases.get(ref) ?? null);
    const merchants = await findMerchants(this.deps.db, this.scheme, merchantKeys);
    for (const key of merchantKeys) b.known.set(key, merchants.get(key) ?? null);
  }

  /** Waits for the batch's messages, then writes what it did in one transaction. */
  private async commit(b: Batch): Promise<void> {
    const failed = (await Promise.allSettled(b.sending)).find((r) => r.status === "rejected");
    if (failed) throw failed.reason;
    await writePurchases(this.deps.db, b.writes, b.merchants, b.done);
    for (const w of b.writes) if (w.runId !== null) this.unreported.add(w.runId);
  }

  /** A step's change to a purchase: part of the batch's write, and what later steps of the batch see. */
  private record(b: Batch, w: PurchaseWrite): void {
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

  private parse<T>(schema: Parameters<typeof parseMessage<T>>[0], value: unknown): T {
    const parsed = parseMessage(schema, value);
    if (!parsed.ok) throw new Rejected(parsed.reason);
    return parsed.value;
  }

  /** One command, at its environment's time. */
  private async onCommand(b: Batch, command: SimulatorCommand): Promise<void> {
    const environment = environmentKey(command.environment);
    const now = timeIn(this.deps.clock, b.environments, environment);
    switch (command.action) {
      case "PURCHASE":
        return this.purchaseFromCommand(b, command, environment, now);
      case "CLEAR":
        // A clearing asked for takes over from the one the network scheduled.
        return this.clear(b, command.purchaseId, command.amount, command.commandId, now, { takeOver: true, duplicate: command.duplicate ?? false });
      case "VOID":
        return this.voidPurchase(b, command.purchaseId, now);
      case "REFUND":
        return this.refund(b, command.purchaseId, command.commandId, command.amount, now);
      case "INCREMENT":
        if (command.amount === null) throw new Rejected("amount: required for INCREMENT");
        return this.increment(b, command.purchaseId, command.commandId, command.amount, now);
      case "EXPIRE":
        return this.expire(b, command.purchaseId, now);
    }
  }

  /** The sandbox a request is in, as the store knows it: read only for a sandbox's request. */
  private async environmentOf(environment: string | null): Promise<{ key: string; environments: Map<string, EnvironmentState> }> {
    const key = environmentKey(environment);
    return { key, environments: await readEnvironments(this.deps.db, [key]) };
  }

  /** A card enrolled in (or removed from) a program: from now on the network knows it (a deleted sandbox's, not). */
  private async enrol(value: unknown): Promise<void> {
    const e = this.parse(cardEnrolments, value);
    const { key, environments } = await this.environmentOf(e.environment);
    if (forgotten(environments, key)) return;
    await saveCard(this.deps.db, { ...e, enrolled: e.action === "ENROL", environment: key }, timeIn(this.deps.clock, environments, key));
  }

  // ---------------------------------------------------------------- settings

  /**
   * Keeps a setting from the service in the network's store and applies it: this network's faults, a
   * traffic run, the service clock's advance (which a simulator process's clock follows through its
   * store). In one process with the service it arrives twice, directly and off the bus: keeping it is
   * idempotent, and an older version never replaces a newer one.
   */
  async apply(setting: SimulatorSetting): Promise<void> {
    if (setting.environment !== null) {
      const refused = await applySandboxSetting({ ...this.deps, scheme: this.scheme, runDue: (now, environment) => this.dueRun(now, environment) }, setting);
      if (refused) throw new Rejected(refused);
      return;
    }
    const now = this.deps.clock.now();
    switch (setting.kind) {
      case "FAULTS": {
        if (setting.scheme !== this.scheme) return;
        // A copy: values decoded off Kafka are Avro records, whose methods a strict schema takes for unknown fields.
        const faults = faultsSchema.safeParse({ ...setting.faults });
        if (!faults.success) throw new Rejected(`faults: ${faults.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
        await saveFaults(this.deps.db, this.scheme, faults.data, setting.version, now);
        break;
      }
      case "TRAFFIC": {
        if (!setting.run) throw new Rejected("run: required for a TRAFFIC setting");
        const run = runOfSetting(setting.run);
        if ("error" in run) throw new Rejected(run.error);
        await saveRun(this.deps.db, run.run);
        break;
      }
      case "CLOCK":
        if (setting.clockOffsetMs === null) throw new Rejected("clockOffsetMs: required for a CLOCK setting");
        await saveClockOffset(this.deps.db, setting.clockOffsetMs);
        // Every advance is announced: a debug line, where faults and runs are info.
        this.log.debug({ kind: setting.kind, clockOffsetMs: setting.clockOffsetMs }, "setting applied");
        return;
      case "FORGET":
        throw new Rejected("environment: required for a FORGET setting");
    }
    await this.refresh();
    this.log.info({ kind: setting.kind, version: setting.version, ...(setting.run ? { run: setting.run.id, state: setting.run.state } : {}) }, "setting applied");
  }

  // ---------------------------------------------------------------- purchases

  private async purchaseFromCommand(b: Batch, c: SimulatorCommand, environment: string, now: Date): Promise<void> {
    if (await this.purchaseOf(b, c.purchaseId)) return; // a redelivered command
    const location = c.location!;
    // What the network already holds wins: a test purchase at a location it has not onboarded carries
    // no vmid/vsid (Visa) or location id (Mastercard), exactly like network traffic there.
    const merchant = await this.merchantForLocation(b, { ...location, brandName: location.name }, { assigned: true, upgrade: false, environment, now }, location.mids);
    const currency = c.currency ?? countryByAlpha3(location.countryCode)?.currency ?? "USD";
    const purchase: Purchase = {
      id: c.purchaseId,
      scheme: this.scheme,
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
    this.authorize(b, purchase, plan, null, environment, now);
  }

  /**
   * The merchant record for one of the service's locations: what the network already holds, else
   * the MIDs the service gave, else ids the network assigns (deterministically, from the seed) —
   * all of them when `assigned`, else only those it has before onboarding. `upgrade` replaces a
   * record the network holds as not onboarded. A new record is the environment's, made at `now`.
   */
  async merchantForLocation(
    b: Batch,
    location: { id: string; brandName: string; address: string; city: string; postcode: string; countryCode: string; timezone?: string | null },
    { assigned, upgrade, environment, now }: { assigned: boolean; upgrade: boolean; environment: string; now: Date },
    supplied: Merchant["mids"][] = [],
  ): Promise<Merchant> {
    if (!b.known.has(location.id)) b.known.set(location.id, (await findMerchant(this.deps.db, this.scheme, location.id)) ?? null);
    const known = b.known.get(location.id);
    if (known && (known.onboarded || !upgrade)) return known.merchant;
    const onboarded = assigned;
    const name = descriptor(location.brandName, location.city);
    const assignedMids = this.adapter.assignMids(seededRandom(hashSeed(this.deps.seed, this.scheme, location.id)), name, onboarded);
    // The service's MIDs win field by field; what it left out (a Visa CAID and BIN next to a vmid, say)
    // the network fills in, so the ids the service knows are the ids its messages carry.
    const given = supplied
      .map((m) => ({ ...assignedMids, ...Object.fromEntries(Object.entries(m).filter(([, v]) => v !== null && v !== undefined)) }))
      .find((m) => this.adapter.validMids(m));
    const merchant: Merchant = {
      key: location.id,
      locationId: location.id,
      name: location.brandName,
      address: location.address,
      city: location.city,
      postcode: location.postcode,
      countryCode: location.countryCode,
      timezone: location.timezone ?? countryByAlpha3(location.countryCode)?.mainTimezone ?? "UTC",
      mcc: "5999",
      mids: given
        ? { ...given, merchantName: given.merchantName ?? name }
        : assignedMids,
    };
    b.merchants.push({ scheme: this.scheme, merchant, onboarded, at: now, environment });
    b.known.set(location.id, { merchant, onboarded });
    return merchant;
  }

  /**
   * Publishes a new purchase's auth (after its clearing, under that fault; or its clearing alone, when it has
   * no authorisation) and plans what follows, at its environment's `now`: its clearing (in parts, maybe, or
   * above it by a tip), void or refund, an increment of its authorisation, a clearing sent again — or, for an
   * authorisation the network does not clear (or would clear only after it expires), its expiry.
   */
  private authorize(b: Batch, purchase: Purchase, plan: Plan, runId: string | null, environment: string, now: Date): void {
    const messages: MessageWrite[] = [];
    const clear = plan.outcome === "clear" ? plan : null;
    const parts = clear?.clearings ?? null;
    const withoutAuth = clear?.withoutAuth ?? false;
    // Under the fault, the whole amount clears before the auth (a purchase cleared in parts or incremented clears later).
    const early = plan.outcome !== "void" && plan.outcome !== "expire" && !parts && !withoutAuth && !clear?.increment && this.dice.roll(this.faults.clearingBeforeAuthRate);
    // A clearing with no authorisation goes out at once when a command asks for it (a test purchase); in traffic, when the network clears (in Mastercard's batch).
    const cleared = early || (withoutAuth && runId === null);
    if (cleared) messages.push(this.send(b, "clearing", this.adapter.clearing(purchase, now, undefined, { withoutAuth }), now));
    if (!withoutAuth) messages.push(this.send(b, "auth", this.adapter.auth(purchase, now), now));
    const id = purchase.id;
    const clearingAt = cleared ? now : this.adapter.clearingDue(id, now);
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
    this.record(b, {
      purchase,
      nativeId: this.adapter.ids(id).transactionId,
      runId,
      environment,
      created: true,
      state: cleared ? "cleared" : "authorized",
      cleared: cleared ? purchase.amount : 0,
      messages,
      schedule,
      cancel: [],
    });
  }

  /** Tells the service what the runs whose purchases changed have done so far (totals: a later report replaces this one). */
  private async reportProgress(): Promise<void> {
    for (const runId of [...this.unreported]) {
      // Taken off first: a write while this report is made marks the run again, for the next report.
      this.unreported.delete(runId);
      try {
        const progress = await runProgress(this.deps.db, this.scheme, runId, this.deps.clock.now());
        await this.deps.bus.publish(TOPICS.trafficProgress.name, `${runId}:${this.scheme}`, progress);
      } catch (err) {
        this.unreported.add(runId);
        throw err;
      }
    }
  }

  /**
   * Hands a message to the bus through the faults, now, without waiting for it: the batch waits for all
   * its messages at once. What the faults did is on the returned write once the batch has waited.
   */
  private send(b: Batch, kind: MessageKind, value: MessageWrite["value"], at: Date): MessageWrite {
    const key = "cardId" in value ? value.cardId : "cardReference" in value ? value.cardReference : value.cardToken;
    const message: MessageWrite = { kind, value, delivery: { delivery: "sent", copies: 0 }, at };
    b.sending.push(
      this.dice.deliver(this.faults, () => this.deps.bus.publish(this.adapter.topic, key, value)).then((delivery) => {
        message.delivery = delivery;
      }),
    );
    return message;
  }

  /** The purchase as the store holds it, or as an earlier step of the batch left it. */
  private async purchaseOf(b: Batch, ref: string): Promise<PurchaseRecord | null> {
    if (!b.purchases.has(ref)) b.purchases.set(ref, (await findPurchase(this.deps.db, this.scheme, ref)) ?? null);
    return b.purchases.get(ref) ?? null;
  }

  private async purchaseOrReject(b: Batch, ref: string): Promise<PurchaseRecord> {
    const record = await this.purchaseOf(b, ref);
    if (!record) throw new Rejected(`purchaseId: no ${this.scheme} purchase ${ref}`);
    return record;
  }

  private update(record: PurchaseRecord, changes: Partial<PurchaseWrite>): PurchaseWrite {
    return {
      purchase: record.purchase,
      nativeId: this.adapter.ids(record.purchase.id).transactionId,
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

  /**
   * Clears `amount` of an authorised purchase (what is left when null) now: a test transaction's clear, or a
   * clearing falling due. The whole amount at once is the purchase's one clearing; anything else is one
   * clearing of part of it, under `clearingId` (a command's id, a planned clearing's), or, without one, an
   * id from what was cleared before. `takeOver`: the network's scheduled clearing is not sent any more.
   */
  private async clear(
    b: Batch,
    ref: string,
    amount: number | null,
    clearingId: string | null,
    at: Date,
    { takeOver = false, duplicate = false, withoutAuth = false }: { takeOver?: boolean; duplicate?: boolean; withoutAuth?: boolean } = {},
  ): Promise<void> {
    const record = await this.purchaseOrReject(b, ref);
    // Cleared in full already, or voided (the API refuses that): nothing to send.
    if (record.state !== "authorized") return;
    const decided = clearingOf(standingOf(record), amount);
    if ("done" in decided) return;
    if ("refusal" in decided) throw rejected(ref, decided.refusal);
    const id = record.purchase.id;
    const part = decided.whole ? undefined : { clearingId: clearingId ?? `${id}:clearing:${record.cleared}`, amount: decided.amount };
    if (part) {
      // A redelivered command: its clearing went out already.
      const messageId = this.adapter.messageId("clearing", part.clearingId);
      if (b.messageIds.has(messageId) || (await messageExists(this.deps.db, messageId))) return;
    }
    const messages = [this.send(b, "clearing", this.adapter.clearing(record.purchase, at, part, { withoutAuth }), at)];
    // Asked to, the network sends the same clearing again: its own message id, the clearing's reference.
    if (duplicate) messages.push(this.send(b, "clearing", this.adapter.clearing(record.purchase, at, part, { resent: true }), at));
    // What a clearing taken over leaves uncleared expires in its time, as an authorisation the network does not clear.
    const leftUncleared = !decided.last && takeOver;
    this.record(
      b,
      this.update(record, {
        state: decided.last ? "cleared" : "authorized",
        cleared: roundMoney(record.cleared + decided.amount, record.purchase.currency),
        messages,
        schedule: leftUncleared ? [expiryDue(id, expiresAt(new Date(record.purchase.authorizedAt), record.purchase.authExpiryDays))] : [],
        cancel: decided.last ? [`clearing:${id}`, `expiry:${id}`] : takeOver ? [`clearing:${id}`] : [],
      }),
    );
  }

  /** An incremental authorisation of `amount` with its own id (a command's, a planned one's), so a redelivery increments once. */
  private async increment(b: Batch, ref: string, incrementId: string, amount: number, at: Date): Promise<void> {
    const record = await this.purchaseOrReject(b, ref);
    const messageId = this.adapter.messageId("increment", incrementId);
    if (b.messageIds.has(messageId) || (await messageExists(this.deps.db, messageId))) return;
    const decided = incrementOf(standingOf(record), amount);
    if ("refusal" in decided) throw rejected(ref, decided.refusal);
    const message = this.send(b, "increment", this.adapter.increment(record.purchase, incrementId, decided.amount, at), at);
    this.record(b, this.update(record, { purchase: { ...record.purchase, amount: decided.total }, messages: [message] }));
  }

  /** The network withdraws what is left uncleared of an authorisation (its expiry fell due, or a command asks for it now). */
  private async expire(b: Batch, ref: string, at: Date): Promise<void> {
    const record = await this.purchaseOrReject(b, ref);
    if (record.state === "expired") return; // a redelivered command
    const decided = expiryOf(standingOf(record));
    if ("refusal" in decided) throw rejected(ref, decided.refusal);
    const id = record.purchase.id;
    const message = this.send(b, "expiry", this.adapter.expiry(record.purchase, decided.amount, at), at);
    this.record(b, this.update(record, { state: "expired", messages: [message], cancel: [`clearing:${id}`, `expiry:${id}`, `increment:${id}`] }));
  }

  /** A clearing the network sends again (a day after it, as planned): its own message id, the clearing's reference. */
  private async resend(b: Batch, ref: string, part: ClearingPart | null, withoutAuth: boolean, at: Date): Promise<void> {
    const record = await this.purchaseOrReject(b, ref);
    if (record.cleared <= 0) return; // it never cleared (voided or expired first): nothing to send again
    const message = this.send(b, "clearing", this.adapter.clearing(record.purchase, at, part ?? undefined, { resent: true, withoutAuth }), at);
    this.record(b, this.update(record, { messages: [message] }));
  }

  private async voidPurchase(b: Batch, ref: string, at: Date): Promise<void> {
    const record = await this.purchaseOrReject(b, ref);
    if (record.state === "voided") return;
    const refusal = voidRefusal(record);
    if (refusal) throw rejected(ref, refusal);
    const message = this.send(b, "void", this.adapter.void(record.purchase, at), at);
    const id = record.purchase.id;
    this.record(b, this.update(record, { state: "voided", messages: [message], cancel: [`clearing:${id}`, `expiry:${id}`, `increment:${id}`] }));
  }

  /**
   * A refund of `amount` (default: what is left) with its own id, so a redelivery refunds once;
   * `referenced` false sends it without naming the purchase, as networks often do.
   */
  private async refund(b: Batch, ref: string, refundId: string, amount: number | null, at: Date, referenced = true): Promise<void> {
    const record = await this.purchaseOrReject(b, ref);
    const messageId = this.adapter.messageId("refund", refundId);
    if (b.messageIds.has(messageId) || (await messageExists(this.deps.db, messageId))) return;
    const decided = refundOf(standingOf(record), amount);
    if ("refusal" in decided) throw rejected(ref, decided.refusal);
    const refund = decided.amount;
    const message = this.send(b, "refund", this.adapter.refund(record.purchase, refundId, refund, at, referenced), at);
    this.record(b, this.update(record, { refunded: record.refunded + refund, messages: [message] }));
  }

  // ---------------------------------------------------------------- due work, each environment on its clock

  /** Sends whatever fell due by `now` (service time) in every environment; runs one at a time (clock advances and polls may overlap). */
  runDue(now: Date): Promise<void> {
    if (!this.stopped) void this.dueRun(now, null).catch(() => undefined);
    return this.dueChain;
  }

  /**
   * One run of due work after those before it: every environment's (each at its own time over the service's
   * `now`), or one sandbox's alone. Resolves with the onboarding replies it published; rejects when it failed.
   */
  private dueRun(now: Date, environment: string | null): Promise<string[]> {
    const run = this.dueChain.then(() => this.drainDue(now, environment));
    this.dueChain = run.then(
      () => undefined,
      (err: unknown) => this.log.error({ err }, "due work failed"),
    );
    return run;
  }

  /** Due work 200 at a time, each 200 a batch: its messages sent together, its changes and removal written at once. */
  private async drainDue(now: Date, environment: string | null): Promise<string[]> {
    const answered: string[] = [];
    for (;;) {
      const due = await dueBefore(this.deps.db, this.scheme, { now, offsetMs: this.deps.clock.offsetMs }, 200, environment);
      const b = new Batch();
      await this.readAhead(
        b,
        due.flatMap((d) => ("purchaseId" in d.payload ? [d.payload.purchaseId] : [])),
        [],
      );
      for (const d of due) {
        try {
          await this.runOne(b, d);
        } catch (err) {
          if (!(err instanceof Rejected)) throw err;
          this.log.warn({ due: d.id, reason: err.message }, "due work no longer applies");
        }
        b.done.push(d.id);
      }
      await this.commit(b);
      answered.push(...b.answered);
      await this.reportProgress();
      if (due.length < 200) return answered;
    }
  }

  /** One piece of due work, at its due time (in its environment's time). */
  private async runOne(b: Batch, due: DueIn): Promise<void> {
    switch (due.kind) {
      case "clearing":
        return this.clear(b, due.payload.purchaseId, due.payload.amount ?? null, due.payload.clearingId ?? null, due.dueAt, {
          withoutAuth: due.payload.withoutAuth ?? false,
        });
      case "increment":
        return this.increment(b, due.payload.purchaseId, due.payload.incrementId, due.payload.amount, due.dueAt);
      case "expiry":
        return this.expire(b, due.payload.purchaseId, due.dueAt);
      case "resend":
        return this.resend(b, due.payload.purchaseId, due.payload.part, due.payload.withoutAuth, due.dueAt);
      case "void":
        return this.voidPurchase(b, due.payload.purchaseId, due.dueAt);
      case "refund": {
        const record = await this.purchaseOrReject(b, due.payload.purchaseId);
        if (record.state === "voided") return;
        return this.refund(b, due.payload.purchaseId, due.payload.refundId, due.payload.amount, due.dueAt, due.payload.referenced ?? true);
      }
      case "onboarding-reply": {
        const { reply, merchant } = due.payload;
        if (merchant) b.merchants.push({ scheme: this.scheme, merchant, onboarded: true, at: due.dueAt, environment: due.environment });
        const publish = () => this.deps.bus.publish(TOPICS.onboardingReplies.name, reply.locationId, reply);
        b.sending.push(this.dice.deliver(this.faults, publish).then((d) => void (d.delivery === "sent" && b.answered.push(reply.requestId))));
        return;
      }
    }
  }

  // ---------------------------------------------------------------- onboarding

  /**
   * Answers 1 to 2 weeks later (service time): Active with the scheme's MIDs, or Not found — under the
   * onboarding-failure fault, or for an address it cannot match (no house number). Client-supplied MIDs
   * make it the shortest wait, one week (src/domain/location-status.ts onboardingDelayMs). A test
   * environment request is answered at once, with no fault: the test networks onboard everything. A
   * sandbox's request is answered on the sandbox's time; a deleted sandbox's, never.
   */
  async onboard(value: unknown): Promise<void> {
    const request = this.parse(onboardingRequests, value);
    const { key: environment, environments } = await this.environmentOf(request.environment);
    if (forgotten(environments, environment)) return;
    const name = descriptor(request.brandName, request.city);
    const assigned = this.adapter.assignMids(seededRandom(hashSeed(this.deps.seed, this.scheme, request.locationId)), name, true);
    // What the client gave wins field by field; the network fills in what it left out.
    const supplied = request.mids.map((m) => ({ ...assigned, ...Object.fromEntries(Object.entries(m).filter(([, v]) => v !== null)) }));
    const invalid = supplied.findIndex((m) => !this.adapter.validMids(m));
    if (invalid >= 0) throw new Rejected(`mids.${invalid}: not valid ${this.scheme} MIDs`);
    const now = timeIn(this.deps.clock, environments, environment);
    const draw = derivedRandom(this.scheme, "onboarding", request.requestId)();
    // The wait counts from the request, not from when this network got to it off the bus.
    const dueAt = request.live ? new Date(Date.parse(request.requestedAt) + onboardingDelayMs(supplied.length > 0, draw)) : now;
    // From the request on, the network knows the merchant, without the ids onboarding assigns.
    const known = new Batch();
    await this.merchantForLocation(known, { ...request, id: request.locationId }, { assigned: false, upgrade: false, environment, now }, request.mids);
    await this.commit(known);
    await setMerchantProgram(this.deps.db, this.scheme, request.locationId, request.programId);
    const failure = !request.live
      ? null
      : this.dice.roll(this.faults.onboardingFailureRate)
        ? "The network could not onboard the location (onboarding failure); a case has been opened."
        : !addressFindable(request.address)
          ? `The network found no merchant at "${request.address}": the address has no street or unit number; a case has been opened.`
          : null;
    const merchant = failure ? null : await this.onboardedMerchant(request, supplied[0] ?? assigned);
    const reply: OnboardingReply = {
      requestId: request.requestId,
      scheme: this.scheme,
      locationId: request.locationId,
      status: failure ? "NOT_FOUND" : "ACTIVE",
      reason: failure,
      mids: merchant ? [merchant.mids] : [],
      respondedAt: dueAt.toISOString(),
    };
    if (!request.live) {
      if (merchant) await writePurchases(this.deps.db, [], [{ scheme: this.scheme, merchant, onboarded: true, at: now, environment }]);
      await this.deps.bus.publish(TOPICS.onboardingReplies.name, reply.locationId, reply);
      return;
    }
    await scheduleDue(this.deps.db, this.scheme, environment, { id: `onboarding:${request.requestId}`, kind: "onboarding-reply", dueAt, payload: { reply, merchant } });
  }

  private async onboardedMerchant(request: OnboardingRequest, ids: Merchant["mids"]): Promise<Merchant> {
    const known = await findMerchant(this.deps.db, this.scheme, request.locationId);
    const mids = { ...ids, merchantName: ids.merchantName ?? descriptor(request.brandName, request.city) };
    return {
      key: request.locationId,
      locationId: request.locationId,
      name: request.brandName,
      address: request.address,
      city: request.city,
      postcode: request.postcode,
      countryCode: request.countryCode,
      timezone: known?.merchant.timezone ?? countryByAlpha3(request.countryCode)?.mainTimezone ?? "UTC",
      mcc: known?.merchant.mcc ?? "5999",
      mids,
    };
  }

  // ---------------------------------------------------------------- missing-transaction look-ups

  async lookup(value: unknown): Promise<void> {
    const request = this.parse(lookupRequests, value);
    const { key: environment, environments } = await this.environmentOf(request.environment);
    if (forgotten(environments, environment)) return; // a deleted sandbox's: unanswered
    // The search sees everything this network has done by now: clearings that fell due (each environment on
    // its clock) are sent first (a look-up could otherwise overtake the poll that sends them, and miss a settlement).
    if (request.live) await this.runDue(this.deps.clock.now());
    const clock = clockOf(this.deps.clock, environments, environment);
    const reply = await answerLookup({ ...this.deps, clock, adapter: this.adapter, dice: this.dice, faults: this.faults }, request);
    const publish = () => this.deps.bus.publish(TOPICS.lookupReplies.name, request.cardId, reply);
    // The test environment has no network contact: no fault touches its answers.
    if (!request.live) await publish();
    else await this.dice.deliver(this.faults, publish);
  }

  // ---------------------------------------------------------------- generated traffic

  private async syncTraffic(): Promise<void> {
    const run = await latestRun(this.deps.db);
    const wanted = run && run.state === "running" && run.options.schemes.includes(this.scheme) ? run : undefined;
    if (this.traffic && this.traffic.run.id !== wanted?.id) this.stopTraffic();
    if (!wanted || this.traffic || this.stopped || this.finished === wanted.id) return;
    const options = wanted.options;
    const planned = plannedPurchases(options);
    const from = await purchasesOfRun(this.deps.db, this.scheme, wanted.id);
    if (planned !== null && from >= planned) {
      // Made all its purchases here before (this process, or one before a restart): nothing to start. Its
      // totals are reported once more, which also ends a run too short to make any purchase at all.
      this.finished = wanted.id;
      this.unreported.add(wanted.id);
      await this.reportProgress();
      return;
    }
    const pools = await loadPools(this.deps.db, this.scheme, options.programId);
    const stream = new PurchaseStream(this.adapter, options.seed, pools, mixOf(options), wanted.id);
    stream.seek(from);
    const traffic: Traffic = {
      run: wanted,
      stream,
      busy: false,
      startedMs: performance.now(),
      from,
      planned,
      reportedMs: performance.now(),
      timer: setInterval(() => {
        if (!traffic.busy) this.tick = this.trafficTick(traffic);
      }, TRAFFIC_TICK_MS),
    };
    this.traffic = traffic;
    this.log.info({ run: wanted.id, from }, "traffic started");
  }

  private stopTraffic() {
    if (!this.traffic) return;
    clearInterval(this.traffic.timer);
    this.log.info({ run: this.traffic.run.id, purchases: this.traffic.stream.position }, "traffic stopped");
    this.traffic = undefined;
  }

  /**
   * Makes the purchases that fell due since the last tick (paced in real time) as one batch: their
   * messages handed to the bus together, their records written in one transaction. Progress goes to the
   * service at most once a second, and at the run's end.
   */
  private async trafficTick(t: Traffic): Promise<void> {
    t.busy = true;
    try {
      const rate = t.run.options.rate / t.run.options.schemes.length;
      const due = t.from + Math.floor(((performance.now() - t.startedMs) / 1000) * rate);
      const target = Math.min(due, t.planned ?? Infinity, t.stream.position + MAX_PER_TICK);
      const b = new Batch();
      const before = t.stream.position;
      while (t.stream.position < target && this.traffic === t) {
        const now = this.deps.clock.now();
        const { purchase, plan } = t.stream.next(now);
        this.authorize(b, purchase, plan, t.run.id, SERVICE_ENVIRONMENT, now);
      }
      try {
        await this.commit(b);
      } catch (err) {
        // Made again, under the same ids, at the next tick: a run skips none of its purchases.
        t.stream.seek(before);
        throw err;
      }
      const complete = t.planned !== null && t.stream.position >= t.planned;
      if (complete || performance.now() - t.reportedMs >= REPORT_MS) {
        t.reportedMs = performance.now();
        await this.reportProgress();
      }
      if (complete && this.traffic === t) {
        clearInterval(t.timer);
        this.traffic = undefined;
        this.finished = t.run.id;
        const seconds = (performance.now() - t.startedMs) / 1000;
        this.log.info({ run: t.run.id, purchases: t.stream.position, perSecond: Math.round((t.stream.position - t.from) / seconds) }, "traffic run complete");
      }
    } catch (err) {
      this.log.error({ err }, "traffic tick failed");
    } finally {
      t.busy = false;
    }
  }
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
