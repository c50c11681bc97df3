// A background sweep on real time: `work` every `intervalMs`, one run at a time, paused while PostgreSQL is
// away (the health watch probes it and finds it back), a failure reported to the health watch or logged.
import type { Logger } from "pino";
import type { Health } from "../platform/health/index.ts";

/** Starts the sweep; the answer stops it, waiting for a run under way. */
export function sweepEvery(services: { log: Logger; health: Health }, what: string, intervalMs: number, work: () => Promise<unknown>): () => Promise<void> {
  let running: Promise<void> | undefined;
  const timer = setInterval(() => {
    if (running || !services.health.postgres.up) return;
    running = work()
      .then(
        () => undefined,
        (err: unknown) => {
          if (!services.health.report(err)) services.log.error({ err }, `${what} failed`);
        },
      )
      .finally(() => {
        running = undefined;
      });
  }, intervalMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
