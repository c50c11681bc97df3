// Migration 011 on a database that has run the simulators before they had settings of their own (their
// tables in the service's database, as migration 004 made them): /admin answers with the faults and
// traffic runs set before, and a run's counts as its purchases and messages had them. Then the
// simulators' own migrations apply on the same database (what `npm start` does) and change nothing of it.
import { cpSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { openPglite } from "../../../src/platform/db.ts";
import { migrate } from "../../../src/platform/migrate.ts";
import { latestRequestedRun, reportedCounts, requestedFaults } from "../../../src/services/simulator-control/control-record.ts";
import { migrateSimulatorStore } from "../../../simulators/host/store.ts";
import { readFaults, runProgress } from "../../../simulators/engine/settings.ts";

const migrations = fileURLToPath(new URL("../../../src/platform/migrations/", import.meta.url));
const before = mkdtempSync(join(tmpdir(), "cardlink-migrations-"));
afterAll(() => rmSync(before, { recursive: true, force: true }));

describe("migration 011_simulator_control", () => {
  it("takes over the faults, runs and run counts the simulators kept in the service's database", async () => {
    for (const f of readdirSync(migrations).filter((f) => f < "011")) cpSync(join(migrations, f), join(before, f));
    const db = await openPglite(undefined);
    await migrate(db, { dir: `${before}/`, table: "schema_migrations", lockKey: 7_041_990 });
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

    expect(await migrate(db)).toEqual(readdirSync(migrations).filter((f) => f >= "011" && f.endsWith(".sql")).sort());
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

    // Every migration of the simulators' store applies, in order, whichever there are.
    const all = readdirSync(fileURLToPath(new URL("../../../simulators/host/migrations/", import.meta.url))).filter((f) => f.endsWith(".sql")).sort();
    expect(all.slice(0, 3)).toEqual(["001_simulator_state.sql", "002_store_identity.sql", "003_run_counts.sql"]);
    expect(await migrateSimulatorStore(db)).toEqual(all);
    expect(await readFaults(db, "visa")).toMatchObject({ dropRate: 0.25 });
    // The simulators' totals of the run (migration 003) start from its history.
    expect(await runProgress(db, "visa", "run-1", new Date(at))).toMatchObject({
      purchases: 2,
      sent: { auth: 2, clearing: 0, refund: 0, void: 0 },
      dropped: 1,
      duplicated: 1,
    });
    await db.close();
  });
});
