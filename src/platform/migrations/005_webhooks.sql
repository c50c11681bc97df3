-- Webhook delivery: one delivery per (event, hook), every attempt recorded.
create table webhook_deliveries (
  id uuid primary key,
  event_id uuid not null references outbox (id) on delete cascade,
  hook_id uuid not null references hooks (id) on delete cascade,
  account_id uuid not null,
  live boolean not null,
  status text not null check (status in ('pending', 'succeeded', 'failed')),
  attempts int not null default 0,
  next_attempt timestamptz,
  last_response_code int,
  lease_until timestamptz,
  created timestamptz not null,
  updated timestamptz not null
);
create index webhook_deliveries_due on webhook_deliveries (next_attempt) where status = 'pending';
create index webhook_deliveries_hook on webhook_deliveries (hook_id, created, id);
create index webhook_deliveries_event on webhook_deliveries (event_id);

create table webhook_attempts (
  id uuid primary key,
  delivery_id uuid not null references webhook_deliveries (id) on delete cascade,
  attempt int not null,
  attempted timestamptz not null,
  latency_ms int not null,
  response_code int,
  error text,
  unique (delivery_id, attempt)
);

create index outbox_undispatched on outbox (created) where dispatched is null;
