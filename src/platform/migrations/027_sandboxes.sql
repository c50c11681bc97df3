-- Sandboxes: an account may make isolated environments of its own. A sandbox is an account row with a
-- parent, so every account-scoped table scopes it too and deleting it is the account's cascade. Each
-- account row carries its environment clock over the service clock (src/platform/clock/environment.ts):
-- (false, 0) is the service time itself, which every account's own environments keep.
alter table accounts
  add column parent_id uuid references accounts (id) on delete cascade,
  add column expires_at timestamptz,
  add column clock_frozen boolean not null default false,
  add column clock_offset_ms float8 not null default 0;

create index accounts_parent on accounts (parent_id, created) where parent_id is not null;
create unique index accounts_sandbox_name on accounts (parent_id, name) where parent_id is not null;
create index accounts_expiring on accounts (expires_at) where expires_at is not null;
-- The environments whose clock is their own (few): the latest of their times bounds every due sweep.
create index accounts_own_clock on accounts (id) where clock_frozen or clock_offset_ms <> 0;

-- An environment's time, given the service time and the service clock's total advance (milliseconds).
-- The same formula as environmentNow() in TypeScript; due work compares each row with its own account's.
create function env_now(account uuid, service_now timestamptz, service_offset_ms float8) returns timestamptz
language sql stable as $$
  select case when a.clock_frozen then to_timestamp((service_offset_ms + a.clock_offset_ms) / 1000.0)
              else service_now + a.clock_offset_ms * interval '1 millisecond' end
  from accounts a where a.id = account
$$;

-- The sandbox an account is (its own id), or null for an account: what the networks call its environment.
create function sandbox_of(account uuid) returns uuid
language sql stable as $$
  select case when a.parent_id is not null then a.id end from accounts a where a.id = account
$$;

-- Events are fanned out in the order they were written (the database's own time), not by `created`, which
-- is their environment's time: a sandbox ahead of the service clock takes its turn with everyone else.
alter table outbox add column queued timestamptz;
alter table outbox alter column queued set default now();
update outbox set queued = created where dispatched is null;
drop index outbox_undispatched;
create index outbox_undispatched on outbox (queued, id) where dispatched is null;
