// Runs simulated networks in this process: all three inside `npm start`, one per `simulator --scheme`.
import type { Bus } from "../../src/platform/bus/bus.ts";
import type { Clock } from "../../src/platform/clock/index.ts";
import type { SimulatorDb as Db } from "../engine/db.ts";
import type { Logger } from "pino";
import type { SimulatorSetting } from "../../src/platform/bus/messages.ts";
import { NetworkSimulator } from "../engine/network.ts";
import { ADAPTERS } from "../schemes/index.ts";
import type { Scheme } from "../engine/types.ts";

/** The service's control of the simulators, when it runs in this process: its settings as they change. */
export interface SettingsSource {
  onChange(listener: (setting: SimulatorSetting) => Promise<void>): () => void;
}

export interface RunningSimulators {
  networks: NetworkSimulator[];
  stop(): Promise<void>;
}

/**
 * `db` is the simulators' own store. `control`, when the service runs in this process too, hands the
 * networks its settings at once; they come over the bus all the same.
 */
export async function startSimulators(
  deps: { db: Db; bus: Bus; clock: Clock; log: Logger; seed: number; control?: SettingsSource },
  schemes: readonly Scheme[],
): Promise<RunningSimulators> {
  const networks = schemes.map((scheme) => new NetworkSimulator(ADAPTERS[scheme], deps));
  for (const network of networks) await network.start();
  const off = deps.control?.onChange(async (setting) => {
    for (const network of networks) await network.apply(setting);
  });
  return {
    networks,
    async stop() {
      off?.();
      for (const network of networks) await network.stop();
    },
  };
}
