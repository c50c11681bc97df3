-- Accounts, keys and the core resources every later piece links to.
-- Every account-owned row carries account_id and live: test and live data never mix.

create table accounts (
  id uuid primary key,
  name text not null,
  tier text not null check (tier in ('standard', 'premium')),
  email text,
  created timestamptz not null,
  updated timestamptz not null
);

-- Secret keys are stored as SHA-256 digests only; `hint` is the last four characters for display.
create table api_keys (
  id uuid primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  live boolean not null,
  hash text not null unique,
  hint text not null,
  created timestamptz not null,
  revoked timestamptz
);
create index api_keys_account on api_keys (account_id);

create table programs (
  id uuid primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  live boolean not null,
  name text not null,
  status text not null default 'idle' check (status in ('idle', 'syncing')),
  metadata jsonb,
  created timestamptz not null,
  updated timestamptz not null
);
create index programs_owner on programs (account_id, live, created, id);

create table brands (
  id uuid primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  live boolean not null,
  name text not null,
  logo_url text,
  consent text not null check (consent in ('requested', 'approved', 'declined')),
  consent_due timestamptz,
  metadata jsonb,
  created timestamptz not null,
  updated timestamptz not null
);
create index brands_owner on brands (account_id, live, created, id);
create index brands_consent_due on brands (consent_due) where consent = 'requested';

-- Only the first six and last four digits of a card number are kept, never the full number.
create table cards (
  id uuid primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  live boolean not null,
  program_id uuid not null references programs (id) on delete cascade,
  first_numbers text not null check (first_numbers ~ '^[0-9]{6}$'),
  last_numbers text not null check (last_numbers ~ '^[0-9]{4}$'),
  scheme text not null check (scheme in ('visa', 'mastercard', 'amex')),
  exp_month int not null,
  exp_year int not null,
  country_code text not null,
  network_token text not null unique,
  terms_of_use boolean not null,
  metadata jsonb,
  created timestamptz not null,
  updated timestamptz not null
);
create index cards_program on cards (program_id, created, id);

create table locations (
  id uuid primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  live boolean not null,
  program_id uuid not null references programs (id) on delete cascade,
  brand_id uuid not null references brands (id) on delete cascade,
  address text not null,
  city text not null,
  postcode text not null,
  country_code text not null,
  timezone text not null,
  latitude double precision,
  longitude double precision,
  metadata jsonb,
  created timestamptz not null,
  updated timestamptz not null
);
create index locations_program on locations (program_id, created, id);
create index locations_brand on locations (brand_id);

-- Sync state per location and scheme, with the network MIDs known for it.
create table location_networks (
  location_id uuid not null references locations (id) on delete cascade,
  scheme text not null check (scheme in ('visa', 'mastercard', 'amex')),
  status text not null check (status in ('Idle', 'Syncing', 'Active', 'Not found')),
  mids jsonb not null default '[]',
  sync_started timestamptz,
  updated timestamptz not null,
  primary key (location_id, scheme)
);

create table hooks (
  id uuid primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  live boolean not null,
  program_id uuid not null references programs (id) on delete cascade,
  event text not null,
  url text not null,
  secret text not null,
  created timestamptz not null
);
create index hooks_program on hooks (program_id, event);

-- Small facts the service keeps about itself (the demo account, the admin token digest).
create table settings (
  key text primary key,
  value jsonb not null
);
