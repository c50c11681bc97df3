// The lifecycle workers' side of the networks: they send what is due to the scheme networks
// (onboarding requests, missing-transaction look-ups and card enrolments, including those a failed
// publish left behind)
// and apply the networks' replies from the bus. Runs in the `workers` role (inside `npm start` too).
import type { Logger } from "pino";
import { z } from "zod";
import { describeZodError } from "../domain/field-errors.ts";
import type { Bus, BusMessage, Subscription } from "../bus/bus.ts";
import { deadLetter } from "../bus/dead-letter.ts";
import { LOOKUP_ERROR_CODES, type LookupReply, type OnboardingReply } from "../bus/messages.ts";
import { TOPICS } from "../bus/topics.ts";
import type { Clock } from "../clock/index.ts";
import type { Db } from "../services/db.ts";
import { applyOnboardingReply, sendOnboardingRequests } from "../services/location-sync.ts";
import { sendCommands } from "../services/network-outbox.ts";
import { applyLookupReply, sendLookups, startDueLookups } from "../services/missing-transaction-requests.ts";

const GROUP_ID = "lifecycle";
const scheme = z.enum(["visa", "mastercard", "amex"]);
const instant = z.iso.datetime({ offset: true, message: "must be an ISO 8601 instant" });
const id = z.string().min(1, "must not be empty");
const maybe = z.string().nullable();
const merchantIds = z.object({
  vmid: maybe,
  vsid: maybe,
  visaAcquiringMid: maybe,
  visaBin: maybe,
  mcLocationId: maybe,
  mcAcquiringMid: maybe,
  seNumber: maybe,
  merchantName: maybe,
});

const onboardingReplySchema = z.object({
  requestId: id,
  scheme,
  locationId: id,
  status: z.enum(["ACTIVE", "NOT_FOUND"]),
  reason: maybe,
  mids: z.array(merchantIds),
  respondedAt: instant,
}) satisfies z.ZodType<OnboardingReply>;

const lookupReplySchema = z.object({
  requestId: id,
  scheme,
  cardId: id,
  outcome: z.enum(["SUCCEEDED", "FAILED"]),
  error: z.object({ code: z.enum(LOOKUP_ERROR_CODES), message: z.string() }).nullable(),
  transactions: z.array(
    z.object({
      amount: z.number(),
      date: z.iso.date({ message: "must be a date, YYYY-MM-DD" }),
      networkStatus: z.enum(["SUCCEED", "MID-NOT-ASSIGNED"]),
      merchantName: z.string(),
      merchantCity: z.string(),
      matchScore: z.number().min(0, "must be 0 to 100").max(100, "must be 0 to 100"),
      type: z.enum(["settlement", "authorization"]).nullable(),
      transactionId: z.string(),
      vmid: maybe,
      vsid: maybe,
      visaStoreName: maybe,
      visaAcquiringMid: maybe,
      visaBin: maybe,
      mcLocationId: maybe,
      mcAcquiringMid: maybe,
      seNumber: maybe,
    }),
  ),
  respondedAt: instant,
}) satisfies z.ZodType<LookupReply>;

interface Deps {
  db: Db;
  bus: Bus;
  clock: Clock;
  log: Logger;
}

/** Sends what is due at `now`: look-ups whose pending period is over, and every request not sent yet. */
export async function sendDue({ db, bus }: Pick<Deps, "db" | "bus">, now: Date): Promise<void> {
  await startDueLookups(db, now);
  while ((await sendLookups(db, bus, now)) === 500);
  while ((await sendOnboardingRequests(db, bus, now)) === 500);
  while ((await sendCommands(db, bus, now)) === 500);
}

async function onReply(deps: Deps, message: BusMessage): Promise<void> {
  const now = deps.clock.now();
  const onboarding = message.topic === TOPICS.onboardingReplies.name;
  const parsed = onboarding ? onboardingReplySchema.safeParse(message.value) : lookupReplySchema.safeParse(message.value);
  if (!parsed.success) {
    const reason = describeZodError(parsed.error);
    deps.log.warn({ topic: message.topic, offset: message.offset, reason }, "dead-lettering a network reply");
    await deadLetter(deps.bus, { message, payload: message.value, reason, groupId: GROUP_ID, at: now });
    return;
  }
  const outcome = onboarding
    ? await applyOnboardingReply(deps.db, parsed.data as OnboardingReply, now)
    : await applyLookupReply(deps.db, parsed.data as LookupReply, now);
  if (outcome !== "applied") deps.log.debug({ topic: message.topic, requestId: parsed.data.requestId, outcome }, "network reply ignored");
}

/**
 * Starts the lifecycle workers: the reply consumer, and the sender on every clock advance and every
 * `intervalMs` of real time. Returns the stop.
 */
export async function startLifecycle(deps: Deps, intervalMs = 1000): Promise<() => Promise<void>> {
  const subscription: Subscription = await deps.bus.subscribe({
    groupId: GROUP_ID,
    topics: [TOPICS.onboardingReplies.name, TOPICS.lookupReplies.name],
    handler: (m) => onReply(deps, m),
  });
  let chain: Promise<void> = Promise.resolve();
  const send = (now: Date) => {
    chain = chain.then(() => sendDue(deps, now)).catch((err: unknown) => deps.log.error({ err }, "sending network requests failed"));
    return chain;
  };
  const off = deps.clock.onAdvance(send);
  const timer = setInterval(() => void send(deps.clock.now()), intervalMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    off();
    await chain;
    await subscription.stop();
  };
}
