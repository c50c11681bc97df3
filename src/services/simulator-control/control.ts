// How the rest of Cardlink drives the simulators, from any process, over the bus only: faults, traffic
// runs and the service clock's advance are settings on the compacted simulator.settings topic (recorded
// in the service's database first, which /admin answers from; simulators in this process hear at once),
// a run's counts come back on simulator.traffic.progress, and test transactions are commands on the scheme's
// simulator.commands.<scheme> topic, so they travel the path network traffic takes. A sandbox's clock and
// its deletion are settings too (./environment-clock.ts waits for the networks' answers to an advance).
import { randomUUID } from "node:crypto";
import type { Bus, Subscription } from "../../platform/bus/bus.ts";
import type { SimulatorSetting, TrafficProgress } from "../../platform/bus/messages.ts";
import { TOPICS, commandTopic } from "../../platform/bus/topics.ts";
import type { Clock } from "../../platform/clock/index.ts";
import type { EnvironmentClock } from "../../platform/clock/environment.ts";
import type { Db } from "../../platform/db.ts";
import { NO_FAULTS, faultsSchema, type Faults } from "../../../simulators/engine/faults.ts";
import { runSetting, type SchemeCounts, type TrafficOptions, type TrafficRun } from "../../../simulators/engine/settings.ts";
import type { Scheme } from "../../../simulators/engine/types.ts";
import { purchaseCommand, purchaseReceipt, stepCommand, stepReceipt, type PurchaseInput, type PurchaseReceipt, type PurchaseRef, type StepAction } from "./commands.ts";
import { awaitEnvironmentAnswers } from "./environment-clock.ts";
import { achievedRate, latestRequestedRun, recordFaults, recordProgress, recordRun, recordRunsStopped, reportedCounts, requestedFaults } from "./control-record.ts";

// The shapes the operator surface validates settings with (the /admin routes name them in the OpenAPI document).
export { faultsShape } from "../../../simulators/engine/faults.ts";
export { trafficOptionsSchema } from "../../../simulators/engine/settings.ts";
export type { PurchaseInput, PurchaseReceipt, PurchaseRef } from "./commands.ts";

export interface TrafficStatus {
  run: TrafficRun | null;
  /** Per scheme of the run: purchases generated and messages sent so far. */
  counts: Partial<Record<Scheme, SchemeCounts>>;
  /** Purchases per second so far, all schemes together (from the start to the latest report); null before one. */
  achievedRate: number | null;
}

export interface SimulatorControl {
  faults(scheme: Scheme): Promise<Faults>;
  setFaults(scheme: Scheme, changes: Partial<Faults>): Promise<Faults>;
  clearFaults(scheme: Scheme): Promise<Faults>;
  startTraffic(options: TrafficOptions): Promise<TrafficStatus>;
  stopTraffic(): Promise<TrafficStatus>;
  trafficStatus(): Promise<TrafficStatus>;
  /** Sends a purchase (auth now, clearing 48–72 h later on the service clock) through the scheme's network. */
  purchase(input: PurchaseInput): Promise<PurchaseReceipt>;
  /** The receipt `purchase` will answer for this purchase id, known before anything is sent. */
  purchaseReceipt(scheme: Scheme, purchaseId: string): PurchaseReceipt;
  /**
   * Clears `amount` of the purchase (what is left when absent) now, instead of at its scheduled clearing,
   * which it replaces: the whole amount at once, or one clearing of part of it.
   */
  clear(ref: PurchaseRef & { amount?: number; duplicate?: boolean }): Promise<PurchaseReceipt>;
  /** Authorises `amount` more on the purchase (an incremental authorisation), before it clears. */
  increment(ref: PurchaseRef & { amount: number }): Promise<PurchaseReceipt>;
  /** The network withdraws what is left uncleared of the authorisation now, as when its expiry falls due. */
  expire(ref: PurchaseRef): Promise<PurchaseReceipt>;
  /** Refunds `amount` (default: what is left) as a negative transaction. */
  refund(ref: PurchaseRef & { amount?: number }): Promise<PurchaseReceipt>;
  /** Voids an authorised purchase that has not cleared. */
  void(ref: PurchaseRef): Promise<PurchaseReceipt>;
  /** Tells the simulators the service clock's total advance (a simulator process's clock follows it). */
  announceClock(offsetMs: number): Promise<void>;
  /** Tells the networks a sandbox's clock as it is made (nothing falls due in it yet, so nothing is waited for). */
  announceEnvironmentClock(environmentId: string, clock: EnvironmentClock): Promise<void>;
  /**
   * Tells the networks a sandbox's clock as an advance moved it, and resolves once each of the three has kept it, run
   * what fell due in the sandbox by it (clearings, voids, refunds, onboarding answers) and published its
   * answers, and the lifecycle workers have applied them — the onboarding replies of that run and every
   * look-up of the sandbox in flight — with their events written. Call it after the service's own due work
   * for the sandbox, which sends the look-ups that fell due. Resolves at the latest after `answersWithinMs`
   * (real time) all the same: `answered` says whether everything came in.
   */
  advanceEnvironmentClock(environmentId: string, clock: EnvironmentClock): Promise<{ answered: boolean }>;
  /** Simulators in this process subscribe so a setting applies before the call that made it answers. */
  onChange(listener: (setting: SimulatorSetting) => Promise<void>): () => void;
}

/** How long (real ms) a sandbox's advance waits for the networks' answers before it answers without them. */
const ENVIRONMENT_ANSWERS_WITHIN_MS = 10_000;

/** A setting's fields that only some kinds carry, none of them set. */
const setting = { scheme: null, version: 0, faults: null, run: null, clockOffsetMs: null, environment: null, clockFrozen: null, ackId: null } as const;

/** `db` is the service's database: the control keeps its record there, never in a simulator's store. */
export function createSimulatorControl({
  db,
  bus,
  clock,
  answersWithinMs = ENVIRONMENT_ANSWERS_WITHIN_MS,
}: {
  db: Db;
  bus: Bus;
  clock: Clock;
  answersWithinMs?: number;
}): SimulatorControl {
  const { announce, onChange } = settingsPublisher(bus, clock);

  async function saveFaults(scheme: Scheme, faults: Faults): Promise<Faults> {
    const version = await recordFaults(db, scheme, faults, clock.now());
    await announce(`faults:${scheme}`, { ...setting, kind: "FAULTS", scheme, version, faults });
    return faults;
  }

  // Keyed by the sandbox: the compacted topic keeps its latest clock, or that it is gone.
  const announceSandboxClock = (environment: string, { frozen, offsetMs }: EnvironmentClock, ackId: string | null) =>
    announce(`clock:${environment}`, { ...setting, kind: "CLOCK", environment, clockOffsetMs: offsetMs, clockFrozen: frozen, ackId });

  const announceRun = (run: TrafficRun) => announce("traffic", { ...setting, kind: "TRAFFIC", run: runSetting(run) });

  async function status(): Promise<TrafficStatus> {
    const run = (await latestRequestedRun(db)) ?? null;
    return { run, counts: run ? await reportedCounts(db, run) : {}, achievedRate: run ? await achievedRate(db, run) : null };
  }

  /** The steps after a purchase name it by id; the messages they cause derive from that id (a step's own, from its command's). */
  async function follow(ref: PurchaseRef, action: StepAction, amount?: number, duplicate?: boolean): Promise<PurchaseReceipt> {
    const commandId = randomUUID();
    await bus.publish(commandTopic(ref.scheme), ref.cardId, stepCommand(ref, action, commandId, clock.now(), amount, duplicate));
    return stepReceipt(ref, action, commandId);
  }

  return {
    faults: (scheme) => requestedFaults(db, scheme),
    async setFaults(scheme, changes) {
      return saveFaults(scheme, faultsSchema.parse({ ...(await requestedFaults(db, scheme)), ...changes }));
    },
    clearFaults: (scheme) => saveFaults(scheme, { ...NO_FAULTS }),
    async startTraffic(options) {
      await announceRun(await recordRun(db, randomUUID(), options, clock.now()));
      return status();
    },
    async stopTraffic() {
      for (const run of await recordRunsStopped(db, clock.now())) await announceRun(run);
      return status();
    },
    trafficStatus: status,
    async purchase(input) {
      const purchaseId = input.purchaseId ?? randomUUID();
      await bus.publish(commandTopic(input.scheme), input.card.id, purchaseCommand(input, purchaseId, randomUUID(), clock.now()));
      return purchaseReceipt(input.scheme, purchaseId, input.withoutAuth ? "clearing" : "auth");
    },
    purchaseReceipt: (scheme, purchaseId) => purchaseReceipt(scheme, purchaseId, "auth"),
    clear: (ref) => follow(ref, "CLEAR", ref.amount, ref.duplicate),
    increment: (ref) => follow(ref, "INCREMENT", ref.amount),
    expire: (ref) => follow(ref, "EXPIRE"),
    void: (ref) => follow(ref, "VOID"),
    refund: (ref) => follow(ref, "REFUND", ref.amount),
    announceClock: (offsetMs) => announce("clock", { ...setting, kind: "CLOCK", clockOffsetMs: offsetMs }),
    announceEnvironmentClock: (environmentId, environmentClock) => announceSandboxClock(environmentId, environmentClock, null),
    async advanceEnvironmentClock(environmentId, environmentClock) {
      const deadline = performance.now() + answersWithinMs;
      const ackId = randomUUID();
      await announceSandboxClock(environmentId, environmentClock, ackId);
      return { answered: await awaitEnvironmentAnswers(db, ackId, environmentId, deadline) };
    },
    onChange,
  };
}

/** Publishes settings on simulator.settings and hands each to the simulators in this process that listen. */
function settingsPublisher(bus: Bus, clock: Clock) {
  const listeners = new Set<(setting: SimulatorSetting) => Promise<void>>();
  return {
    /** Publishes a setting, then hands it to the simulators in this process. */
    async announce(key: string, setting: Omit<SimulatorSetting, "issuedAt">): Promise<void> {
      const value: SimulatorSetting = { ...setting, issuedAt: clock.now().toISOString() };
      await bus.publish(TOPICS.simulatorSettings.name, key, value);
      for (const listener of [...listeners]) await listener(value);
    },
    onChange(listener: (setting: SimulatorSetting) => Promise<void>): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/**
 * The workers' consumer of simulator.traffic.progress: each network's report on a run goes into the
 * service's record, which GET /admin/simulators/traffic answers from.
 */
export async function recordTrafficProgress({ db, bus }: { db: Db; bus: Bus }): Promise<Subscription> {
  return bus.subscribe({
    groupId: "traffic-progress",
    topics: [TOPICS.trafficProgress.name],
    handler: (message) => recordProgress(db, message.value as TrafficProgress),
  });
}
