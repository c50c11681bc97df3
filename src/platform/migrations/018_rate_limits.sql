-- Rate limits per account, shared by every api process of a deployment: one token bucket row per account
-- (test and live keys together), refilled and spent in one statement by src/services/accounts/rate-limits.ts.
-- `demand` and `granted` carry one statement's request count and answer through its upsert.
create table rate_limit_buckets (
  key text primary key,
  tokens double precision not null,
  updated timestamptz not null,
  demand integer not null,
  granted integer not null
);
