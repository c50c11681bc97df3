// The one shutdown path of a process: the parts it started, stopped in the reverse order they started —
// the HTTP server before the roles, the roles before the bus, the bus before the database, the database
// before DATA_DIR's lock.
export type Stop = () => Promise<unknown> | unknown;

export interface Shutdown {
  /** Registers a part; the last one added is the first one stopped. */
  add(part: string, stop: Stop): void;
  /**
   * Stops every part, each one even when a part before it failed (so the database still closes and the
   * lock is still released), and rejects with what failed. Runs once: later calls get the same answer.
   */
  run(onStopped?: (part: string) => void): Promise<void>;
}

export function createShutdown(): Shutdown {
  const parts: { part: string; stop: Stop }[] = [];
  let running: Promise<void> | undefined;
  return {
    add(part, stop) {
      if (running) throw new Error(`${part}: started while the process is stopping`);
      parts.push({ part, stop });
    },
    run(onStopped) {
      running ??= (async () => {
        const failures: unknown[] = [];
        for (const { part, stop } of parts.reverse()) {
          try {
            await stop();
            onStopped?.(part);
          } catch (err) {
            failures.push(new Error(`stopping the ${part} failed`, { cause: err }));
          }
        }
        if (failures.length === 1) throw failures[0];
        if (failures.length > 1) throw new AggregateError(failures, `stopping ${failures.length} parts failed`);
      })();
      return running;
    },
  };
}
