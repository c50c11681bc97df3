// The service's settings for one sandbox at a network: its clock (made or moved), which the network keeps,
// runs the sandbox's due work by and acknowledges on network.clock.acks, listing the answers it published,
// so the sandbox's advance can wait for them to be applied; and its deletion, after which the network
// forgets it. See docs/sandboxes.md, "The networks".
import type { Bus } from "../../src/platform/bus/bus.ts";
import type { EnvironmentClockAck, SimulatorSetting } from "../../src/platform/bus/messages.ts";
import { TOPICS } from "../../src/platform/bus/topics.ts";
import type { Clock } from "../../src/platform/clock/index.ts";
import { environmentNow } from "../../src/platform/clock/environment.ts";
import type { SimulatorDb as Db } from "./db.ts";
import { forgetEnvironment, saveEnvironmentClock } from "./environments.ts";
import type { Scheme } from "./types.ts";

/** What applying a sandbox's setting needs of its network. */
export interface SandboxNetwork {
  db: Db;
  bus: Bus;
  /** The service clock as the network follows it. */
  clock: Clock;
  scheme: Scheme;
  /** Runs what fell due in the sandbox by its time over the service's `now`; resolves with the onboarding replies published. */
  runDue(now: Date, environment: string): Promise<string[]>;
}

/**
 * Applies a CLOCK or FORGET setting that names a sandbox (`setting.environment`). Returns why it cannot
 * (the message is then dead-lettered), or undefined once applied. A CLOCK with an ackId is acknowledged
 * after the sandbox's due run and after the replies it made were handed to the bus, and only then.
 */
export async function applySandboxSetting(net: SandboxNetwork, setting: SimulatorSetting): Promise<string | undefined> {
  const environment = setting.environment!;
  const now = net.clock.now();
  if (setting.kind === "FORGET") {
    await forgetEnvironment(net.db, net.scheme, environment, now);
    return undefined;
  }
  if (setting.kind !== "CLOCK") return `environment: only CLOCK and FORGET settings name a sandbox, not ${setting.kind}`;
  if (setting.clockOffsetMs === null) return "clockOffsetMs: required for a CLOCK setting";
  const clock = { frozen: setting.clockFrozen ?? false, offsetMs: setting.clockOffsetMs };
  await saveEnvironmentClock(net.db, environment, clock, now);
  const answered = await net.runDue(net.clock.now(), environment);
  if (setting.ackId === null) return undefined;
  const ack: EnvironmentClockAck = {
    ackId: setting.ackId,
    scheme: net.scheme,
    environment,
    onboardingReplies: answered,
    ackedAt: environmentNow(net.clock, clock).toISOString(),
  };
  await net.bus.publish(TOPICS.environmentClockAcks.name, environment, ack);
  return undefined;
}
