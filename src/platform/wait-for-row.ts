// Waiting for a row that another process writes (a transaction the qualifier records, an event in the outbox, a
// simulator's answer): the one way Cardlink waits for one, a probe run at once, on each notification of a channel
// and at the latest every so often, until it finds the row or the deadline passes.
import type { Db } from "./db.ts";

/**
 * Runs `probe` until it finds something or `deadline` (`performance.now()`) passes: at once, then each time
 * `channel` is notified (a statement that may have made what it looks for committed), and at the latest every
 * `everyMs` (a notification lost with a connection; with no channel, every `everyMs`). With `everyMs` 0 the probe
 * paces itself (it waits for a look shared with other waits, as `findAtNextTick` does) and is run again as soon
 * as it answers. The probe's last answer, undefined when it found none.
 */
export async function waitForRow<T>(
  db: Db,
  channel: string | null,
  deadline: number,
  probe: () => Promise<T | undefined>,
  everyMs = 1_000,
): Promise<T | undefined> {
  let notified = false;
  let wake: (() => void) | undefined;
  const onNotify = () => {
    notified = true;
    wake?.();
  };
  const stop = channel === null ? async () => undefined : await db.listen(channel, onNotify);
  try {
    for (;;) {
      notified = false;
      const found = await probe();
      const left = deadline - performance.now();
      if (found !== undefined || left <= 0) return found;
      if (notified || everyMs === 0) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => wake?.(), Math.min(everyMs, left));
        wake = () => {
          wake = undefined;
          clearTimeout(timer);
          resolve();
        };
      });
    }
  } finally {
    await stop().catch(() => undefined);
  }
}
