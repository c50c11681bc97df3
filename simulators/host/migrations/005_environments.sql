-- Sandboxes at the networks: each keeps its state apart and runs on a clock of its own. `environment` is the
-- sandbox's id, '' for the accounts' own environments (the service clock): a key every table compares with =
-- and indexes like any other column. Deleting a sandbox deletes its rows (simulator_messages follow their
-- purchases).
alter table simulator_merchants add column if not exists environment text not null default '';
alter table simulator_purchases add column if not exists environment text not null default '';
alter table simulator_cards add column if not exists environment text not null default '';
alter table simulator_due add column if not exists environment text not null default '';

-- Due work is found per environment, each row against its own environment's time.
create index if not exists simulator_due_environment on simulator_due (scheme, environment, due_at);
drop index if exists simulator_due_at;
create index if not exists simulator_merchants_environment on simulator_merchants (environment) where environment <> '';
create index if not exists simulator_purchases_environment on simulator_purchases (environment) where environment <> '';
create index if not exists simulator_cards_environment on simulator_cards (environment) where environment <> '';

-- Each sandbox's clock over the service clock, as the service announced it (src/platform/clock/environment.ts:
-- now = frozen ? service offset + offset_ms : service now + offset_ms). A forgotten sandbox keeps its row, so
-- nothing that arrives for it later (a redelivered setting, a late request) brings it back.
create table if not exists simulator_environments (
  environment text primary key,
  frozen boolean not null,
  offset_ms float8 not null,
  forgotten boolean not null default false,
  updated timestamptz not null
);
