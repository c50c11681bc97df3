// Commands to the networks, written in the same transaction as the change they report and sent after
// the commit, so a command exists exactly when its change does; the workers send what is left unsent.
import type { Bus } from "./bus/bus.ts";
import type { Db } from "./db.ts";
import { newId } from "./ids.ts";

export interface NetworkCommand {
  topic: string;
  key: string;
  value: unknown;
}

/** Writes the command; pass the open transaction's handle. Returns its id. */
export async function enqueueCommand(db: Db, command: NetworkCommand, now: Date): Promise<string> {
  const id = newId();
  await db.query("insert into network_outbox (id, topic, key, value, created) values ($1, $2, $3, $4::jsonb, $5)", [
    id,
    command.topic,
    command.key,
    JSON.stringify(command.value),
    now,
  ]);
  return id;
}

/** Publishes unsent commands (all, or the given ones) oldest first and marks them sent; returns how many. */
export async function sendCommands(db: Db, bus: Bus, now: Date, ids?: string[]): Promise<number> {
  const rows = await db.query<{ id: string; topic: string; key: string; value: unknown }>(
    `select id, topic, key, value from network_outbox where sent is null and ($1::uuid[] is null or id = any($1::uuid[]))
     order by created, id limit 500`,
    [ids ?? null],
  );
  for (const r of rows) await bus.publish(r.topic, r.key, r.value);
  if (rows.length > 0) await db.query("update network_outbox set sent = $2 where id = any($1::uuid[])", [rows.map((r) => r.id), now]);
  return rows.length;
}

/** Sends the given commands now, leaving them to the workers if the bus fails. */
export async function trySendCommands(db: Db, bus: Bus | undefined, now: Date, ids: string[]): Promise<void> {
  if (!bus || ids.length === 0) return;
  try {
    await sendCommands(db, bus, now, ids);
  } catch {
    // Left unsent: the workers send them on their next pass.
  }
}
