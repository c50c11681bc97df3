// The simulators' tables in the service's database. The service's migrations make none of them; a database
// of older releases holds the copies its service migrations made (the simulators' tables of their migration
// 001 but the clock). Migration 011 takes over the settings the simulators keep there: /admin answers with
// the faults and traffic runs set there, and a run's counts as its purchases and messages have them; the
// simulators' own migrations then apply on the same database (what `npm start` does) and change nothing of
// it. Migration 026 drops the copies only where they are empty and the simulators keep no store. On PGlite,
// and on PostgreSQL when DATABASE_URL is set.
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { openPglite, openPostgres, type Db } from "../../../src/platform/db.ts";
import { randomBase62 } from "../../../src/platform/ids.ts";
import { migrate } from "../../../src/platform/migrate.ts";
import { latestRequestedRun, reportedCounts, requestedFaults } from "../../../src/services/simulator-control/control-record.ts";
import { migrateSimulatorStore } from "../../../simulators/host/store.ts";
import { readFaults, runProgress } from "../../../simulators/engine/settings.ts";
import { haveInfra, infra } from "../../support/infra.ts";

const migrations = fileURLToPath(new URL("../../../src/platform/migrations/", import.meta.url));
const simulatorMigrations = fileURLToPath(new URL("../../../simulators/host/migrations/", import.meta.url));
const serviceFiles = readdirSync(migrations).filter((f) => f.endsWith(".sql")).sort();
const simulatorFiles = readdirSync(simulatorMigrations).filter((f) => f.endsWith(".sql")).sort();
const COPIES = [
  "simulator_cards", "simulator_due", "simulator_faults", "simulator_merchants", "simulator_messages", "simulator_purchases", "simulator_traffic",
];
const ALL_SIMULATOR_TABLES = [...COPIES, "simulator_clock", "simulator_environments", "simulator_run_counts", "simulator_store"].sort();

/** An empty database of the engine's, and how to throw it away. */
async function emptyDatabase(engine: "pglite" | "postgres"): Promise<{ db: Db; destroy(): Promise<void> }> {
  if (engine === "pglite") {
    const db = await openPglite(undefined);
    return { db, destroy: () => db.close() };
  }
  const server = openPostgres(infra.databaseUrl!, { max: 1 });
  const name = `cardlink_migration_${randomBase62(10).toLowerCase()}`;
  await server.exec(`create database ${name}`);
  const url = new URL(infra.databaseUrl!);
  url.pathname = `/${name}`;
  const db = openPostgres(url.toString(), { max: 2 });
  return {
    db,
    async destroy() {
      await db.close();
      await server.exec(`drop database if exists ${name} with (force)`);
      await server.close();
    },
  };
}

/** The service's migrations before 011, and the simulators' tables as older releases' service migrations made them. */
async function olderDatabase(db: Db): Promise<void> {
  const before = mkdtempSync(join(tmpdir(), "cardlink-migrations-"));
  try {
    for (const f of serviceFiles.filter((f) => f < "011")) cpSync(join(migrations, f), join(before, f));
    await migrate(db, { dir: `${before}/`, table: "schema_migrations", lockKey: 7_041_990 });
  } finally {
    rmSync(before, { recursive: true, force: true });
  }
  await db.exec(readFileSync(join(simulatorMigrations, "001_simulator_state.sql"), "utf8"));
  await db.exec("drop table simulator_clock");
}

const simulatorTables = async (db: Db): Promise<string[]> =>
  (await db.query<{ name: string }>("select table_name as name from information_schema.tables where table_schema = 'public' and table_name like 'simulator\\_%'"))
    .map((r) => r.name)
    .filter((name) => name !== "simulator_schema_migrations")
    .sort();

const engines = ["pglite", ...(haveInfra("databaseUrl") ? (["postgres"] as const) : [])] as const;

describe.each(engines)("the simulators' tables in the service's database, on %s", (engine) => {
  it("takes over the faults, runs and run counts the simulators kept in the service's database (011)", { timeout: 120_000 }, async () => {
    const { db, destroy } = await emptyDatabase(engine);
    try {
      await olderDatabase(db);
      expect(await simulatorTables(db)).toEqual(COPIES);
      const at = "2026-01-05T12:00:00Z";
      await db.query("insert into simulator_faults (scheme, faults, updated) values ('visa', $1::jsonb, $2)", [JSON.stringify({ dropRate: 0.25 }), at]);
      const options = { rate: 5, seed: 7, schemes: ["visa"], durationSeconds: 1 };
      await db.query("insert into simulator_traffic (id, options, state, started) values ('run-1', $1::jsonb, 'running', $2)", [JSON.stringify(options), at]);
      for (const [id, copies, delivery] of [["p1", 2, "sent"], ["p2", 0, "dropped"]] as const) {
        await db.query(
          `insert into simulator_purchases (id, scheme, native_id, card_id, amount, local_date, authorized_at, state, run_id, purchase)
           values ($1, 'visa', $1, 'card', 10, '2026-01-05', $2, 'authorized', 'run-1', '{}'::jsonb)`,
          [id, at],
        );
        await db.query(
          `insert into simulator_messages (message_id, scheme, purchase_id, kind, delivery, copies, sent_at, value)
           values ($1, 'visa', $2, 'auth', $3, $4, $5, '{}'::jsonb)`,
          [`m-${id}`, id, delivery, copies, at],
        );
      }

      expect(await migrate(db)).toEqual(serviceFiles.filter((f) => f >= "011"));
      expect(await requestedFaults(db, "visa")).toMatchObject({ dropRate: 0.25, latencyMs: 0 });
      const run = await latestRequestedRun(db);
      expect(run).toMatchObject({ id: "run-1", state: "running", options });
      expect((await reportedCounts(db, run!)).visa).toEqual({
        purchases: 2,
        planned: 5,
        sent: { auth: 2, clearing: 0, refund: 0, void: 0 },
        dropped: 1,
        duplicated: 1,
      });
      // Copies holding rows are the simulators' data: 026 leaves them.
      expect(await simulatorTables(db)).toEqual(COPIES);

      // Every migration of the simulators' store applies, in order, whichever there are.
      expect(simulatorFiles.slice(0, 3)).toEqual(["001_simulator_state.sql", "002_store_identity.sql", "003_run_counts.sql"]);
      expect(await migrateSimulatorStore(db)).toEqual(simulatorFiles);
      expect(await readFaults(db, "visa")).toMatchObject({ dropRate: 0.25 });
      // The simulators' totals of the run (migration 003) start from its history.
      expect(await runProgress(db, "visa", "run-1", new Date(at))).toMatchObject({
        purchases: 2,
        sent: { auth: 2, clearing: 0, refund: 0, void: 0 },
        dropped: 1,
        duplicated: 1,
      });
    } finally {
      await destroy();
    }
  });

  it("makes none of the simulators' tables itself; the simulators' migrations make them", { timeout: 120_000 }, async () => {
    const { db, destroy } = await emptyDatabase(engine);
    try {
      expect(await migrate(db)).toEqual(serviceFiles);
      expect(await simulatorTables(db)).toEqual([]);
      expect(await requestedFaults(db, "visa")).toMatchObject({ dropRate: 0, latencyMs: 0 });
      expect(await latestRequestedRun(db)).toBeUndefined();
      expect(await migrateSimulatorStore(db)).toEqual(simulatorFiles);
      expect(await simulatorTables(db)).toEqual(ALL_SIMULATOR_TABLES);
    } finally {
      await destroy();
    }
  });

  it("drops the empty copies where the simulators keep no store (026); the simulators' migrations make their tables again", { timeout: 120_000 }, async () => {
    const { db, destroy } = await emptyDatabase(engine);
    try {
      await olderDatabase(db);
      await migrate(db);
      expect(await simulatorTables(db)).toEqual([]);
      expect(await migrateSimulatorStore(db)).toEqual(simulatorFiles);
      expect(await simulatorTables(db)).toEqual(ALL_SIMULATOR_TABLES);
    } finally {
      await destroy();
    }
  });

  it("keeps the copies, empty or not, where the simulators keep their store (`npm start`)", { timeout: 120_000 }, async () => {
    const { db, destroy } = await emptyDatabase(engine);
    try {
      await olderDatabase(db);
      expect(await migrateSimulatorStore(db)).toEqual(simulatorFiles);
      await migrate(db);
      expect(await simulatorTables(db)).toEqual(ALL_SIMULATOR_TABLES);
      expect(await migrateSimulatorStore(db)).toEqual([]);
    } finally {
      await destroy();
    }
  });
});
