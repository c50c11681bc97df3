// Shared by the simulator suites: a harness with simulators running on its in-memory bus, a reader
// that records what lands on a topic, and the service records traffic and commands draw on.
import { randomUUID } from "node:crypto";
import type { BusMessage } from "../../src/platform/bus/bus.ts";
import { startSimulators, type RunningSimulators } from "../../simulators/host/hub.ts";
import { recordTrafficProgress } from "../../src/services/simulator-control/control.ts";
import type { Scheme } from "../../simulators/engine/types.ts";
import { createHarness, type Harness } from "../support/harness.ts";

export interface SimulatorHarness extends Harness {
  simulators: RunningSimulators;
}

/** The harness with simulators on its database (as under `npm start`) and the workers' record of traffic progress. */
export async function simulatorHarness(schemes: Scheme[], seed = 1): Promise<SimulatorHarness> {
  const h = await createHarness();
  const progress = await recordTrafficProgress(h.services);
  const harness: SimulatorHarness = {
    ...h,
    simulators: await startSimulators({ ...h.services, seed, control: h.services.simulators }, schemes),
    async close() {
      // Whatever simulators run at the end: a test may have restarted them.
      await harness.simulators.stop();
      await progress.stop();
      await h.close();
    },
  };
  return harness;
}

export interface TopicReader<T> {
  messages: BusMessage<T>[];
  values: T[];
  /** Resolves once `n` messages (in all) have arrived. */
  until(n: number, ms?: number): Promise<T[]>;
  /** Waits a moment and checks nothing more than `n` arrived. */
  settled(n: number, ms?: number): Promise<void>;
}

/** Records a topic from its start in a group of its own. */
export async function readTopic<T>(h: Harness, topic: string): Promise<TopicReader<T>> {
  const messages: BusMessage<T>[] = [];
  await h.services.bus.subscribe({
    groupId: `test-reader-${randomUUID()}`,
    topics: [topic],
    handler: async (m) => void messages.push(m as BusMessage<T>),
  });
  const reader: TopicReader<T> = {
    messages,
    get values() {
      return messages.map((m) => m.value);
    },
    async until(n, ms = 5_000) {
      const end = Date.now() + ms;
      while (messages.length < n) {
        if (Date.now() > end) throw new Error(`${topic}: saw ${messages.length} of ${n} messages`);
        await new Promise((r) => setTimeout(r, 10));
      }
      return reader.values;
    },
    async settled(n, ms = 200) {
      await new Promise((r) => setTimeout(r, ms));
      if (messages.length !== n) throw new Error(`${topic}: expected ${n} messages, saw ${messages.length}`);
    },
  };
  return reader;
}

export async function waitFor(condition: () => boolean | Promise<boolean>, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A location input for PURCHASE commands (the shape the API will pass from its location record). */
export const sampleLocation = (overrides: Partial<{ id: string; countryCode: string; timezone: string }> = {}) => ({
  id: overrides.id ?? randomUUID(),
  name: "Corner Café",
  address: "1 High Street",
  city: "London",
  postcode: "N1 9GU",
  countryCode: overrides.countryCode ?? "GBR",
  timezone: overrides.timezone ?? "Europe/London",
});

export const sampleCard = (scheme: Scheme) => ({
  id: randomUUID(),
  firstSix: scheme === "visa" ? "444400" : scheme === "mastercard" ? "555500" : "340000",
  lastFour: scheme === "amex" ? "0311" : scheme === "visa" ? "4111" : "5111",
});
