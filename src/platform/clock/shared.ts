// One service clock for every process of a deployment and across restarts: the total advance is kept
// in the database; a process that advances writes it, the others pick it up within `intervalMs` and
// run what fell due for them. (CLOCK_SPEED and CLOCK_START must be the same for every role.)
import type { Clock } from "./index.ts";

export interface OffsetStore {
  read(): Promise<number>;
  /** Records `offsetMs` unless a larger one is already recorded. */
  write(offsetMs: number): Promise<void>;
}

export interface ShareOptions {
  intervalMs?: number;
  /** While true the poll is skipped (the store's database is known to be down). */
  paused?: () => boolean;
}

export function shareClock(clock: Clock, store: OffsetStore, onError: (err: unknown) => void, options: ShareOptions = {}): () => void {
  const { intervalMs = 500, paused = () => false } = options;
  // The largest total known to be recorded. An advance taken over from the store is not written back,
  // but a local one made while that advance's due work runs is.
  let recorded = clock.offsetMs;
  const off = clock.onAdvance(async () => {
    if (clock.offsetMs <= recorded) return;
    recorded = clock.offsetMs;
    await store.write(recorded);
  });
  const timer = setInterval(() => {
    if (paused()) return;
    store
      .read()
      .then(async (stored) => {
        if (stored <= clock.offsetMs) return;
        recorded = Math.max(recorded, stored);
        await clock.advance(stored - clock.offsetMs);
      })
      .catch(onError);
  }, intervalMs);
  timer.unref();
  return () => {
    off();
    clearInterval(timer);
  };
}
