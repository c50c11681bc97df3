-- Offers, their linked locations and per-card activations, the marketplace of content providers'
-- offers, and the outbox that carries webhook events written in the same transaction as a change.

-- Offers a content provider puts on the marketplace (not owned by any account: the catalogue every
-- publisher browses). Publishers adopt them as offers of their own (offers.marketplace_offer_id).
create table marketplace_offers (
  id uuid primary key,
  name text not null,
  brand_name text not null,
  brand_logo_url text,
  country_code text not null,
  currency text not null,
  channels jsonb not null,
  start_date timestamp not null,
  end_date timestamp not null,
  start_at timestamptz not null,
  end_at timestamptz not null,
  type_name text not null check (type_name in ('amount', 'discount')),
  type_value numeric not null,
  max_reward_amount numeric,
  activation_enabled boolean not null,
  qualified_transactions_limit int,
  days_of_week jsonb not null,
  schemes jsonb not null,
  min_transaction_amount numeric not null,
  max_transaction_amount numeric,
  return_period int not null,
  fees jsonb not null,
  targeting jsonb,
  transaction_source text check (transaction_source in ('oaas')),
  additional_terms text,
  supplier_id text not null,
  supplier_type text not null check (supplier_type in ('merchant', 'affiliate')),
  supplier_name text not null,
  -- The simulated brand's answer to a publisher who adopts the offer, and how long it takes.
  brand_decision text not null check (brand_decision in ('accept', 'decline')),
  brand_decision_hours int not null,
  created timestamptz not null,
  updated timestamptz not null
);
create index marketplace_offers_created on marketplace_offers (created, id);

-- Dates are local to the location (`timestamp`, no zone); start_at/end_at are the same moments read
-- in the country's main time zone, written with the dates, so status filters compare instants.
create table offers (
  id uuid primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  live boolean not null,
  brand_id uuid not null references brands (id) on delete cascade,
  variant text not null check (variant in ('standard', 'targeting')),
  name text not null,
  country_code text not null,
  currency text not null,
  start_date timestamp not null,
  end_date timestamp,
  start_at timestamptz not null,
  end_at timestamptz,
  type_name text not null check (type_name in ('amount', 'discount')),
  type_value numeric not null,
  max_reward_amount numeric,
  activation_enabled boolean not null,
  qualified_transactions_limit int check (qualified_transactions_limit >= 1),
  days_of_week jsonb not null,
  schemes jsonb not null,
  min_transaction_amount numeric not null,
  max_transaction_amount numeric,
  return_period int not null,
  fee_split numeric,
  fees jsonb,
  targeting jsonb,
  transaction_source text check (transaction_source in ('oaas')),
  funded_id text not null,
  funded_type text not null check (funded_type in ('merchant', 'card-linking', 'affiliate')),
  origin_id text not null,
  origin_type text not null check (origin_type in ('merchant', 'card-linking', 'affiliate')),
  supplier_id text,
  supplier_type text check (supplier_type in ('merchant', 'card-linking', 'affiliate')),
  accepted boolean not null,
  metadata jsonb,
  additional_terms text,
  brand_logo_url text,
  -- Adopted from the marketplace: the source, the program it was added to, and the brand's approval.
  marketplace_offer_id uuid references marketplace_offers (id),
  program_id uuid references programs (id) on delete set null,
  approval text check (approval in ('pending', 'accepted', 'declined')),
  approval_decision text check (approval_decision in ('accept', 'decline')),
  approval_due timestamptz,
  created timestamptz not null,
  updated timestamptz not null,
  unique (account_id, live, marketplace_offer_id)
);
create index offers_owner on offers (account_id, live, created, id);
create index offers_brand on offers (brand_id);
create index offers_marketplace on offers (marketplace_offer_id) where marketplace_offer_id is not null;
create index offers_approval_due on offers (approval_due) where approval = 'pending';

create table offer_locations (
  offer_id uuid not null references offers (id) on delete cascade,
  location_id uuid not null references locations (id) on delete cascade,
  created timestamptz not null,
  primary key (offer_id, location_id)
);
create index offer_locations_location on offer_locations (location_id);

-- A card's activation of an activation-enabled offer; no row means "not activated".
create table offer_activations (
  id uuid primary key,
  offer_id uuid not null references offers (id) on delete cascade,
  card_id uuid not null references cards (id) on delete cascade,
  account_id uuid not null references accounts (id) on delete cascade,
  live boolean not null,
  state text not null check (state in ('activated', 'deactivated')),
  qualified_transactions int not null default 0,
  activated timestamptz not null,
  deactivated timestamptz,
  deactivation_reason text check (deactivation_reason in ('publisher', 'limit')),
  created timestamptz not null,
  updated timestamptz not null,
  unique (offer_id, card_id)
);
create index offer_activations_offer on offer_activations (offer_id, created, id);
create index offer_activations_card on offer_activations (card_id);

-- What reads return: the offer with its brand's name and its linked-location count.
-- (A view fixes its columns when created: a migration that adds columns to offers recreates it.)
create view offer_records as
  select o.*, b.name as brand_name,
    (select count(*)::int from offer_locations ol where ol.offer_id = o.id) as locations_count
  from offers o join brands b on b.id = o.brand_id;

-- Webhook events, written in the same transaction as the change they report; the dispatcher
-- delivers them. program_id null means the publisher's hooks on every program of the account.
create table outbox (
  id uuid primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  live boolean not null,
  program_id uuid references programs (id) on delete cascade,
  event text not null,
  data jsonb not null,
  created timestamptz not null,
  dispatched timestamptz
);
create index outbox_account on outbox (account_id, live, created);
