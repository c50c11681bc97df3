// The one shutdown path of a process: the parts it started, stopped in the reverse order they started —
// the HTTP server before the roles, the roles before the bus, the bus before the database, the database
// before DATA_DIR's lock — when it is done, or on SIGTERM or SIGINT.
import type { Logger } from "pino";
import { onStdoutClosed } from "../platform/log.ts";

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

/**
 * On SIGTERM or SIGINT, or when stdout is closed under the process (EPIPE): runs the shutdown, logging each part stopped, and exits 0 once every part has
 * stopped, 1 when one failed or when `timeoutSeconds` ran out first (whatever was still running is abandoned).
 */
export function drainOnSignal(shutdown: Shutdown, { log, timeoutSeconds }: { log: Logger; timeoutSeconds: number }): void {
  // The roles' timers are unref()ed; this one keeps the process alive until it is drained, so a
  // dependency that goes away (and takes its sockets with it) never ends a role with code 0.
  const keepAlive = setInterval(() => {}, 2 ** 30);
  let draining = false;
  const drain = async (signal: string) => {
    if (draining) return;
    draining = true;
    log.info({ signal, timeoutSeconds }, "draining");
    setTimeout(() => {
      log.error({ timeoutSeconds }, "drain time over; exiting with work unfinished");
      process.exit(1);
    }, timeoutSeconds * 1000).unref();
    try {
      await shutdown.run((part) => log.info({ part }, "stopped"));
      clearInterval(keepAlive);
      log.info("drained");
      process.exit(0);
    } catch (err) {
      log.error({ err }, "drain failed");
      process.exit(1);
    }
  };
  process.once("SIGINT", () => void drain("SIGINT"));
  process.once("SIGTERM", () => void drain("SIGTERM"));
  // stdout closed under the process (`npm start | head -1`): it ends as SIGPIPE would end it, but drained.
  onStdoutClosed(() => void drain("EPIPE"));
}
