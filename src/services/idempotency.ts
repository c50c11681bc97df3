// Idempotency keys: the first answer to a creating POST, kept per account and environment for 24 hours
// of service time, so a client that retries (after a timeout, a 503, a lost connection) gets that answer
// again instead of a second resource.
import type { Db } from "./db.ts";

export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

export interface Scope {
  accountId: string;
  live: boolean;
}

export interface StoredAnswer {
  status: number;
  body: string;
  contentType: string | null;
}

export type Claim = { kind: "new" } | { kind: "replay"; answer: StoredAnswer } | { kind: "mismatch" } | { kind: "running" };

const expiredBefore = (now: Date) => new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS);

/** Takes `key` for this request, or says what the earlier request with it was. */
export async function claimKey(db: Db, scope: Scope, key: string, fingerprint: string, now: Date): Promise<Claim> {
  await db.query("delete from idempotency_keys where account_id = $1 and live = $2 and key = $3 and created <= $4", [
    scope.accountId,
    scope.live,
    key,
    expiredBefore(now),
  ]);
  const taken = await db.query(
    `insert into idempotency_keys (account_id, live, key, fingerprint, created) values ($1, $2, $3, $4, $5)
     on conflict do nothing returning key`,
    [scope.accountId, scope.live, key, fingerprint, now],
  );
  if (taken.length) return { kind: "new" };
  const [row] = await db.query<{ fingerprint: string; status: number | null; body: string | null; content_type: string | null }>(
    "select fingerprint, status, body, content_type from idempotency_keys where account_id = $1 and live = $2 and key = $3",
    [scope.accountId, scope.live, key],
  );
  // Released by its request between the insert and this read: that request failed; this one may run again.
  if (!row) return claimKey(db, scope, key, fingerprint, now);
  if (row.fingerprint !== fingerprint) return { kind: "mismatch" };
  if (row.status === null) return { kind: "running" };
  return { kind: "replay", answer: { status: row.status, body: row.body ?? "", contentType: row.content_type } };
}

export async function recordAnswer(db: Db, scope: Scope, key: string, answer: StoredAnswer): Promise<void> {
  await db.query("update idempotency_keys set status = $4, body = $5, content_type = $6 where account_id = $1 and live = $2 and key = $3", [
    scope.accountId,
    scope.live,
    key,
    answer.status,
    answer.body,
    answer.contentType,
  ]);
}

/** The request failed and made nothing: the key is free for a retry. */
export async function releaseKey(db: Db, scope: Scope, key: string): Promise<void> {
  await db.query("delete from idempotency_keys where account_id = $1 and live = $2 and key = $3 and status is null", [scope.accountId, scope.live, key]);
}

/** Due work: forgets keys older than the window. */
export async function forgetExpiredKeys(db: Db, now: Date): Promise<number> {
  const gone = await db.query("delete from idempotency_keys where created <= $1 returning key", [expiredBefore(now)]);
  return gone.length;
}
