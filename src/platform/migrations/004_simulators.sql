-- The scheme simulators' own state, persisted like everything else: what each simulated network knows
-- (merchants and the ids it assigned, every purchase and message — the history missing-transaction
-- look-ups search), what falls due on the service clock, and the operator's fault and traffic settings.

create table simulator_merchants (
  scheme text not null check (scheme in ('visa', 'mastercard', 'amex')),
  -- The service's location id for its locations, a generated id for merchants it does not know.
  merchant_key text not null,
  location_id uuid,
  onboarded boolean not null,
  merchant jsonb not null,
  created timestamptz not null,
  updated timestamptz not null,
  primary key (scheme, merchant_key)
);

create table simulator_purchases (
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
create index simulator_purchases_card on simulator_purchases (scheme, card_id, local_date);
create index simulator_purchases_run on simulator_purchases (run_id, scheme) where run_id is not null;

-- Every message a network produced, including those a drop fault kept from the bus.
create table simulator_messages (
  message_id text primary key,
  scheme text not null,
  purchase_id text not null references simulator_purchases (id) on delete cascade,
  kind text not null check (kind in ('auth', 'clearing', 'refund', 'void')),
  delivery text not null check (delivery in ('sent', 'dropped')),
  copies int not null,
  sent_at timestamptz not null,
  value jsonb not null
);
create index simulator_messages_purchase on simulator_messages (purchase_id);

-- Work that falls due on the service clock: clearings, voids, refunds, onboarding replies.
create table simulator_due (
  id text primary key,
  scheme text not null check (scheme in ('visa', 'mastercard', 'amex')),
  due_at timestamptz not null,
  kind text not null check (kind in ('clearing', 'void', 'refund', 'onboarding-reply')),
  payload jsonb not null
);
create index simulator_due_at on simulator_due (scheme, due_at);

create table simulator_faults (
  scheme text primary key check (scheme in ('visa', 'mastercard', 'amex')),
  faults jsonb not null,
  updated timestamptz not null
);

create table simulator_traffic (
  id text primary key,
  -- Order of starts: with a frozen clock several runs start at one service time.
  seq bigint generated always as identity,
  options jsonb not null,
  state text not null check (state in ('running', 'stopped')),
  started timestamptz not null,
  stopped timestamptz
);
create index simulator_traffic_seq on simulator_traffic (seq);
