// Applies the SQL migrations in ./migrations, in name order, once each; the same files serve
// PostgreSQL and PGlite. An advisory lock keeps processes that start together from racing.
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Db } from "./db.ts";

const dir = fileURLToPath(new URL("./migrations/", import.meta.url));
const LOCK_KEY = 7_041_990;

export async function migrate(db: Db): Promise<string[]> {
  const files = readdirSync(dir).filter((f) => f.endsWith(".sql")).sort();
  return db.tx(async (tx) => {
    await tx.query("select pg_advisory_xact_lock($1)", [LOCK_KEY]);
    await tx.exec(
      "create table if not exists schema_migrations (name text primary key, applied_at timestamptz not null default now())",
    );
    const done = new Set((await tx.query<{ name: string }>("select name from schema_migrations")).map((r) => r.name));
    const applied: string[] = [];
    for (const file of files) {
      if (done.has(file)) continue;
      await tx.exec(readFileSync(dir + file, "utf8"));
      await tx.query("insert into schema_migrations (name) values ($1)", [file]);
      applied.push(file);
    }
    return applied;
  });
}
