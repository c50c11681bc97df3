// Idempotency keys: the first answer to a creating POST, kept per account and environment for 24 hours
// of service time, so a client that retries (after a timeout, a 503, a lost connection) gets that answer
// again instead of a second resource.
import { DAY_MS } from "../domain/time-units.ts";
import type { DueTime } from "./clock/environment.ts";
import type { Db } from "./db.ts";
import { groupCommit, perHandle } from "./group-commit.ts";

export const IDEMPOTENCY_WINDOW_MS = DAY_MS;

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

interface KeyedRequest {
  scope: Scope;
  key: string;
}
const ident = ({ scope, key }: KeyedRequest) => ({ account_id: scope.accountId, live: scope.live, key });
const identKey = (accountId: string, live: boolean, key: string) => `${accountId}\u0000${live}\u0000${key}`;
const KEYS = "as r(account_id uuid, live boolean, key text";

type Attempt = Claim | { kind: "released" };

/** A round full to its limit takes the accounts' requests in fair turns. */
const byAccount = { fairBy: ({ scope }: KeyedRequest) => scope.accountId };

/**
 * The keys of the requests that arrive together, claimed in one round: their expired records forgotten,
 * the free ones taken (the first request of the round with a key takes it), and the records of the rest read.
 */
const claimRound = perHandle((db: Db) =>
  groupCommit<KeyedRequest & { fingerprint: string; now: Date }, Attempt>(async (requests) => {
    const rows = requests.map((r, i) => ({ ...ident(r), fingerprint: r.fingerprint, created: r.now, before: expiredBefore(r.now), ord: i }));
    const json = JSON.stringify(rows);
    await db.query(
      `delete from idempotency_keys k using jsonb_to_recordset($1::jsonb) ${KEYS}, before timestamptz)
       where k.account_id = r.account_id and k.live = r.live and k.key = r.key and k.created <= r.before`,
      [json],
    );
    const taken = await db.query<{ account_id: string; live: boolean; key: string }>(
      `insert into idempotency_keys (account_id, live, key, fingerprint, created)
       select distinct on (account_id, live, key) account_id, live, key, fingerprint, created
       from jsonb_to_recordset($1::jsonb) ${KEYS}, fingerprint text, created timestamptz, ord int) order by account_id, live, key, ord
       on conflict do nothing returning account_id, live, key`,
      [json],
    );
    const takenBy = new Set(taken.map((t) => identKey(t.account_id, t.live, t.key)));
    const first = new Map<string, number>();
    requests.forEach((r, i) => {
      const k = identKey(r.scope.accountId, r.scope.live, r.key);
      if (!first.has(k)) first.set(k, i);
    });
    const won = (r: KeyedRequest, i: number) => {
      const k = identKey(r.scope.accountId, r.scope.live, r.key);
      return takenBy.has(k) && first.get(k) === i;
    };
    const others = requests.filter((r, i) => !won(r, i));
    const existing =
      others.length === 0
        ? []
        : await db.query<{ account_id: string; live: boolean; key: string; fingerprint: string; status: number | null; body: string | null; content_type: string | null }>(
            `select k.account_id, k.live, k.key, k.fingerprint, k.status, k.body, k.content_type
             from idempotency_keys k join jsonb_to_recordset($1::jsonb) ${KEYS}) on k.account_id = r.account_id and k.live = r.live and k.key = r.key`,
            [JSON.stringify(others.map(ident))],
          );
    const byKey = new Map(existing.map((e) => [identKey(e.account_id, e.live, e.key), e]));
    return requests.map((r, i): { ok: Attempt } => {
      if (won(r, i)) return { ok: { kind: "new" } };
      const row = byKey.get(identKey(r.scope.accountId, r.scope.live, r.key));
      // Released by its request between the insert and this read: that request failed; this one may run again.
      if (!row) return { ok: { kind: "released" } };
      if (row.fingerprint !== r.fingerprint) return { ok: { kind: "mismatch" } };
      if (row.status === null) return { ok: { kind: "running" } };
      return { ok: { kind: "replay", answer: { status: row.status, body: row.body ?? "", contentType: row.content_type } } };
    });
  }, byAccount),
);

/** Takes `key` for this request, or says what the earlier request with it was. */
export async function claimKey(db: Db, scope: Scope, key: string, fingerprint: string, now: Date): Promise<Claim> {
  for (;;) {
    const attempt = await claimRound(db)({ scope, key, fingerprint, now });
    if (attempt.kind !== "released") return attempt;
  }
}

const recordRound = perHandle((db: Db) =>
  groupCommit<KeyedRequest & { answer: StoredAnswer }, void>(async (records) => {
    await db.query(
      `update idempotency_keys k set status = r.status, body = r.body, content_type = r.content_type
       from jsonb_to_recordset($1::jsonb) ${KEYS}, status int, body text, content_type text)
       where k.account_id = r.account_id and k.live = r.live and k.key = r.key`,
      [JSON.stringify(records.map((r) => ({ ...ident(r), status: r.answer.status, body: r.answer.body, content_type: r.answer.contentType })))],
    );
    return records.map(() => ({ ok: undefined }));
  }, byAccount),
);

/** Keeps the answer for the key's later requests (the answers of requests that end together, in one statement). */
export const recordAnswer = (db: Db, scope: Scope, key: string, answer: StoredAnswer): Promise<void> => recordRound(db)({ scope, key, answer });

const releaseRound = perHandle((db: Db) =>
  groupCommit<KeyedRequest, void>(async (requests) => {
    await db.query(
      `delete from idempotency_keys k using jsonb_to_recordset($1::jsonb) ${KEYS})
       where k.account_id = r.account_id and k.live = r.live and k.key = r.key and k.status is null`,
      [JSON.stringify(requests.map(ident))],
    );
    return requests.map(() => ({ ok: undefined }));
  }, byAccount),
);

/** The request failed and made nothing: the key is free for a retry. */
export const releaseKey = (db: Db, scope: Scope, key: string): Promise<void> => releaseRound(db)({ scope, key });

/** Due work: forgets keys older than the window. */
export async function forgetExpiredKeys(db: Db, { now }: DueTime): Promise<number> {
  const gone = await db.query("delete from idempotency_keys where created <= $1 returning key", [expiredBefore(now)]);
  return gone.length;
}
