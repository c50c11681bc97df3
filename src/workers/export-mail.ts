// The workers' sweep of export e-mail: every second the messages that are due are sent (sendDueExportMail),
// through SMTP_URL's server or into DATA_DIR/mail. A loop of its own beside the due-work sweep, so a slow
// or unreachable mail server never holds up the rest of the due work; on real time, not the service clock,
// since a mail server's outage lasts real seconds whatever the clock's speed.
import type { Logger } from "pino";
import type { Clock } from "../platform/clock/index.ts";
import type { Config } from "../platform/config/index.ts";
import type { Db } from "../platform/db.ts";
import type { Health } from "../platform/health/index.ts";
import { createMailer, type Mailer } from "../platform/mail.ts";
import { sendDueExportMail } from "../services/mid-insights/index.ts";
import { sweepEvery } from "./sweep.ts";

const BATCH = 20;

/** Starts the sweep; the answer stops it, waiting for a sweep under way (its claims would otherwise wait out their lease). */
export function sweepExportMail(
  services: { db: Db; clock: Clock; log: Logger; health: Health; config: Config },
  mailer: Mailer = createMailer(services.config),
  intervalMs = 1000,
): () => Promise<void> {
  const stop = sweepEvery(services, "export mail sweep", intervalMs, async () => {
    // A full batch means more may be due: the backlog is sent without waiting for the next tick.
    while ((await sendDueExportMail(services.db, services.clock, mailer, BATCH)) === BATCH);
  });
  return async () => {
    await stop();
    mailer.close();
  };
}
