// A sandbox's clock at the networks, from the service's side: the advance publishes the sandbox's CLOCK
// setting with an ackId; each network keeps the clock, runs what fell due in the sandbox and publishes its
// answers, then acknowledges on network.clock.acks, listing the onboarding replies it published; the
// lifecycle workers record each acknowledgement (recordEnvironmentClockAck). The advance waits, woken by
// notifications, for the three acknowledgements and then for every listed reply, and every look-up of the
// sandbox in flight, to be applied (their events written): then its answer holds the networks' answers.
import type { Db } from "../../platform/db.ts";
import { waitForRow } from "../../platform/wait-for-row.ts";
import { OUTBOX_WRITTEN } from "../../platform/outbox.ts";
import type { EnvironmentClockAck, SimulatorSetting } from "../../platform/bus/messages.ts";
import { SCHEMES } from "../../domain/scheme.ts";
import type { NetworkCommand } from "../../platform/network-outbox.ts";
import { anyOnboardingUnanswered } from "../catalog/index.ts";
import { anyLookupInFlight } from "../missing-transactions/index.ts";
import { TOPICS } from "../../platform/bus/topics.ts";

/** Notified when an acknowledgement is recorded (migration 028). */
export const CLOCK_ACKED = "cardlink_clock_acks";

/** Keeps a network's acknowledgement for the advance that waits for it; those nobody took for an hour go. */
export async function recordEnvironmentClockAck(db: Db, ack: EnvironmentClockAck): Promise<void> {
  await db.query(
    `with stale as (delete from environment_clock_acks where received < now() - interval '1 hour')
     insert into environment_clock_acks (ack_id, scheme, environment, onboarding_replies) values ($1, $2, $3, $4::uuid[])
     on conflict (ack_id, scheme) do nothing`,
    [ack.ackId, ack.scheme, ack.environment, [...ack.onboardingReplies]],
  );
}

/**
 * Waits until the three networks have acknowledged the setting `ackId` and what they answered is applied:
 * no onboarding reply they listed still unanswered at the service, no live look-up of the sandbox still
 * processing. True when all of it came in by `deadline` (`performance.now()`), false when the wait ended
 * there (a network not running, a reply a drop fault kept from the bus).
 */
export async function awaitEnvironmentAnswers(db: Db, ackId: string, environment: string, deadline: number): Promise<boolean> {
  try {
    const replies = await waitForRow(db, CLOCK_ACKED, deadline, async () => {
      const acks = await db.query<{ onboarding_replies: string[] }>("select onboarding_replies from environment_clock_acks where ack_id = $1", [ackId]);
      return acks.length >= SCHEMES.length ? acks.flatMap((a) => a.onboarding_replies) : undefined;
    });
    if (replies === undefined) return false;
    const applied = await waitForRow(db, OUTBOX_WRITTEN, deadline, async () => {
      const [unanswered, inFlight] = await Promise.all([anyOnboardingUnanswered(db, replies), anyLookupInFlight(db, environment)]);
      return unanswered || inFlight ? undefined : true;
    });
    return applied === true;
  } finally {
    await db.query("delete from environment_clock_acks where ack_id = $1", [ackId]);
  }
}

/**
 * The setting that makes every network forget a deleted sandbox (its cards, merchants, purchases and
 * schedule), as a network command: written in the transaction that deletes it, sent after the commit.
 */
export function forgetEnvironmentCommand(environmentId: string, now: Date): NetworkCommand {
  const value: SimulatorSetting = {
    kind: "FORGET",
    scheme: null,
    version: 0,
    faults: null,
    run: null,
    clockOffsetMs: null,
    environment: environmentId,
    clockFrozen: null,
    ackId: null,
    issuedAt: now.toISOString(),
  };
  // Keyed as the sandbox's clock: the compacted topic keeps that it is gone.
  return { topic: TOPICS.simulatorSettings.name, key: `clock:${environmentId}`, value };
}
