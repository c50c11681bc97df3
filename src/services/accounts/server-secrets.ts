// Secrets the service generates once and keeps in its database, so every process of a deployment (api
// replicas on one PostgreSQL, or `npm start` on PGlite in DATA_DIR) uses the same one.
import { randomBytes } from "node:crypto";
import type { Db } from "../../platform/db.ts";

/** The named secret: made on first use (the first process to ask wins a race; every process reads its value). */
export async function serverSecret(db: Db, name: string): Promise<string> {
  await db.query("insert into server_secrets (name, value) values ($1, $2) on conflict (name) do nothing", [
    name,
    randomBytes(32).toString("base64url"),
  ]);
  const [row] = await db.query<{ value: string }>("select value from server_secrets where name = $1", [name]);
  return row!.value;
}
