// The simulated networks' stores, and the process of `simulator --scheme X`: one network on Kafka,
// with a store of its own (it never opens DATABASE_URL). It knows the service only over the bus: its settings
// and the service clock's advance arrive on simulator.settings and are kept in its store, which its clock
// follows. Its parts stop through the one shutdown path, in the reverse order they started.
import type { Config } from "../platform/config/index.ts";
import { secureDataDir, tightenDataDir } from "./data-dir.ts";
import { configuredClock } from "../platform/clock/index.ts";
import { shareClock } from "../platform/clock/shared.ts";
import { openBus } from "../platform/bus/index.ts";
import { createHealth } from "../platform/health/index.ts";
import { serveHealth } from "../platform/health/server.ts";
import { createLogger } from "../platform/log.ts";
import { createMetrics } from "../platform/metrics/index.ts";
import { countStatements, openPglite, openPostgres, type Db } from "../platform/db.ts";
import { startSimulators } from "../../simulators/host/hub.ts";
import { announcedClock, migrateSimulatorStore, simulatorDataDir } from "../../simulators/host/store.ts";
import type { Scheme } from "../domain/scheme.ts";
import { lockDataDir, type DataDirLock } from "./data-dir-lock.ts";
import { createShutdown, drainOnSignal } from "./shutdown.ts";

interface SimulatorStore {
  db: Db;
  /** Held while an embedded store is open. */
  lock?: DataDirLock;
  /** Where it is, for the log (no credentials). */
  describe: string;
}

/** A simulator role's store, migrated: SIMULATOR_DATABASE_URL, else PGlite in DATA_DIR/simulators/<scheme> under its lock. */
async function openSimulatorStore(config: Config, scheme: Scheme, command: string): Promise<SimulatorStore> {
  if (config.SIMULATOR_DATABASE_URL) {
    const db = openPostgres(config.SIMULATOR_DATABASE_URL);
    await migrateSimulatorStore(db);
    return { db, describe: "PostgreSQL (SIMULATOR_DATABASE_URL)" };
  }
  const dir = simulatorDataDir(config, scheme);
  secureDataDir(config.DATA_DIR);
  secureDataDir(dir);
  const lock = lockDataDir(dir, command, "SIMULATOR_DATABASE_URL");
  try {
    const db = await openPglite(dir);
    tightenDataDir(dir);
    await migrateSimulatorStore(db);
    return { db, lock, describe: `PGlite in ${dir}` };
  } catch (err) {
    lock.release();
    throw err;
  }
}

/**
 * The store of the simulators `npm start` runs beside the service: SIMULATOR_DATABASE_URL when set
 * (closed with them), else the service's own database, which keeps `npm start` one process, one PGlite
 * and one lock.
 */
export async function inProcessSimulatorStore(config: Config, serviceDb: Db): Promise<{ db: Db; close(): Promise<void> }> {
  const own = config.SIMULATOR_DATABASE_URL ? openPostgres(config.SIMULATOR_DATABASE_URL) : undefined;
  const db = own ?? serviceDb;
  await migrateSimulatorStore(db);
  return { db, close: async () => own?.close() };
}

/** Runs `scheme`'s simulator on its own store and the bus until a signal drains it. */
export async function runSimulator(config: Config, scheme: Scheme): Promise<void> {
  const shutdown = createShutdown();
  const store = await openSimulatorStore(config, scheme, `simulator --scheme ${scheme}`);
  const { db, lock } = store;
  if (lock) shutdown.add("DATA_DIR lock", () => lock.release());
  shutdown.add("database", () => db.close());
  const log = createLogger(config);
  const offsets = announcedClock(db);
  const clock = configuredClock(config, await offsets.read());
  const metrics = createMetrics({ process: true });
  const bus = await openBus(config, clock, log, metrics.consumers);
  shutdown.add("bus", () => bus.close());
  const health = createHealth({ db, kafkaBrokers: config.KAFKA_BROKERS, log });
  shutdown.add("health watch", () => health.stop());
  const stopClockSync = shareClock(
    clock,
    offsets,
    (err) => {
      if (!health.report(err)) log.error({ err }, "service clock sync failed");
    },
    { paused: () => !health.postgres.up },
  );
  shutdown.add("clock sync", stopClockSync);
  const running = await startSimulators({ db: countStatements(db, metrics.statement), bus, clock, log, seed: config.SIMULATOR_SEED }, [scheme]);
  shutdown.add("roles", () => running.stop());
  if (config.HEALTH_PORT) {
    const server = await serveHealth(health, config.HEALTH_PORT, "simulator", metrics, config.HOST);
    shutdown.add("health port", () => server.close());
  }
  // Said once everything answers, its health port included.
  log.info({ scheme, store: store.describe }, "simulator running");
  drainOnSignal(shutdown, { log, timeoutSeconds: config.DRAIN_TIMEOUT_SECONDS });
}
