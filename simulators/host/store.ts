// The simulators' own store, never the service's database in a simulator role: SIMULATOR_DATABASE_URL
// (PostgreSQL), else PGlite in DATA_DIR/simulators/<scheme> (one process per embedded database, under
// its own lock). Under `npm start` the three networks share the one process's database instead, unless
// SIMULATOR_DATABASE_URL is set. Either way the tables are the simulators' own migrations' (./migrations);
// the composition root opens the store (src/app/simulator.ts).
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { OffsetStore } from "../../src/platform/clock/shared.ts";
import type { Config } from "../../src/platform/config/index.ts";
import type { Db } from "../../src/platform/db.ts";
import { migrate, type MigrationSet } from "../../src/platform/migrate.ts";
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

/** The service clock's advance as the simulators' store keeps it from simulator.settings: what a simulator role's clock follows. */
export const announcedClock = (db: Db): OffsetStore => ({
  read: () => readClockOffset(db),
  write: (offsetMs) => saveClockOffset(db, offsetMs),
});
