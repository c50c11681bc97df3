// Work that falls due on service time, in one list: every role runs it when the clock is advanced,
// and the `workers` role (inside `npm start` too) sweeps it on a timer so a running or scaled clock
// needs nobody to advance it.
import type { Logger } from "pino";
import type { Clock } from "../clock/index.ts";
import type { Db } from "../store/db.ts";
import { approveDueBrands } from "./brand-consent.ts";
import { runMarketplaceDue } from "./marketplace.ts";
import { runOffboardingDue } from "../store/mid-insights.ts";
import { runQualificationsDue } from "../qualifier/qualification-due.ts";

const DUE_WORK: Record<string, (db: Db, now: Date) => Promise<number>> = {
  "brand consent": approveDueBrands,
  "marketplace answers": runMarketplaceDue,
  "MID offboarding": (db, now) => runOffboardingDue(db, now),
  "return periods": runQualificationsDue,
};

/** Runs every kind of due work once, in order. */
export async function runDue(db: Db, now: Date): Promise<void> {
  for (const run of Object.values(DUE_WORK)) await run(db, now);
}

/** Runs the due work every `intervalMs` of real time, one sweep at a time. Returns the stop. */
export function sweepDue(services: { db: Db; clock: Clock; log: Logger }, intervalMs = 1000): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    runDue(services.db, services.clock.now())
      .catch((err: unknown) => services.log.error({ err }, "due-work sweep failed"))
      .finally(() => {
        running = false;
      });
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
