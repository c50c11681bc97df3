-- Answers that never lie. A test purchase is written before its command is published; while
-- the bus is down the command waits here (`command`, not yet `published`) and the workers publish it when
-- the bus is back (the simulators drop a purchase id they have already seen). `publish_after` is the
-- database's real time after which the workers take it over from the request.
alter table test_purchases add column command jsonb;
alter table test_purchases add column published boolean not null default true;
alter table test_purchases add column publish_after timestamptz;
create index test_purchases_unpublished on test_purchases (publish_after) where not published;

-- Idempotency-Key: the first answer to a creating POST, per account and environment, replayed for the
-- same key and the same request for 24 hours of service time. `status` is null while the first request runs.
create table idempotency_keys (
  account_id uuid not null references accounts (id) on delete cascade,
  live boolean not null,
  key text not null,
  fingerprint text not null,
  status integer,
  body text,
  content_type text,
  created timestamptz not null,
  primary key (account_id, live, key)
);
create index idempotency_keys_created on idempotency_keys (created);
