// Handing one partition's batch to a consumer's handler, the same on both buses: on a failure, what the
// handler marked handled is committed and the rest is handed over again after a backoff, until the handler
// takes it all or the consumer stops.
import { abortableSleep } from "./abortable-sleep.ts";
import type { BatchHandler, BusMessage } from "./bus.ts";

/** How long a failing handler waits before the same message is delivered again. */
export const retryDelayMs = (attempt: number) => Math.min(100 * 2 ** Math.min(attempt, 10), 5_000);

export interface HandOver {
  handler: BatchHandler;
  /** Commits the partition through this offset (what a failed call marked handled). */
  commitThrough(offset: number): Promise<void> | void;
  /** Aborted when the consumer stops: no further attempt then. */
  signal: AbortSignal;
  /** A call failed and the rest, from `offset`, will be handed over again (after the backoff). */
  onFailure(err: unknown, offset: number | undefined, attempt: number): void;
  /** After each backoff, before the next attempt (Kafka's heartbeat). */
  beforeRetry?(): Promise<void>;
}

/** Taken: the handler took every message. Stopped: the consumer stopped first, with the last failure. */
export type HandOverResult = { taken: true } | { taken: false; error: unknown };

export async function handOver(messages: BusMessage[], { handler, commitThrough, signal, onFailure, beforeRetry }: HandOver): Promise<HandOverResult> {
  let rest = messages;
  for (let attempt = 0; rest.length > 0; attempt++) {
    let through = -1;
    try {
      await handler(rest, (m) => (through = Math.max(through, m.offset)));
      return { taken: true };
    } catch (error) {
      if (through >= 0) {
        await commitThrough(through);
        rest = rest.filter((m) => m.offset > through);
      }
      if (signal.aborted) return { taken: false, error };
      onFailure(error, rest[0]?.offset, attempt);
      await abortableSleep(retryDelayMs(attempt), signal);
      if (signal.aborted) return { taken: false, error };
      await beforeRetry?.();
    }
  }
  return { taken: true };
}
