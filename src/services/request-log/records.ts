// The request log's table (migration 033): a round of records written in one statement, an environment's
// records read newest or oldest first with filters and a cursor, one record read, and the prune of what is
// older than the retention on each environment's own time.
import type { Ctx } from "../../platform/context.ts";
import type { Db } from "../../platform/db.ts";
import { accountExistsSql } from "../accounts/index.ts";
import { Filters, type Page, type PageQuery } from "../../platform/page.ts";
import { decodeCursor, encodeCursor } from "../../platform/cursor.ts";
import type { DueTime } from "../../platform/clock/environment.ts";
import { invalid, notFound } from "../../domain/errors.ts";
import { pathPatterns, statusRange, type LoggedBody } from "../../domain/request-log.ts";

/** Where a request came from: an HTTP client with a key, or the dashboard calling the API for a signed-in key. */
export type RequestSource = "api" | "dashboard";

/** One request as it is written: its bodies already masked and cut. */
export interface RequestRow {
  id: string;
  accountId: string;
  live: boolean;
  keyId: string;
  source: RequestSource;
  method: string;
  path: string;
  query: string | null;
  status: number;
  errorCode: string | null;
  latencyMs: number;
  idempotencyKey: string | null;
  resourceId: string | null;
  request: LoggedBody | null;
  response: LoggedBody | null;
  /** When it arrived, on its environment's clock. */
  created: Date;
}

/** One request as a reader sees it. */
export interface RequestRecord {
  id: string;
  method: string;
  path: string;
  query: string | null;
  status: number;
  errorCode: string | null;
  latencyMs: number;
  keyId: string;
  live: boolean;
  source: RequestSource;
  idempotencyKey: string | null;
  resourceId: string | null;
  created: string;
  request: { body: string | null; truncated: boolean };
  response: { body: string | null; truncated: boolean };
}

interface RecordRow {
  id: string;
  key_id: string;
  live: boolean;
  source: RequestSource;
  method: string;
  path: string;
  query: string | null;
  status: number;
  error_code: string | null;
  latency_ms: number;
  idempotency_key: string | null;
  resource_id: string | null;
  request_body: string | null;
  request_truncated: boolean;
  response_body: string | null;
  response_truncated: boolean;
  created: Date;
  xid: string;
  seq: number;
}

const toRecord = (r: RecordRow): RequestRecord => ({
  id: r.id,
  method: r.method,
  path: r.path,
  query: r.query,
  status: r.status,
  errorCode: r.error_code,
  latencyMs: r.latency_ms,
  keyId: r.key_id,
  live: r.live,
  source: r.source,
  idempotencyKey: r.idempotency_key,
  resourceId: r.resource_id,
  created: r.created.toISOString(),
  request: { body: r.request_body, truncated: r.request_truncated },
  response: { body: r.response_body, truncated: r.response_truncated },
});

const COLUMNS =
  "id, key_id, live, source, method, path, query, status, error_code, latency_ms, idempotency_key, resource_id, " +
  "request_body, request_truncated, response_body, response_truncated, created, xid::text as xid, seq";

/**
 * Writes a round of records in one statement, in the order given (their place in the log). A record of an environment deleted meanwhile (a sandbox) is
 * left out; one written already (a round tried again after its answer was lost) is not written twice.
 */
export async function writeRequests(db: Db, rows: RequestRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db.query(
    `insert into request_log (id, account_id, live, key_id, source, method, path, query, status, error_code, latency_ms,
       idempotency_key, resource_id, request_body, request_truncated, response_body, response_truncated, created)
     select r.id, r.account_id, r.live, r.key_id, r.source, r.method, r.path, r.query, r.status, r.error_code, r.latency_ms,
       r.idempotency_key, r.resource_id, r.request_body, coalesce(r.request_truncated, false), r.response_body,
       coalesce(r.response_truncated, false), r.created
     from json_to_recordset($1::json) as r(id text, account_id uuid, live boolean, key_id uuid, source text, method text, path text,
       query text, status int, error_code text, latency_ms float8, idempotency_key text, resource_id uuid, request_body text,
       request_truncated boolean, response_body text, response_truncated boolean, created timestamptz, ord int)
     where ${accountExistsSql("r.account_id")}
     order by r.ord
     on conflict (id) do nothing`,
    [
      JSON.stringify(
        rows.map((r, ord) => ({
          ord,
          id: r.id,
          account_id: r.accountId,
          live: r.live,
          key_id: r.keyId,
          source: r.source,
          method: r.method,
          path: r.path,
          query: r.query,
          status: r.status,
          error_code: r.errorCode,
          latency_ms: r.latencyMs,
          idempotency_key: r.idempotencyKey,
          resource_id: r.resourceId,
          request_body: r.request?.body ?? null,
          request_truncated: r.request?.truncated ?? false,
          response_body: r.response?.body ?? null,
          response_truncated: r.response?.truncated ?? false,
          created: r.created,
        })),
      ),
    ],
  );
}

export interface RequestFilters {
  /** One status, `404`, or a class, `4xx`. */
  status?: string;
  method?: string;
  source?: RequestSource;
  /** A path, with what lies under it; `*` for any characters. */
  path?: string;
  /** Arrived at or after this time of the environment … */
  since?: Date;
  /** … and before this one. */
  until?: Date;
  /** Only those written after this request (its id). */
  after?: string;
}

export type RequestOrder = "desc" | "asc";

/** A record's place in the log: its writing transaction, then its place in that transaction. */
type Place = [xid: string, seq: string];

function cursorPlace(start: string): Place {
  const [xid, seq] = decodeCursor(start);
  if (typeof xid !== "string" || !/^\d{1,20}$/.test(xid) || !/^\d{1,20}$/.test(seq)) throw invalid("start", "not a cursor from the `last` field of an earlier response.");
  return [xid, seq];
}

/** Where `id` is in the caller's log, or a 400 naming `after`. */
async function placeOf(ctx: Ctx, id: string): Promise<Place> {
  const [row] = await ctx.db.query<{ xid: string; seq: number }>(
    "select xid::text as xid, seq from request_log where id = $1 and account_id = $2 and live = $3",
    [id, ctx.accountId, ctx.live],
  );
  if (!row) throw invalid("after", `no request ${id} in this environment's log (GET /v1/requests lists them; they are kept for the retention only)`);
  return [row.xid, String(row.seq)];
}

/**
 * The caller's environment's requests, newest first (or oldest first), in the order they were written, with
 * both bodies. Only records no running transaction can precede are read (the oldest running transaction
 * bounds them), so following the log with `after` never skips one that another process commits late.
 */
export async function listRequests(ctx: Ctx, filters: RequestFilters, page: PageQuery & { order?: RequestOrder }): Promise<Page<RequestRecord>> {
  const order = page.order ?? "desc";
  const f = new Filters()
    .add("account_id = ?", ctx.accountId)
    .add("live = ?", ctx.live)
    .add("xid < pg_snapshot_xmin(pg_current_snapshot())");
  if (filters.status) {
    const [from, to] = statusRange(filters.status);
    f.add("status between ? and ?", from, to);
  }
  if (filters.method) f.add("method = ?", filters.method);
  if (filters.source) f.add("source = ?", filters.source);
  if (filters.path) {
    const [exact, under] = pathPatterns(filters.path);
    f.add("(path like ? or path like ?)", exact, under);
  }
  if (filters.since) f.add("created >= ?", filters.since);
  if (filters.until) f.add("created < ?", filters.until);
  if (filters.after) {
    const [xid, seq] = await placeOf(ctx, filters.after);
    f.add("(xid, seq) > (?::xid8, ?::bigint)", xid, seq);
  }
  const [{ count } = { count: 0 }] = await ctx.db.query<{ count: number }>(`select count(*)::int as count from request_log ${f.where()}`, f.params);
  if (page.start) {
    const [xid, seq] = cursorPlace(page.start);
    f.add(`(xid, seq) ${order === "desc" ? "<" : ">"} (?::xid8, ?::bigint)`, xid, seq);
  }
  const rows = await ctx.db.query<RecordRow>(
    `select ${COLUMNS} from request_log ${f.where()} order by xid ${order}, seq ${order} limit ${page.limit + 1}`,
    f.params,
  );
  const more = rows.length > page.limit;
  const items = rows.slice(0, page.limit);
  const lastRow = items.at(-1);
  return { items: items.map(toRecord), count, ...(more && lastRow ? { last: encodeCursor([lastRow.xid, String(lastRow.seq)]) } : {}) };
}

/** One of the caller's environment's requests, or 404: never another account's, sandbox's or environment's. */
export async function getRequest(ctx: Ctx, id: string): Promise<RequestRecord> {
  const [row] = await ctx.db.query<RecordRow>(`select ${COLUMNS} from request_log where id = $1 and account_id = $2 and live = $3`, [
    id,
    ctx.accountId,
    ctx.live,
  ]);
  if (!row) throw notFound("request", id);
  return toRecord(row);
}

/** Records pruned in one sweep at most; a backlog goes in the sweeps that follow. */
const PRUNE_BATCH = 10_000;

/**
 * Deletes the records older than `retentionDays` of their own environment's time (a sandbox's clock):
 * the latest environment time bounds the index scan, each row's own environment decides.
 */
export async function pruneRequests(db: Db, at: DueTime, retentionDays: number): Promise<number> {
  const [row] = await db.query<{ pruned: number }>(
    `with gone as (
       delete from request_log where id in (
         select id from request_log
         where created <= $3::timestamptz - $4::float8 * interval '1 day'
           and created <= env_now(account_id, $1, $2) - $4::float8 * interval '1 day'
         limit ${PRUNE_BATCH})
       returning 1)
     select count(*)::int as pruned from gone`,
    [at.now, at.serviceOffsetMs, at.latest, retentionDays],
  );
  return row?.pruned ?? 0;
}
