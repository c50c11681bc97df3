// Dashboard sessions, server-side: a sign-in is a row keyed by the SHA-256 of a random id the browser
// keeps in its cookie. Ending it (sign-out, the key revoked or rotated) deletes the row, so a copied
// cookie stops working at once. Lifetimes are wall-clock time: callers pass the wall clock's `now`.
import type { Db } from "../../platform/db.ts";
import { randomBase62, sha256 } from "../../platform/ids.ts";

/** Who a session signed in: a key (by id, never the key itself), or the operator (the admin token). */
export type SessionSubject = { keyId: string } | "operator";

/** A current session: its subject, and for a key the sandbox of the key's account it acts in (null: the key's own environment). */
export type SessionRecord = { keyId: string; sandboxId: string | null } | "operator";

/** Starts a session for `subject` until `expires`; returns the id for the cookie (only its digest is kept). */
export async function startDashboardSession(db: Db, subject: SessionSubject, now: Date, expires: Date): Promise<string> {
  const id = randomBase62(43);
  await db.query("delete from dashboard_sessions where expires <= $1", [now]);
  await db.query("insert into dashboard_sessions (id_hash, key_id, created, expires) values ($1, $2, $3, $4)", [
    sha256(id),
    subject === "operator" ? null : subject.keyId,
    now,
    expires,
  ]);
  return id;
}

/** The session `id` names, while it lasts. */
export async function findDashboardSession(db: Db, id: string, now: Date): Promise<SessionRecord | undefined> {
  const [row] = await db.query<{ key_id: string | null; sandbox_id: string | null }>(
    "select key_id, sandbox_id from dashboard_sessions where id_hash = $1 and expires > $2",
    [sha256(id), now],
  );
  if (!row) return undefined;
  return row.key_id === null ? "operator" : { keyId: row.key_id, sandboxId: row.sandbox_id };
}

/** The session acts in this sandbox from now on (null: in its key's own environment); the caller checked it is the key's account's. */
export async function chooseDashboardSandbox(db: Db, id: string, sandboxId: string | null): Promise<void> {
  await db.query("update dashboard_sessions set sandbox_id = $2 where id_hash = $1", [sha256(id), sandboxId]);
}

/** Sign-out: the session is gone, wherever its cookie was copied. */
export async function endDashboardSession(db: Db, id: string): Promise<void> {
  await db.query("delete from dashboard_sessions where id_hash = $1", [sha256(id)]);
}

/** The sessions signed in with these keys end (the keys were revoked or rotated). */
export async function endKeySessions(db: Db, keyIds: string[]): Promise<void> {
  if (keyIds.length === 0) return;
  await db.query("delete from dashboard_sessions where key_id = any($1::uuid[])", [keyIds]);
}
