// The settings a simulated network takes off simulator.settings: kept in its own store, an older faults
// version never undoing a newer one, a redelivered run start never restarting or stopping a run, the
// clock's advance only growing, and a malformed setting dead-lettered with the field named.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DeadLetter, SimulatorSetting } from "../../src/platform/bus/messages.ts";
import { deadLetterTopic } from "../../src/platform/bus/dead-letter.ts";
import { TOPICS } from "../../src/platform/bus/topics.ts";
import { NO_FAULTS } from "../../simulators/engine/faults.ts";
import { latestRun, readClockOffset, readFaults, runSetting, trafficOptionsSchema, type TrafficRun } from "../../simulators/engine/settings.ts";
import { readTopic, simulatorHarness, waitFor, type SimulatorHarness } from "./helpers.ts";

let h: SimulatorHarness;
beforeAll(async () => {
  h = await simulatorHarness(["visa", "amex"]);
});
afterAll(() => h.close());

const base = {
  scheme: null,
  version: 0,
  faults: null,
  run: null,
  clockOffsetMs: null,
  issuedAt: "2026-01-05T12:00:00.000Z",
  environment: null,
  clockFrozen: null,
  ackId: null,
} as const;
const visa = () => h.simulators.networks.find((n) => n.scheme === "visa")!;
const faults = (version: number, dropRate: number): SimulatorSetting => ({ ...base, kind: "FAULTS", scheme: "visa", version, faults: { ...NO_FAULTS, dropRate } });
const run = (id: string, state: TrafficRun["state"]): SimulatorSetting => ({
  ...base,
  kind: "TRAFFIC",
  run: runSetting({ id, state, started: "2026-01-05T12:00:00.000Z", stopped: null, options: trafficOptionsSchema.parse({ rate: 1, seed: 1, schemes: ["amex"] }) }),
});

describe("settings a network keeps", () => {
  it("keeps the newest faults version: a redelivered older one changes nothing", async () => {
    await visa().apply(faults(41, 0.5));
    await visa().apply(faults(40, 0.1));
    expect(await readFaults(h.services.db, "visa")).toMatchObject({ dropRate: 0.5 });
    expect(visa().faults.dropRate).toBe(0.5);
    await visa().apply(faults(42, 0));
    expect(visa().faults.dropRate).toBe(0);
  });

  it("starts a run once: a redelivered start neither restarts it nor stops the run after it", async () => {
    await visa().apply(run("run-a", "running"));
    await visa().apply(run("run-b", "running"));
    await visa().apply(run("run-a", "running"));
    expect(await latestRun(h.services.db)).toMatchObject({ id: "run-b", state: "running" });
    const [a] = await h.services.db.query<{ state: string }>("select state from simulator_traffic where id = 'run-a'");
    expect(a).toEqual({ state: "stopped" });
    await visa().apply(run("run-b", "stopped"));
    expect(await latestRun(h.services.db)).toMatchObject({ id: "run-b", state: "stopped" });
  });

  it("keeps the largest clock advance it was told", async () => {
    await visa().apply({ ...base, kind: "CLOCK", clockOffsetMs: 86_400_000 });
    await visa().apply({ ...base, kind: "CLOCK", clockOffsetMs: 3_600_000 });
    expect(await readClockOffset(h.services.db)).toBe(86_400_000);
  });

  it("dead-letters a setting it cannot apply, naming the field", async () => {
    const dead = await readTopic<DeadLetter>(h, deadLetterTopic(TOPICS.simulatorSettings.name));
    await h.services.bus.publish(TOPICS.simulatorSettings.name, "faults:visa", faults(50, 2));
    await waitFor(() => dead.values.length > 0);
    expect(dead.values[0]!.reason).toBe("faults: dropRate: must be between 0 and 1");
    expect(visa().faults.dropRate).toBe(0);
  });
});
