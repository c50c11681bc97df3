// The dispatcher pool's wake-up: a flag anything that may have made work sets (a kick, an answer, a batch
// written, a LISTEN notification, the poll, the clock moving), and the one sleep the pool's loop takes.

export interface Waker {
  /** Whether a wake-up is pending. */
  readonly woken: boolean;
  /** Sets the flag and ends the loop's sleep, if it sleeps. */
  wake(): void;
  /** Whether a wake-up came since the last take, clearing the flag. */
  take(): boolean;
  /** Resolves at the next wake-up (at once when one is pending) or after `ms`, if given. */
  sleep(ms?: number): Promise<void>;
}

export function createWaker(): Waker {
  let woken = false;
  let sleeper: (() => void) | undefined;
  return {
    get woken() {
      return woken;
    },
    wake() {
      woken = true;
      sleeper?.();
    },
    take() {
      const was = woken;
      woken = false;
      return was;
    },
    sleep: (ms) =>
      woken
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            const timer = ms === undefined ? undefined : setTimeout(() => sleeper?.(), ms);
            sleeper = () => {
              sleeper = undefined;
              clearTimeout(timer);
              resolve();
            };
          }),
  };
}
