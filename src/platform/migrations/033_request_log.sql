-- The request log: every /v1 request a key made, in the environment it acted in (a sandbox is an account),
-- with its answer and both bodies masked and cut (src/domain/request-log.ts). Written in batches, one
-- statement a round, by the api process's writer (src/services/request-log/writer.ts), never on the request
-- path; kept REQUEST_LOG_RETENTION_DAYS of the environment's time and pruned by the due-work sweep.
--
-- `xid` is the writing transaction and `seq` the row's place in it: the log is read in (xid, seq) order and only
-- up to the oldest transaction still running (pg_snapshot_xmin), so a reader that follows it (`after`) never
-- passes a row that another api process's round commits later with a lower place.
create table request_log (
  id text primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  live boolean not null,
  key_id uuid not null,
  source text not null check (source in ('api', 'dashboard')),
  method text not null,
  path text not null,
  query text,
  status int not null,
  error_code text,
  latency_ms float8 not null,
  idempotency_key text,
  resource_id uuid,
  request_body text,
  request_truncated boolean not null default false,
  response_body text,
  response_truncated boolean not null default false,
  created timestamptz not null,
  xid xid8 not null default pg_current_xact_id(),
  seq bigint generated always as identity
);

create index request_log_environment on request_log (account_id, live, xid, seq);
-- The prune's bound: records older than the latest environment time less the retention.
create index request_log_created on request_log (created);
