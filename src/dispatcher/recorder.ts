// The dispatcher's group commit: attempts' outcomes gather while deliveries are in flight and are written
// one batch at a time (the attempts, the deliveries' next step, the endpoints' health), so that a thousand
// answers cost a few statements, not a thousand.
import type { Logger } from "pino";
import type { Db } from "../platform/db.ts";
import { ROUND_TICK_MS } from "../platform/group-commit.ts";
import { backoffMs } from "../platform/backoff.ts";
import { recordAttempts, type AttemptOutcome } from "../services/webhooks/index.ts";
import { ENDPOINT_POLICY } from "./schedule.ts";

/**
 * A batch smaller than this waits a tick to fill (ROUND_TICK_MS, as every hop's rounds) while deliveries are
 * in flight; a larger one is written at once, so unwritten outcomes never hold back the pool's claims.
 */
const LINGER_BELOW = 64;

export interface RecorderDeps {
  db: Db;
  log: Logger;
  /** Whether the dispatcher still runs: at stop a batch does not wait to fill, and a batch that keeps failing is given up. */
  running(): boolean;
  /** Deliveries in flight: while there are some, a batch waits a little for their outcomes. */
  inFlight(): number;
  /** A batch disabled hooks, each writing a `hook.disabled` event to hand out. */
  disabled(): void;
  /** The writer has stopped: everything given to it is written (or given up at stop). */
  idle(): void;
  /** One batch written, from `started` (`performance.now()`). */
  written(started: number): void;
}

export interface Recorder {
  /** Queues an outcome; the writer starts unless it is at work already. */
  add(outcome: AttemptOutcome): void;
  /** Outcomes not yet being written. */
  readonly queued: number;
  /** Outcomes not yet written, plus one while a batch is being written. */
  held(): number;
  /** The deliveries of the outcomes not yet being written (their claims must be renewed meanwhile). */
  queuedIds(): string[];
  /** Resolves once the writer is idle. */
  drained(): Promise<void>;
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function createRecorder(deps: RecorderDeps): Recorder {
  let queue: AttemptOutcome[] = [];
  let writing: Promise<void> | undefined;

  /** Writes batches until nothing is queued; a batch that fails to write is tried again, with backoff. */
  async function writeAll(): Promise<void> {
    let failures = 0;
    while (queue.length > 0) {
      if (queue.length < LINGER_BELOW && deps.inFlight() > 0 && deps.running()) await delay(ROUND_TICK_MS);
      const batch = queue;
      queue = [];
      if (await writeBatch(deps, batch)) {
        failures = 0;
        continue;
      }
      queue = batch.concat(queue);
      failures++;
      if (!deps.running() && failures >= 3) {
        deps.log.error({ attempts: queue.length }, "webhook attempts left unrecorded at stop; their claims expire");
        queue = [];
        break;
      }
      await delay(backoffMs(failures, { capMs: 2_000 }));
    }
  }

  return {
    add(outcome) {
      queue.push(outcome);
      if (writing) return;
      writing = writeAll().finally(() => {
        writing = undefined;
        deps.idle();
      });
    },
    get queued() {
      return queue.length;
    },
    held: () => queue.length + (writing ? 1 : 0),
    queuedIds: () => queue.map((o) => o.deliveryId),
    async drained() {
      while (writing) await writing;
    },
  };
}

/** Writes one batch; false when it failed (the caller keeps it to try again). */
async function writeBatch(deps: RecorderDeps, batch: AttemptOutcome[]): Promise<boolean> {
  const started = performance.now();
  try {
    const disabled = await recordAttempts(deps.db, batch, ENDPOINT_POLICY);
    deps.written(started);
    for (const { hookId, reason } of disabled) deps.log.warn({ hookId, reason }, "webhook endpoint disabled");
    if (disabled.length > 0) deps.disabled();
    return true;
  } catch (err) {
    deps.log.warn({ err, attempts: batch.length }, "recording webhook attempts failed; trying again");
    return false;
  }
}
