-- The network lifecycle: location syncs of a program (one running at a time), the onboarding request
-- of each location and scheme with its answer (a case when the network could not onboard it), and
-- missing transaction requests.

create table program_syncs (
  id uuid primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  live boolean not null,
  program_id uuid not null references programs (id) on delete cascade,
  status text not null check (status in ('running', 'completed')),
  started timestamptz not null,
  ended timestamptz
);
-- The spec's "one sync per program at a time", kept by the database too.
create unique index program_syncs_one_running on program_syncs (program_id) where status = 'running';
create index program_syncs_program on program_syncs (program_id, started);

alter table location_networks add column sync_id uuid references program_syncs (id) on delete set null;
-- The onboarding request sent to the network for this scheme, and when it went on the bus.
alter table location_networks add column request_id uuid;
alter table location_networks add column request_sent timestamptz;
-- The MIDs the client supplied at creation: they speed onboarding and give the origin customer-provided-mid.
alter table location_networks add column client_mids jsonb not null default '[]';
-- Not found: the case the network opened.
alter table location_networks add column case_id uuid;
alter table location_networks add column case_reason text;
alter table location_networks add column case_opened timestamptz;
create index location_networks_sync on location_networks (sync_id) where sync_id is not null;
create index location_networks_unsent on location_networks (request_id) where request_sent is null and request_id is not null;
create unique index location_networks_request on location_networks (request_id) where request_id is not null;

create table missing_transaction_requests (
  id uuid primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  live boolean not null,
  program_id uuid not null references programs (id) on delete cascade,
  brand_id uuid not null,
  location_id uuid not null,
  card_id uuid not null,
  card_last_numbers text not null,
  amount numeric not null check (amount >= 0),
  transaction_date date not null,
  scheme text not null check (scheme in ('visa', 'mastercard', 'amex')),
  status text not null check (status in ('pending', 'processing', 'successful', 'failed')),
  -- When the request leaves pending for the network: 4 days after the transaction date (live).
  due_at timestamptz not null,
  estimated_completion timestamptz not null,
  -- When the look-up went on the bus; null while it still has to be sent.
  lookup_sent timestamptz,
  result jsonb,
  created timestamptz not null,
  updated timestamptz not null
);
create index missing_transaction_requests_program on missing_transaction_requests (program_id, created, id);
create index missing_transaction_requests_due on missing_transaction_requests (due_at) where status = 'pending';
create index missing_transaction_requests_unsent on missing_transaction_requests (created) where status = 'processing' and lookup_sent is null;

-- Commands to the networks written with the change they report (a card enrolled or removed), sent
-- after the commit; what a failed publish left behind the workers send on their next pass.
create table network_outbox (
  id uuid primary key,
  topic text not null,
  key text not null,
  value jsonb not null,
  created timestamptz not null,
  sent timestamptz
);
create index network_outbox_unsent on network_outbox (created) where sent is null;
