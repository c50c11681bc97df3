// The webhook dispatcher: fans outbox events out to hooks and delivers them, signed, with bounded
// concurrency, a 20 s timeout and retries on the service clock. It never touches the qualifier's work.
import PQueue from "p-queue";
import type { Logger } from "pino";
import type { Clock } from "../clock/index.ts";
import type { Db } from "../store/db.ts";
import { claimDue, fanOut, recordAttempt, type DueDelivery } from "../store/webhook-deliveries.ts";
import { signedHeaders } from "./sign.ts";
import { retryDelay } from "./schedule.ts";

export interface DispatcherOptions {
  db: Db;
  clock: Clock;
  log: Logger;
  concurrency?: number;
  timeoutMs?: number;
  /** How often to look for new events and due retries, in real milliseconds. */
  pollMs?: number;
}

export interface Dispatcher {
  /** One pass: fan out new events, deliver everything due now; resolves when those deliveries finish. */
  runOnce(): Promise<number>;
  /** New events were written in this process: run a pass now instead of at the next poll. */
  kick(): void;
  start(): void;
  stop(): Promise<void>;
}

export function createDispatcher({ db, clock, log, concurrency = 16, timeoutMs = 20_000, pollMs = 200 }: DispatcherOptions): Dispatcher {
  const queue = new PQueue({ concurrency });
  let timer: NodeJS.Timeout | undefined;
  let chain: Promise<unknown> = Promise.resolve();
  let unsubscribe: (() => void) | undefined;

  async function deliver(delivery: DueDelivery): Promise<void> {
    const started = performance.now();
    const attempted = clock.now();
    let responseCode: number | null = null;
    let error: string | null = null;
    try {
      const res = await fetch(delivery.url, {
        method: "POST",
        headers: signedHeaders(delivery.secret, delivery.eventId, delivery.body),
        body: delivery.body,
        redirect: "manual",
        signal: AbortSignal.timeout(timeoutMs),
      });
      responseCode = res.status;
      await res.body?.cancel();
    } catch (err) {
      error = err instanceof Error && err.name === "TimeoutError" ? `timed out after ${timeoutMs} ms` : String((err as Error).cause ?? err);
    }
    const succeeded = responseCode !== null && responseCode >= 200 && responseCode < 300;
    const delay = succeeded ? null : retryDelay(delivery.attempts + 1);
    await recordAttempt(db, delivery, {
      attempted,
      latencyMs: performance.now() - started,
      responseCode,
      error,
      succeeded,
      nextAttempt: delay === null ? null : new Date(attempted.getTime() + delay),
    });
  }

  async function pass(): Promise<number> {
    let delivered = 0;
    for (let events = 1; events > 0; ) events = await fanOut(db, clock.now());
    for (;;) {
      const due = await claimDue(db, clock.now(), concurrency * 4);
      if (due.length === 0) break;
      delivered += due.length;
      await Promise.all(due.map((d) => queue.add(() => deliver(d))));
    }
    return delivered;
  }

  // One pass at a time; a caller that arrives mid-pass waits for the next full pass.
  const runOnce = (): Promise<number> => {
    const next = chain.then(pass, pass);
    chain = next.catch(() => undefined);
    return next;
  };

  let kicked = false;
  return {
    runOnce,
    kick() {
      // Many kicks while a pass is queued are one pass: the pass takes every event written so far.
      if (kicked || !timer) return;
      kicked = true;
      queueMicrotask(() => {
        kicked = false;
        if (!timer) return; // stopped since the kick
        runOnce().catch((err: unknown) => log.error({ err }, "webhook dispatch pass failed"));
      });
    },
    start() {
      unsubscribe = clock.onAdvance(async () => {
        await runOnce();
      });
      const tick = () => {
        runOnce()
          .catch((err: unknown) => log.error({ err }, "webhook dispatch pass failed"))
          .finally(() => {
            if (timer) timer = setTimeout(tick, pollMs);
          });
      };
      timer = setTimeout(tick, pollMs);
    },
    async stop() {
      unsubscribe?.();
      const t = timer;
      timer = undefined;
      if (t) clearTimeout(t);
      await chain;
      await queue.onIdle();
    },
  };
}
