// A network's due work, each environment on its clock: what fell due (clearings, increments, expiries,
// clearings sent again, voids, refunds, onboarding replies) run 200 at a time as batches, one run after another.
import { TOPICS } from "../../src/platform/bus/topics.ts";
import { dueBefore, type DueIn } from "./store.ts";
import { Batch, Rejected, commit, purchaseOrReject, readAhead, reportProgress, type Network } from "./batch.ts";
import { clear, expire, increment, refund, resend, voidPurchase } from "./purchases.ts";

/** Sends whatever fell due by `now` (service time) in every environment; runs one at a time (clock advances and polls may overlap). */
export function runDue(net: Network, now: Date): Promise<void> {
  if (!net.stopped) void dueRun(net, now, null).catch(() => undefined);
  return net.dueChain;
}

/**
 * One run of due work after those before it: every environment's (each at its own time over the service's
 * `now`), or one sandbox's alone. Resolves with the onboarding replies it published; rejects when it failed.
 */
export function dueRun(net: Network, now: Date, environment: string | null): Promise<string[]> {
  const run = net.dueChain.then(() => drainDue(net, now, environment));
  net.dueChain = run.then(
    () => undefined,
    (err: unknown) => net.log.error({ err }, "due work failed"),
  );
  return run;
}

/** Due work 200 at a time, each 200 a batch: its messages sent together, its changes and removal written at once. */
async function drainDue(net: Network, now: Date, environment: string | null): Promise<string[]> {
  const answered: string[] = [];
  for (;;) {
    const due = await dueBefore(net.deps.db, net.scheme, { now, offsetMs: net.deps.clock.offsetMs }, 200, environment);
    const b = new Batch();
    await readAhead(
      net,
      b,
      due.flatMap((d) => ("purchaseId" in d.payload ? [d.payload.purchaseId] : [])),
      [],
    );
    for (const d of due) {
      try {
        await runOne(net, b, d);
      } catch (err) {
        if (!(err instanceof Rejected)) throw err;
        net.log.warn({ due: d.id, reason: err.message }, "due work no longer applies");
      }
      b.done.push(d.id);
    }
    await commit(net, b);
    answered.push(...b.answered);
    await reportProgress(net);
    if (due.length < 200) return answered;
  }
}

/** One piece of due work, at its due time (in its environment's time). */
async function runOne(net: Network, b: Batch, due: DueIn): Promise<void> {
  switch (due.kind) {
    case "clearing":
      return clear(net, b, due.payload.purchaseId, due.payload.amount ?? null, due.payload.clearingId ?? null, due.dueAt, {
        withoutAuth: due.payload.withoutAuth ?? false,
      });
    case "increment":
      return increment(net, b, due.payload.purchaseId, due.payload.incrementId, due.payload.amount, due.dueAt);
    case "expiry":
      return expire(net, b, due.payload.purchaseId, due.dueAt);
    case "resend":
      return resend(net, b, due.payload.purchaseId, due.payload.part, due.payload.withoutAuth, due.dueAt);
    case "void":
      return voidPurchase(net, b, due.payload.purchaseId, due.dueAt);
    case "refund": {
      const record = await purchaseOrReject(net, b, due.payload.purchaseId);
      if (record.state === "voided") return;
      return refund(net, b, due.payload.purchaseId, due.payload.refundId, due.payload.amount, due.dueAt, due.payload.referenced ?? true);
    }
    case "onboarding-reply": {
      const { reply, merchant } = due.payload;
      if (merchant) b.merchants.push({ scheme: net.scheme, merchant, onboarded: true, at: due.dueAt, environment: due.environment });
      const publish = () => net.deps.bus.publish(TOPICS.onboardingReplies.name, reply.locationId, reply);
      b.sending.push(net.dice.deliver(net.faults, publish).then((d) => void (d.delivery === "sent" && b.answered.push(reply.requestId))));
      return;
    }
  }
}
