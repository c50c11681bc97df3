// The background roles, started the same way by `npm start` (all of them, in one process) and by the
// one-role commands (`qualifier`, `dispatcher`, `workers`, `simulator --scheme X`) on Kafka.
import type { Runtime } from "./runtime.ts";
import { topicSpecs } from "../platform/bus/topics.ts";
import { startSimulators } from "../../simulators/host/hub.ts";
import { recordTrafficProgress } from "../services/simulator-control/index.ts";
import { inProcessSimulatorStore } from "./simulator.ts";
import type { Scheme } from "../platform/bus/messages.ts";
import { startQualifier, type Outcome } from "../qualifier/index.ts";
import { createDispatcher } from "../dispatcher/dispatcher.ts";
import { sweepDue } from "../workers/due.ts";
import { startLifecycle } from "../workers/network.ts";
import { sweepExportMail } from "../workers/export-mail.ts";

export type Role = "simulators" | "qualifier" | "dispatcher" | "workers";
export const ALL_ROLES: readonly Role[] = ["simulators", "qualifier", "dispatcher", "workers"];

export interface RoleOptions {
  schemes?: readonly Scheme[];
  /** The dispatcher's poll interval in real milliseconds. */
  dispatchPollMs?: number;
  onOutcome?: (outcome: Outcome) => void;
}

export interface RunningRoles {
  /**
   * Stops in the order a drain needs: the consumers first (simulators, qualifier: each finishes its
   * batch), then the dispatcher (finishes or releases its claims), then the due-work and mail sweeps.
   */
  stop(): Promise<void>;
}

export async function startRoles(services: Runtime, roles: readonly Role[], options: RoleOptions = {}): Promise<RunningRoles> {
  const consumers: (() => Promise<void> | void)[] = [];
  const after: (() => Promise<void> | void)[] = [];
  if (roles.some((r) => r !== "dispatcher")) await services.bus.createTopics(topicSpecs());
  if (roles.includes("simulators")) {
    const store = await inProcessSimulatorStore(services.config, services.db);
    const running = await startSimulators(
      { ...services, db: store.db, seed: services.config.SIMULATOR_SEED, control: services.simulators },
      options.schemes ?? ["visa", "mastercard", "amex"],
    );
    consumers.push(async () => {
      await running.stop();
      await store.close();
    });
  }
  // In one process the qualifier tells the dispatcher about new events at once; across processes the
  // dispatcher finds them at its next poll.
  const dispatcher = roles.includes("dispatcher")
    ? createDispatcher({ ...services, targets: services.config.WEBHOOK_TARGETS, ...(options.dispatchPollMs ? { pollMs: options.dispatchPollMs } : {}) })
    : undefined;
  if (roles.includes("qualifier")) {
    const subscription = await startQualifier({
      ...services,
      onOutcome: (outcome) => {
        if (outcome.kind === "recorded" && outcome.events.length > 0) dispatcher?.kick();
        options.onOutcome?.(outcome);
      },
    });
    consumers.push(() => subscription.stop());
  }
  if (dispatcher) {
    dispatcher.start();
    after.push(() => dispatcher.stop());
  }
  if (roles.includes("workers")) {
    after.push(sweepDue(services), sweepExportMail(services));
    consumers.push(await startLifecycle(services));
    const progress = await recordTrafficProgress(services);
    consumers.push(() => progress.stop());
  }
  return {
    async stop() {
      for (const stop of [...consumers, ...after]) await stop();
    },
  };
}
