// Work that falls due on service time, in one list: every role runs it when the clock is advanced,
// and the `workers` role (inside `npm start` too) sweeps it on a timer so a running or scaled clock
// needs nobody to advance it.
import type { Logger } from "pino";
import type { Clock } from "../platform/clock/index.ts";
import type { Db } from "../platform/db.ts";
import type { Health } from "../platform/health/index.ts";
import type { SimulatorControl } from "../services/simulator-control/index.ts";
import { forgetExpiredKeys } from "../platform/idempotency.ts";
import { relayTestPurchases } from "../services/simulator-control/index.ts";
import { approveDueBrands } from "../services/catalog/index.ts";
import { announceLiveMarketplaceOffers, runMarketplaceDue } from "../services/offers/index.ts";
import { runOffboardingDue } from "../services/mid-insights/index.ts";
import { runQualificationsDue } from "../services/transactions/index.ts";
import { deleteExpiredSandboxes } from "../services/accounts/index.ts";
import { dueTime, type DueTime } from "../platform/clock/environment.ts";
import { sweepEvery } from "./sweep.ts";
import type { Config } from "../platform/config/index.ts";
import { pruneRequests } from "../services/request-log/index.ts";

/** What due work is configured with. */
export type DueSettings = Pick<Config, "REQUEST_LOG_RETENTION_DAYS">;

// Each compares its rows with their own environment's time (a sandbox's clock, or the service clock).
const DUE_WORK: Record<string, (db: Db, at: DueTime, settings: DueSettings) => Promise<number>> = {
  "brand consent": approveDueBrands,
  "marketplace answers": runMarketplaceDue,
  "marketplace offers gone live": announceLiveMarketplaceOffers,
  "MID offboarding": (db, at) => runOffboardingDue(db, at),
  "return periods": (db, at) => runQualificationsDue(db, at),
  "expired idempotency keys": forgetExpiredKeys,
  "expired sandboxes": deleteExpiredSandboxes,
  "request log past its retention": (db, at, settings) => pruneRequests(db, at, settings.REQUEST_LOG_RETENTION_DAYS),
};

/** Runs every kind of due work once, in order, at the clock's time in every environment. */
export async function runDue(db: Db, clock: Pick<Clock, "now" | "offsetMs">, settings: DueSettings): Promise<void> {
  const at = await dueTime(db, clock);
  for (const run of Object.values(DUE_WORK)) await run(db, at, settings);
}

/**
 * Runs the due work every `intervalMs` of real time, one sweep at a time. Returns the stop. While
 * PostgreSQL is down the sweeps wait for the health watch to find it back (it retries with backoff) and
 * then pick up what fell due meanwhile.
 */
export function sweepDue(
  services: { config: DueSettings; db: Db; clock: Clock; log: Logger; health: Health; simulators: SimulatorControl },
  intervalMs = 1000,
): () => Promise<void> {
  // Test purchases accepted while the bus was down are sent here too (it needs the bus, so it is not
  // due work that every role runs on an advance).
  return sweepEvery(services, "due-work sweep", intervalMs, () => runDue(services.db, services.clock, services.config).then(() => relayTestPurchases(services)));
}
