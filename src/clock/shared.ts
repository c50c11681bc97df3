// One service clock for every process of a deployment and across restarts: the total advance is kept
// in the database; a process that advances writes it, the others pick it up within `intervalMs` and
// run what fell due for them. (CLOCK_SPEED and CLOCK_START must be the same for every role.)
import type { Clock } from "./index.ts";

export interface OffsetStore {
  read(): Promise<number>;
  /** Records `offsetMs` unless a larger one is already recorded. */
  write(offsetMs: number): Promise<void>;
}

export function shareClock(clock: Clock, store: OffsetStore, onError: (err: unknown) => void, intervalMs = 500): () => void {
  let syncing = false;
  const off = clock.onAdvance(async () => {
    if (!syncing) await store.write(clock.offsetMs);
  });
  const timer = setInterval(() => {
    store
      .read()
      .then(async (stored) => {
        if (stored <= clock.offsetMs) return;
        syncing = true;
        try {
          await clock.advance(stored - clock.offsetMs);
        } finally {
          syncing = false;
        }
      })
      .catch(onError);
  }, intervalMs);
  timer.unref();
  return () => {
    off();
    clearInterval(timer);
  };
}
