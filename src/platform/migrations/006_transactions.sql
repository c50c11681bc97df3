-- Transactions as the qualifier records them: one row per purchase (its auth and clearing are stages
-- of it) or per refund, the network messages that made it, and the webhook emitted for each stage.

create table transactions (
  id uuid primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  live boolean not null,
  program_id uuid not null references programs (id) on delete cascade,
  card_id uuid references cards (id) on delete set null,
  location_id uuid references locations (id) on delete set null,
  brand_id uuid references brands (id) on delete set null,
  scheme text not null check (scheme in ('visa', 'mastercard', 'amex')),
  kind text not null check (kind in ('purchase', 'refund')),
  -- The scheme's own key joining a purchase's messages: Visa and Amex transaction id, Mastercard reference number.
  purchase_key text not null,
  original_id uuid references transactions (id),
  datetime timestamp not null,
  amount numeric not null,
  currency text not null,
  card_present boolean not null,
  wallet text,
  auth boolean not null,
  cleared boolean not null,
  voided boolean not null default false,
  targeting_tag text,
  identifiers jsonb not null,
  card jsonb not null,
  brand jsonb,
  location jsonb,
  offer jsonb not null,
  -- Set when a return period is pending: the qualifier's due work finishes the qualification then.
  qualification_due date,
  created timestamptz not null,
  updated timestamptz not null,
  unique (scheme, kind, purchase_key)
);
create index transactions_program on transactions (program_id, created, id);
create index transactions_qualification_due on transactions (qualification_due) where qualification_due is not null;

-- Every network message applied, so a duplicate or a redelivered message changes nothing.
create table transaction_messages (
  scheme text not null,
  message_id text not null,
  transaction_id uuid not null references transactions (id) on delete cascade,
  stage text not null,
  received timestamptz not null,
  primary key (scheme, message_id)
);

-- Exactly one webhook of each transaction event: its id is fixed the first time the stage is seen.
create table transaction_stages (
  transaction_id uuid not null references transactions (id) on delete cascade,
  event text not null check (event in ('transaction.auth', 'transaction.clearing', 'transaction.refund',
    'transaction.auth.qualified', 'transaction.clearing.qualified')),
  event_id uuid not null,
  created timestamptz not null,
  primary key (transaction_id, event)
);

-- A version the qualifier's in-memory offer index compares to know when to reload.
create table offer_index_version (
  id boolean primary key default true check (id),
  version bigint not null
);
insert into offer_index_version (version) values (0);

create function bump_offer_index_version() returns trigger language plpgsql as $$
begin
  update offer_index_version set version = version + 1;
  return null;
end $$;

create trigger offers_changed after insert or update or delete on offers
  for each statement execute function bump_offer_index_version();
create trigger offer_locations_changed after insert or update or delete on offer_locations
  for each statement execute function bump_offer_index_version();

-- Locations are found by the MIDs a network message carries.
create index location_networks_mids on location_networks using gin (mids jsonb_path_ops);

-- Purchases made with POST /transactions/test, so clear and refund can name them to the simulator.
create table test_purchases (
  transaction_id uuid primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  scheme text not null,
  card_id uuid not null references cards (id) on delete cascade,
  purchase_id text not null,
  created timestamptz not null
);
