// The hooks a CLI receiver registers for itself (`listen`, `run`): one per event at its own URL, all
// signed with one secret, so a --forward-to server or a flow's expectations verify every delivery with it.
import { randomBytes } from "node:crypto";
import type { Config } from "../platform/config/index.ts";
import { readCredentials, writeCredentials } from "../platform/config/credentials.ts";
import type { HookEvent } from "../services/webhooks/index.ts";
import { answer, type Connection } from "./connection.ts";

/** A new Standard Webhooks secret: `whsec_` + base64 of 32 random bytes. */
export const newReceiverSecret = () => `whsec_${randomBytes(32).toString("base64")}`;

/**
 * The secret `listen` signs its hooks with: kept in DATA_DIR/credentials.json (mode 0600) beside the demo
 * keys, so `listen --print-secret` gives a --forward-to server the secret of every later `listen`.
 */
export function listenSecret(config: Config): string {
  const credentials = readCredentials(config);
  if (credentials.listenSecret) return credentials.listenSecret;
  const secret = newReceiverSecret();
  writeCredentials(config, { ...credentials, listenSecret: secret });
  return secret;
}

async function hooksAt(conn: Connection, programId: string, url: string): Promise<string[]> {
  const ids: string[] = [];
  let start: string | undefined;
  do {
    const page = await answer(conn.url, conn.client.GET("/v1/programs/{programId}/hooks", { params: { path: { programId }, query: { ...(start ? { start } : {}) } } }));
    ids.push(...page.items.filter((h) => h.url === url).map((h) => h.id));
    start = page.last;
  } while (start);
  return ids;
}

/**
 * Registers one hook per event at `url` signed with `secret`; hooks left at that URL by an earlier
 * receiver (`listen --keep`, perhaps with another secret) are removed first. Answers the new hooks' ids.
 */
export async function registerOwnHooks(conn: Connection, programId: string, events: readonly HookEvent[], url: string, secret: string): Promise<string[]> {
  await removeHooks(conn, await hooksAt(conn, programId, url));
  const ids: string[] = [];
  for (const event of events) {
    ids.push((await answer(conn.url, conn.client.POST("/v1/programs/{programId}/hooks", { params: { path: { programId } }, body: { event, url, secret } }))).id);
  }
  return ids;
}

export async function removeHooks(conn: Connection, ids: readonly string[]): Promise<void> {
  for (const hookId of ids) await conn.client.DELETE("/v1/hooks/{hookId}", { params: { path: { hookId } } }).catch(() => undefined);
}
