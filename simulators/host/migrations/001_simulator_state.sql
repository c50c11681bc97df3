-- The scheme simulators' own store: what each simulated network knows (merchants and the ids it
-- assigned, cards enrolments told it about, every purchase and message — the history missing-transaction
-- look-ups search), what falls due on the service clock, and the settings that reached it over the bus
-- (faults, traffic runs, the service clock's advance).
-- These tables are made here only. `if not exists` throughout: under `npm start` the simulators keep them in
-- the service's own database, which may already hold them from older releases' service migrations.

create table if not exists simulator_merchants (
  scheme text not null check (scheme in ('visa', 'mastercard', 'amex')),
  -- The service's location id for its locations, a generated id for merchants it does not know.
  merchant_key text not null,
  location_id uuid,
  onboarded boolean not null,
  merchant jsonb not null,
  created timestamptz not null,
  updated timestamptz not null,
  -- The program an onboarding request named: traffic runs can draw from one program's merchants.
  program_id uuid,
  primary key (scheme, merchant_key)
);
create index if not exists simulator_merchants_program on simulator_merchants (scheme, program_id) where location_id is not null;

create table if not exists simulator_purchases (
  id text primary key,
  scheme text not null check (scheme in ('visa', 'mastercard', 'amex')),
  -- The network's own id for the purchase: Visa and Amex transaction id, Mastercard reference number.
  native_id text not null,
  card_id text not null,
  location_id uuid,
  amount numeric not null,
  local_date date not null,
  authorized_at timestamptz not null,
  state text not null check (state in ('authorized', 'cleared', 'voided')),
  refunded numeric not null default 0,
  -- The traffic run that generated it; null for test transactions sent through the API.
  run_id text,
  purchase jsonb not null,
  unique (scheme, native_id)
);
create index if not exists simulator_purchases_card on simulator_purchases (scheme, card_id, local_date);
create index if not exists simulator_purchases_run on simulator_purchases (run_id, scheme) where run_id is not null;

-- Every message a network produced, including those a drop fault kept from the bus.
create table if not exists simulator_messages (
  message_id text primary key,
  scheme text not null,
  purchase_id text not null references simulator_purchases (id) on delete cascade,
  kind text not null check (kind in ('auth', 'clearing', 'refund', 'void')),
  delivery text not null check (delivery in ('sent', 'dropped')),
  copies int not null,
  sent_at timestamptz not null,
  value jsonb not null
);
create index if not exists simulator_messages_purchase on simulator_messages (purchase_id);

-- Work that falls due on the service clock: clearings, voids, refunds, onboarding replies.
create table if not exists simulator_due (
  id text primary key,
  scheme text not null check (scheme in ('visa', 'mastercard', 'amex')),
  due_at timestamptz not null,
  kind text not null check (kind in ('clearing', 'void', 'refund', 'onboarding-reply')),
  payload jsonb not null
);
create index if not exists simulator_due_at on simulator_due (scheme, due_at);

-- Cards as enrolments told the networks about them: the population traffic draws from.
create table if not exists simulator_cards (
  scheme text not null check (scheme in ('visa', 'mastercard', 'amex')),
  card_id text not null,
  program_id uuid not null,
  first_six text not null,
  last_four text not null,
  live boolean not null,
  enrolled boolean not null,
  updated timestamptz not null,
  primary key (scheme, card_id)
);
create index if not exists simulator_cards_program on simulator_cards (scheme, program_id) where enrolled;

create table if not exists simulator_faults (
  scheme text primary key check (scheme in ('visa', 'mastercard', 'amex')),
  faults jsonb not null,
  updated timestamptz not null
);
-- The service's version of the setting: a redelivered older setting never undoes a newer one.
alter table simulator_faults add column if not exists version bigint not null default 0;

create table if not exists simulator_traffic (
  id text primary key,
  -- Order of starts: with a frozen clock several runs start at one service time.
  seq bigint generated always as identity,
  options jsonb not null,
  state text not null check (state in ('running', 'stopped')),
  started timestamptz not null,
  stopped timestamptz
);
create index if not exists simulator_traffic_seq on simulator_traffic (seq);

-- The service clock's total advance as the service last announced it (a simulator role's clock follows it).
create table if not exists simulator_clock (
  id boolean primary key default true check (id),
  offset_ms float8 not null
);
