// Applies the SQL migrations in ./migrations, in name order, once each; the same files serve
// PostgreSQL and PGlite. An advisory lock keeps processes that start together from racing.
// The simulators' own store runs its own set (simulators/host/store.ts) through the same runner.
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Db } from "./db.ts";

export interface MigrationSet {
  /** The folder of `.sql` files, applied in name order. */
  dir: string;
  /** The table that records which were applied. */
  table: string;
  /** The advisory lock taken while they are applied. */
  lockKey: number;
}

const SERVICE: MigrationSet = { dir: fileURLToPath(new URL("./migrations/", import.meta.url)), table: "schema_migrations", lockKey: 7_041_990 };

export async function migrate(db: Db, set: MigrationSet = SERVICE): Promise<string[]> {
  const files = readdirSync(set.dir).filter((f) => f.endsWith(".sql")).sort();
  return db.tx(async (tx) => {
    await tx.query("select pg_advisory_xact_lock($1)", [set.lockKey]);
    await tx.exec(`create table if not exists ${set.table} (name text primary key, applied_at timestamptz not null default now())`);
    const done = new Set((await tx.query<{ name: string }>(`select name from ${set.table}`)).map((r) => r.name));
    const applied: string[] = [];
    for (const file of files) {
      if (done.has(file)) continue;
      await tx.exec(readFileSync(set.dir + file, "utf8"));
      await tx.query(`insert into ${set.table} (name) values ($1)`, [file]);
      applied.push(file);
    }
    return applied;
  });
}
