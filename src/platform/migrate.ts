// Applies the SQL migrations in ./migrations, in name order, once each; the same files serve
// PostgreSQL and PGlite. An advisory lock keeps processes that start together from racing.
// The simulators' own store runs its own set (simulators/host/store.ts) through the same runner. Each
// table is made by the set of the process that owns it: the service's here, the simulated networks'
// (simulator_*) there, also where the two share one database (`npm start`).
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
  /** File name -> the name a database may have recorded for the same file: either counts as applied. */
  formerNames?: Readonly<Record<string, string>>;
}

// A database records each migration by its file name. A renamed file stays recognised through
// `formerNames`: databases of older releases record 013_resilience.sql as 009_resilience.sql (a number
// 009_lifecycle.sql holds too), and either name counts as applied. Nothing is written back, so a process of
// an older release that opens the same database still finds the name it knows.
export const serviceMigrations: MigrationSet = {
  dir: fileURLToPath(new URL("./migrations/", import.meta.url)),
  table: "schema_migrations",
  lockKey: 7_041_990,
  formerNames: { "013_resilience.sql": "009_resilience.sql" },
};

export async function migrate(db: Db, set: MigrationSet = serviceMigrations): Promise<string[]> {
  const files = readdirSync(set.dir).filter((f) => f.endsWith(".sql")).sort();
  return db.tx(async (tx) => {
    await tx.query("select pg_advisory_xact_lock($1)", [set.lockKey]);
    await tx.exec(`create table if not exists ${set.table} (name text primary key, applied_at timestamptz not null default now())`);
    const done = new Set((await tx.query<{ name: string }>(`select name from ${set.table}`)).map((r) => r.name));
    const applied: string[] = [];
    for (const file of files) {
      const former = set.formerNames?.[file];
      if (done.has(file) || (former !== undefined && done.has(former))) continue;
      await tx.exec(readFileSync(set.dir + file, "utf8"));
      await tx.query(`insert into ${set.table} (name) values ($1)`, [file]);
      applied.push(file);
    }
    return applied;
  });
}
