// One simulated card network at work: it takes commands, onboarding requests, look-ups and the
// operator's settings from the bus, publishes its native transaction messages and replies, clears on
// the service clock, generates traffic when a run asks for it (reporting its progress back), and passes
// everything it publishes through the operator's faults. A sandbox's commands and requests run on that
// sandbox's clock (./environments.ts), and so does its due work; ./sandbox-settings.ts applies the service's
// settings for a sandbox. How it answers a look-up is ./lookups.ts; its parts are
// ./purchases.ts, ./due.ts, ./onboarding.ts and ./traffic.ts, functions over its state in ./batch.ts.
import type { BusMessage, Subscription } from "../../src/platform/bus/bus.ts";
import { deadLetter } from "../../src/platform/bus/dead-letter.ts";
import type { SimulatorCommand, SimulatorSetting } from "../../src/platform/bus/messages.ts";
import { TOPICS, commandTopic } from "../../src/platform/bus/topics.ts";
import { faultsSchema, type Faults } from "./faults.ts";
import { saveCard } from "./store.ts";
import { answerLookup } from "./lookups.ts";
import { cardEnrolments, lookupRequests, simulatorCommands } from "./requests.ts";
import type { SchemeAdapter } from "./scheme.ts";
import { clockOf, environmentKey, forgotten, readEnvironments, timeIn } from "./environments.ts";
import { applySandboxSetting } from "./sandbox-settings.ts";
import { readFaults, runOfSetting, saveClockOffset, saveFaults, saveRun, storeId } from "./settings.ts";
import { Batch, Rejected, commit, environmentOf, networkOf, parse, readAhead, type Network, type NetworkDeps } from "./batch.ts";
import { clear, expire, increment, purchaseFromCommand, refund, voidPurchase } from "./purchases.ts";
import { dueRun, runDue } from "./due.ts";
import { onboard } from "./onboarding.ts";
import { noTraffic, stopTraffic, syncTraffic } from "./traffic.ts";

/** How often (real time) the network looks for due work, new faults and traffic runs. */
const POLL_MS = 1000;

export class NetworkSimulator {
  readonly scheme;
  private readonly net: Network;
  private subscription: Subscription | undefined;
  private settings: Subscription | undefined;
  private timer: NodeJS.Timeout | undefined;
  private offAdvance: (() => void) | undefined;
  private readonly traffic = noTraffic();

  constructor(
    readonly adapter: SchemeAdapter,
    private readonly deps: NetworkDeps,
  ) {
    this.scheme = adapter.scheme;
    this.net = networkOf(adapter, deps);
  }

  /** The operator's faults on this network, as last read from its store. */
  get faults(): Faults {
    return this.net.faults;
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
    this.offAdvance = this.deps.clock.onAdvance((now) => runDue(this.net, now));
    // On a running clock nothing calls advance: due work is polled for, as are settings other processes wrote.
    this.timer = setInterval(() => {
      void this.refresh()
        .then(() => runDue(this.net, this.deps.clock.now()))
        .catch((err: unknown) => this.net.log.error({ err }, "simulator poll failed"));
    }, POLL_MS);
  }

  async stop(): Promise<void> {
    this.net.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.offAdvance?.();
    stopTraffic(this.net, this.traffic);
    await this.traffic.tick;
    await this.subscription?.stop();
    await this.settings?.stop();
    await this.net.dueChain;
  }

  /** Reads faults and the traffic run from its store (another process of this network may have changed them). */
  async refresh(): Promise<void> {
    if (this.net.stopped) return;
    this.net.faults = await readFaults(this.deps.db, this.scheme);
    await syncTraffic(this.net, this.traffic);
  }

  // ---------------------------------------------------------------- messages from the bus

  private async onMessage(message: BusMessage): Promise<void> {
    const value = message.value as { scheme?: string };
    const forAll = message.topic === TOPICS.simulatorSettings.name && value.scheme === null; // traffic runs, the clock
    if (value.scheme !== this.scheme && !forAll) return; // another network's
    try {
      if (message.topic === TOPICS.simulatorSettings.name) await this.apply(message.value as SimulatorSetting);
      else if (message.topic === TOPICS.onboardingRequests.name) await onboard(this.net, message.value);
      else if (message.topic === TOPICS.lookupRequests.name) await this.lookup(message.value);
      else if (message.topic === TOPICS.cardEnrolments.name) await this.enrol(message.value);
    } catch (err) {
      if (!(err instanceof Rejected)) throw err; // infrastructure: leave uncommitted, try again
      await this.deadLetter(message, err.message);
    }
  }

  private async deadLetter(message: BusMessage, reason: string): Promise<void> {
    this.net.log.warn({ topic: message.topic, offset: message.offset, reason }, "dead-lettering a message");
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
        const command = parse(simulatorCommands, message.value);
        if (command.scheme !== this.scheme) throw new Rejected(`scheme: ${command.scheme} on the ${this.scheme} network's command topic`);
        commands.push({ message, command });
      } catch (err) {
        if (!(err instanceof Rejected)) throw err;
        dead.push({ message, reason: err.message });
      }
    }
    const b = new Batch();
    await readAhead(
      this.net,
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
    await commit(this.net, b);
    await Promise.all(dead.sort((x, y) => x.message.offset - y.message.offset).map((d) => this.deadLetter(d.message, d.reason)));
  }

  /** One command, at its environment's time. */
  private async onCommand(b: Batch, command: SimulatorCommand): Promise<void> {
    const environment = environmentKey(command.environment);
    const now = timeIn(this.deps.clock, b.environments, environment);
    switch (command.action) {
      case "PURCHASE":
        return purchaseFromCommand(this.net, b, command, environment, now);
      case "CLEAR":
        // A clearing asked for takes over from the one the network scheduled.
        return clear(this.net, b, command.purchaseId, command.amount, command.commandId, now, { takeOver: true, duplicate: command.duplicate ?? false });
      case "VOID":
        return voidPurchase(this.net, b, command.purchaseId, now);
      case "REFUND":
        return refund(this.net, b, command.purchaseId, command.commandId, command.amount, now);
      case "INCREMENT":
        if (command.amount === null) throw new Rejected("amount: required for INCREMENT");
        return increment(this.net, b, command.purchaseId, command.commandId, command.amount, now);
      case "EXPIRE":
        return expire(this.net, b, command.purchaseId, now);
    }
  }

  /** A card enrolled in (or removed from) a program: from now on the network knows it (a deleted sandbox's, not). */
  private async enrol(value: unknown): Promise<void> {
    const e = parse(cardEnrolments, value);
    const { key, environments } = await environmentOf(this.net, e.environment);
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
      const refused = await applySandboxSetting({ ...this.deps, scheme: this.scheme, runDue: (now, environment) => dueRun(this.net, now, environment) }, setting);
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
        this.net.log.debug({ kind: setting.kind, clockOffsetMs: setting.clockOffsetMs }, "setting applied");
        return;
      case "FORGET":
        throw new Rejected("environment: required for a FORGET setting");
    }
    await this.refresh();
    this.net.log.info({ kind: setting.kind, version: setting.version, ...(setting.run ? { run: setting.run.id, state: setting.run.state } : {}) }, "setting applied");
  }

  // ---------------------------------------------------------------- missing-transaction look-ups

  async lookup(value: unknown): Promise<void> {
    const request = parse(lookupRequests, value);
    const { key: environment, environments } = await environmentOf(this.net, request.environment);
    if (forgotten(environments, environment)) return; // a deleted sandbox's: unanswered
    // The search sees everything this network has done by now: clearings that fell due (each environment on
    // its clock) are sent first (a look-up could otherwise overtake the poll that sends them, and miss a settlement).
    if (request.live) await runDue(this.net, this.deps.clock.now());
    const clock = clockOf(this.deps.clock, environments, environment);
    const reply = await answerLookup({ ...this.deps, clock, adapter: this.adapter, dice: this.net.dice, faults: this.net.faults }, request);
    const publish = () => this.deps.bus.publish(TOPICS.lookupReplies.name, request.cardId, reply);
    // The test environment has no network contact: no fault touches its answers.
    if (!request.live) await publish();
    else await this.net.dice.deliver(this.net.faults, publish);
  }
}
