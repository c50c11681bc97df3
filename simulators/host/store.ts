// The simulators' own store, never the service's database in a simulator role: SIMULATOR_DATABASE_URL
// (PostgreSQL), else PGlite in DATA_DIR/simulators/<scheme> (one process per embedded database, under
// its own lock). Under `npm start` the three networks share the one process's database instead, unless
// SIMULATOR_DATABASE_URL is set. Either way the tables are the simulators' own migrations' (./migrations).
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { OffsetStore } from "../../src/clock/shared.ts";
import type { Config } from "../../src/config/index.ts";
import { lockDataDir, type DataDirLock } from "../../src/data-dir-lock.ts";
import { openPglite, openPostgres, type Db } from "../../src/services/db.ts";
import { migrate, type MigrationSet } from "../../src/services/migrate.ts";
import { readClockOffset, saveClockOffset } from "../engine/settings.ts";
import type { Scheme } from "../engine/types.ts";

const MIGRATIONS: MigrationSet = {
  dir: fileURLToPath(new URL("./migrations/", import.meta.url)),
  table: "simulator_schema_migrations",
  lockKey: 7_041_991,
};

export const migrateSimulatorStore = (db: Db): Promise<string[]> => migrate(db, MIGRATIONS);

/** Where `simulator --scheme X` keeps its PGlite when SIMULATOR_DATABASE_URL is unset. */
export const simulatorDataDir = (config: Config, scheme: Scheme): string => join(config.DATA_DIR, "simulators", scheme);

export interface SimulatorStore {
  db: Db;
  /** Held while an embedded store is open. */
  lock?: DataDirLock;
  /** Where it is, for the log (no credentials). */
  describe: string;
}

/** A simulator role's store, migrated. */
export async function openSimulatorStore(config: Config, scheme: Scheme, command: string): Promise<SimulatorStore> {
  if (config.SIMULATOR_DATABASE_URL) {
    const db = openPostgres(config.SIMULATOR_DATABASE_URL);
    await migrateSimulatorStore(db);
    return { db, describe: "PostgreSQL (SIMULATOR_DATABASE_URL)" };
  }
  const dir = simulatorDataDir(config, scheme);
  const lock = lockDataDir(dir, command, "SIMULATOR_DATABASE_URL");
  try {
    const db = await openPglite(dir);
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

/** The service clock's advance as the simulators' store keeps it from simulator.settings: what a simulator role's clock follows. */
export const announcedClock = (db: Db): OffsetStore => ({
  read: () => readClockOffset(db),
  write: (offsetMs) => saveClockOffset(db, offsetMs),
});
