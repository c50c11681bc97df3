// What every entry point is built on: the services (database, service clock, logger, rate limiter, bus,
// the simulators' control, health, the request log's writer), opened from the config or assembled from parts a caller opened.
import type { Config } from "../platform/config/index.ts";
import { configuredClock, type Clock } from "../platform/clock/index.ts";
import { shareClock } from "../platform/clock/shared.ts";
import { clockOffsetStore } from "../platform/clock/offset-store.ts";
import { countStatements, openPglite, openPostgres, type Db } from "../platform/db.ts";
import { migrate } from "../platform/migrate.ts";
import { createLogger } from "../platform/log.ts";
import { createAccountLimiter, createAddressLimiters } from "../api/middleware/rate-limit.ts";
import type { ApiRuntime } from "../api/context.ts";
import { lazyBus, openBus } from "../platform/bus/index.ts";
import { createSimulatorControl } from "../services/simulator-control/index.ts";
import { runDue } from "../workers/due.ts";
import { createHealth } from "../platform/health/index.ts";
import { createMetrics, type Metrics } from "../platform/metrics/index.ts";
import { createAdmission } from "../api/admission.ts";
import { outboxBacklog } from "../platform/outbox.ts";
import { qualifierLag } from "../qualifier/index.ts";
import { createRequestLog } from "../services/request-log/index.ts";

/** What every entry point is built on: what the API is given, which each role takes its part of. */
export type Runtime = ApiRuntime;

/** Runtime with what must stop before their database closes (the clock's sync across processes). */
export interface OpenedRuntime {
  services: Runtime;
  /** The migrations opening applied, oldest first. */
  migrations: string[];
  stopClockSync(): void;
}

/**
 * The service clock from CLOCK_SPEED and CLOCK_START, `offsetMs` already advanced. Work that falls due on
 * service time runs whenever it is advanced, in every role and in the test harness.
 */
export function serviceClock(db: Db, config: Pick<Config, "CLOCK_SPEED" | "CLOCK_START" | "REQUEST_LOG_RETENTION_DAYS">, offsetMs = 0): Clock {
  const clock = configuredClock(config, offsetMs);
  clock.onAdvance(() => runDue(db, clock, config));
  return clock;
}

/**
 * Opens the database (migrated) the config names, the service clock shared with every process of the
 * deployment through it, and a bus that connects on first use.
 */
export async function openRuntime(config: Config): Promise<OpenedRuntime> {
  const db = config.DATABASE_URL ? openPostgres(config.DATABASE_URL) : await openPglite(config.DATA_DIR);
  const migrations = await migrate(db);
  const offsets = clockOffsetStore(db);
  const clock = serviceClock(db, config, await offsets.read());
  const log = createLogger(config);
  const metrics = createMetrics({ process: true, accountLabels: config.METRICS_ACCOUNT_LABELS });
  const bus = lazyBus(() => openBus(config, clock, log, metrics.consumers), config.KAFKA_BROKERS ? "kafka" : "embedded");
  const services = assembleRuntime({ config, db, clock, bus, log, metrics });
  // While PostgreSQL is away the clock keeps its own time and stops polling; the health watch says so once.
  // An advance made here is announced to the simulators too: a simulator role shares no database with the service.
  const announced = {
    read: offsets.read,
    async write(offsetMs: number) {
      await offsets.write(offsetMs);
      await services.simulators.announceClock(offsetMs);
    },
  };
  const stopClockSync = shareClock(
    clock,
    announced,
    (err) => {
      if (!services.health.report(err)) log.error({ err }, "service clock sync failed");
    },
    { paused: () => !services.health.postgres.up },
  );
  return { services, migrations, stopClockSync };
}

/**
 * The services from their parts; what is derived (logger, rate limiter, simulator control, health) is made here,
 * and a registry of metrics unless the caller gives the one its bus reports to.
 */
export function assembleRuntime(parts: Pick<Runtime, "config" | "db" | "clock" | "bus"> & { log?: Runtime["log"]; metrics?: Metrics }): Runtime {
  const { config, clock, bus } = parts;
  const log = parts.log ?? createLogger(config);
  const metrics = parts.metrics ?? createMetrics({ accountLabels: config.METRICS_ACCOUNT_LABELS });
  const db = countStatements(parts.db, metrics.statement);
  const health = createHealth({ db, kafkaBrokers: config.KAFKA_BROKERS, log });
  // The stream's backlog, for the front door's backpressure: the qualifiers' lag (offsets, wherever they run)
  // and the outbox's undispatched events, counted just past their bound.
  const readBacklog = async () => {
    const [lag, outbox] = await Promise.all([qualifierLag(bus), outboxBacklog(db, config.ADMISSION_OUTBOX_BACKLOG_BOUND + 1)]);
    return { qualifierLag: lag, outboxBacklog: outbox };
  };
  return {
    config,
    db,
    clock,
    log,
    limiter: createAccountLimiter(db, config.RATE_LIMIT_PER_SECOND, config.RATE_LIMIT_BURST),
    addressLimits: createAddressLimiters(config),
    bus,
    simulators: createSimulatorControl({ db, bus, clock }),
    health,
    metrics,
    admission: createAdmission({ settings: config, readBacklog, metrics: metrics.admission }),
    requestLog: createRequestLog({ db, log, observer: metrics.requestLog, health, bufferLimit: config.REQUEST_LOG_BUFFER }),
  };
}
