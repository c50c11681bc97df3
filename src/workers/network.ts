// The workers' side of the networks: they send what is due to the scheme networks
// (onboarding requests, missing-transaction look-ups and card enrolments, including those a failed
// publish left behind)
// and apply the networks' replies from the bus, and record their acknowledgements of a sandbox's clock (which
// the sandbox's advance waits for). Runs in the `workers` role (inside `npm start` too).
import type { Logger } from "pino";
import type { z } from "zod";
import { describeZodError } from "../domain/field-errors.ts";
import { between, date, instant, nonEmpty, uuid, withFieldRules } from "../domain/field-rules.ts";
import type { Bus, BusMessage, Subscription } from "../platform/bus/bus.ts";
import { deadLetter } from "../platform/bus/dead-letter.ts";
import { environmentClockAckSchema, lookupReplySchema, onboardingReplySchema } from "../platform/bus/validators.generated.ts";
import { TOPICS } from "../platform/bus/topics.ts";
import type { Clock } from "../platform/clock/index.ts";
import { dueTime } from "../platform/clock/environment.ts";
import type { Db } from "../platform/db.ts";
import { sendOnboardingRequests } from "../services/catalog/index.ts";
import { answerOnboarding } from "../services/mid-insights/index.ts";
import { sendCommands } from "../platform/network-outbox.ts";
import { applyLookupReply, sendLookups, startDueLookups } from "../services/missing-transactions/index.ts";
import { recordEnvironmentClockAck } from "../services/simulator-control/index.ts";

const GROUP_ID = "lifecycle";

// The replies' structure is their schemas'; these are the rules beyond it.
const onboardingReplies = withFieldRules(onboardingReplySchema, { requestId: nonEmpty, locationId: nonEmpty, respondedAt: instant });
const lookupReplies = withFieldRules(lookupReplySchema, {
  requestId: nonEmpty,
  cardId: nonEmpty,
  transactions: { date, matchScore: between(0, 100, "must be 0 to 100") },
  respondedAt: instant,
});
const clockAcks = withFieldRules(environmentClockAckSchema, { ackId: uuid, environment: uuid, onboardingReplies: uuid, ackedAt: instant });

interface Deps {
  db: Db;
  bus: Bus;
  clock: Clock;
  log: Logger;
}

/** Sends what is due now: look-ups whose pending period is over in their environment, and every request not sent yet. */
export async function sendDue({ db, bus, clock }: Pick<Deps, "db" | "bus" | "clock">): Promise<void> {
  await startDueLookups(db, await dueTime(db, clock));
  const now = clock.now();
  while ((await sendLookups(db, bus, now)) === 500);
  while ((await sendOnboardingRequests(db, bus, now)) === 500);
  while ((await sendCommands(db, bus, now)) === 500);
}

async function onReply(deps: Deps, message: BusMessage): Promise<void> {
  if (message.topic === TOPICS.onboardingReplies.name) await applyReply(deps, message, onboardingReplies, answerOnboarding);
  else if (message.topic === TOPICS.lookupReplies.name) await applyReply(deps, message, lookupReplies, applyLookupReply);
  else await applyReply(deps, message, clockAcks, recordAck);
}

/** A network's acknowledgement of a sandbox's clock, kept for the advance that waits for it. */
async function recordAck(db: Db, ack: z.infer<typeof clockAcks>): Promise<string> {
  await recordEnvironmentClockAck(db, ack);
  return "applied";
}

/** Applies one reply with `apply`, or dead-letters it with the fields it got wrong. */
async function applyReply<R>(
  deps: Deps,
  message: BusMessage,
  schema: z.ZodType<R>,
  apply: (db: Db, reply: R, now: Date) => Promise<string>,
): Promise<void> {
  const now = deps.clock.now();
  const parsed = schema.safeParse(message.value);
  if (!parsed.success) {
    const reason = describeZodError(parsed.error);
    deps.log.warn({ topic: message.topic, offset: message.offset, reason }, "dead-lettering a network reply");
    await deadLetter(deps.bus, { message, payload: message.value, reason, groupId: GROUP_ID, at: now });
    return;
  }
  // A reply is applied at the moment the network answered, on its environment's clock (a sandbox's own).
  const { respondedAt } = parsed.data as { respondedAt?: string };
  const outcome = await apply(deps.db, parsed.data, respondedAt ? new Date(respondedAt) : now);
  if (outcome !== "applied") deps.log.debug({ topic: message.topic, key: message.key, outcome }, "network reply ignored");
}

/**
 * Starts the workers' side of the networks: the reply consumer, and the sender on every clock advance and every
 * `intervalMs` of real time. Returns the stop.
 */
export async function startLifecycle(deps: Deps, intervalMs = 1000): Promise<() => Promise<void>> {
  const subscription: Subscription = await deps.bus.subscribe({
    groupId: GROUP_ID,
    topics: [TOPICS.onboardingReplies.name, TOPICS.lookupReplies.name, TOPICS.environmentClockAcks.name],
    handler: (m) => onReply(deps, m),
  });
  let chain: Promise<void> = Promise.resolve();
  const send = () => {
    chain = chain.then(() => sendDue(deps)).catch((err: unknown) => deps.log.error({ err }, "sending network requests failed"));
    return chain;
  };
  const off = deps.clock.onAdvance(send);
  const timer = setInterval(() => void send(), intervalMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    off();
    await chain;
    await subscription.stop();
  };
}
