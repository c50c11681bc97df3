-- MIDs, their per-program insights, per-day totals that keep `count` fast, and insight exports.
-- Enum values are declared alphabetically, so sorting by them sorts alphabetically.

create type mid_scheme as enum ('amex', 'mastercard', 'visa');
create type mid_insight_status as enum ('offboarded', 'onboarded', 'sourced');
create type mid_origin as enum (
  'address-match', 'brand-provided-mid', 'customer-provided-mid', 'manual-mid-lookup',
  'missing-transaction-lookup', 'processor-provided-mid', 'system-mid-lookup', 'system-provided-mid',
  'third-party-provided-mid'
);

-- The MID record: a merchant identifier at one network for one location of a program. network_key is
-- the identity the network knows it by (src/domain/mid-insights.ts networkKey).
create table mids (
  id uuid primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  live boolean not null,
  program_id uuid not null references programs (id) on delete cascade,
  brand_id uuid not null references brands (id) on delete cascade,
  location_id uuid not null references locations (id) on delete cascade,
  scheme mid_scheme not null,
  network_key text not null,
  created timestamptz(3) not null,
  unique (program_id, scheme, network_key)
);
create index mids_location on mids (location_id);
create index mids_brand on mids (brand_id);

-- The insight: what the program knows about one MID. The scheme identifiers live here (a MID's
-- identifiers never change) so that the list filters and sorts on one table.
create table mid_insights (
  id uuid primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  live boolean not null,
  program_id uuid not null references programs (id) on delete cascade,
  mid_id uuid not null unique references mids (id) on delete cascade,
  brand_id uuid not null,
  location_id uuid not null,
  scheme mid_scheme not null,
  status mid_insight_status not null,
  -- Optional in the spec; every writer here knows how it found the MID, and a non-null origin lets the
  -- list walk one index range per (status, origin).
  origin mid_origin not null,
  card_network_merchant_name text,
  mc_acquiring_mid text,
  mc_location_id text,
  se_number text,
  visa_acquiring_mid text,
  visa_bin text,
  vmid text,
  vsid text,
  mid_request_id uuid,
  sourced_at timestamptz(3),
  onboarded_at timestamptz(3),
  offboarded_at timestamptz(3),
  offboard_requested_at timestamptz(3),
  offboard_due timestamptz(3),
  last_seen_transaction_date timestamptz(3),
  last_seen_transaction_id uuid,
  first_transaction_auth_id uuid,
  first_transaction_clearing_id uuid,
  event_ts timestamptz(3) not null,
  created timestamptz(3) not null,
  updated timestamptz(3) not null
);

-- One index per sort field, behind the two enum filters: a page is a merge of at most 27 index ranges
-- (3 statuses x 9 origins), each read only as far as the page needs. Absent timestamps sort as infinity:
-- last ascending, first descending.
create index mid_insights_by_created on mid_insights (program_id, status, origin, created, id);
create index mid_insights_by_updated on mid_insights (program_id, status, origin, updated, id);
create index mid_insights_by_event_ts on mid_insights (program_id, status, origin, event_ts, id);
create index mid_insights_by_onboarded on mid_insights
  (program_id, status, origin, coalesce(onboarded_at, 'infinity'::timestamptz), id);
create index mid_insights_by_offboarded on mid_insights
  (program_id, status, origin, coalesce(offboarded_at, 'infinity'::timestamptz), id);
create index mid_insights_by_sourced on mid_insights
  (program_id, status, origin, coalesce(sourced_at, 'infinity'::timestamptz), id);
create index mid_insights_by_last_seen on mid_insights
  (program_id, status, origin, coalesce(last_seen_transaction_date, 'infinity'::timestamptz), id);
create index mid_insights_by_scheme on mid_insights (program_id, status, origin, scheme, id);
-- Sorting by status or origin: both are constant within a range, so id orders it.
create index mid_insights_by_id on mid_insights (program_id, status, origin, id);

-- The exact filters, for lists they narrow to few rows.
create index mid_insights_brand on mid_insights (program_id, brand_id);
create index mid_insights_location on mid_insights (location_id);
-- status and origin ride along so the partial days of a date range are counted from the index alone.
create index mid_insights_last_seen on mid_insights (program_id, last_seen_transaction_date) include (status, origin)
  where last_seen_transaction_date is not null;
create index mid_insights_se_number on mid_insights (program_id, se_number) where se_number is not null;
create index mid_insights_vmid on mid_insights (program_id, vmid) where vmid is not null;
create index mid_insights_vsid on mid_insights (program_id, vsid) where vsid is not null;
create index mid_insights_visa_acquiring_mid on mid_insights (program_id, visa_acquiring_mid)
  where visa_acquiring_mid is not null;
create index mid_insights_visa_bin on mid_insights (program_id, visa_bin) where visa_bin is not null;
create index mid_insights_mc_location_id on mid_insights (program_id, mc_location_id) where mc_location_id is not null;
create index mid_insights_mc_acquiring_mid on mid_insights (program_id, mc_acquiring_mid)
  where mc_acquiring_mid is not null;
create index mid_insights_offboard_due on mid_insights (offboard_due) where offboard_due is not null;

-- Totals per program, status, origin and UTC day of the last seen transaction, kept exact by the
-- statement triggers below: `count` over those filters sums at most a few thousand rows instead of
-- scanning a million. No foreign key: a program's deletion cascades to its insights, whose delete
-- trigger brings these totals to zero.
create table mid_insight_counts (
  program_id uuid not null,
  status mid_insight_status not null,
  origin mid_origin not null,
  last_seen_day date,
  n bigint not null
);
create unique index mid_insight_counts_key on mid_insight_counts (program_id, status, origin, last_seen_day)
  nulls not distinct;

-- Rows are applied in key order so that concurrent writers take the totals' row locks in one order.
create function mid_insight_counts_apply() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into mid_insight_counts (program_id, status, origin, last_seen_day, n)
    select program_id, status, origin, (last_seen_transaction_date at time zone 'UTC')::date, count(*)
    from new_rows group by 1, 2, 3, 4 order by 1, 2, 3, 4
    on conflict (program_id, status, origin, last_seen_day) do update set n = mid_insight_counts.n + excluded.n;
  elsif tg_op = 'DELETE' then
    insert into mid_insight_counts (program_id, status, origin, last_seen_day, n)
    select program_id, status, origin, (last_seen_transaction_date at time zone 'UTC')::date, -count(*)
    from old_rows group by 1, 2, 3, 4 order by 1, 2, 3, 4
    on conflict (program_id, status, origin, last_seen_day) do update set n = mid_insight_counts.n + excluded.n;
  else
    -- Most updates (a transaction on a MID already seen that day) move no row between totals.
    insert into mid_insight_counts (program_id, status, origin, last_seen_day, n)
    select program_id, status, origin, day, sum(d) from (
      select program_id, status, origin, (last_seen_transaction_date at time zone 'UTC')::date as day, 1 as d
      from new_rows
      union all
      select program_id, status, origin, (last_seen_transaction_date at time zone 'UTC')::date, -1 from old_rows
    ) moved group by 1, 2, 3, 4 having sum(d) <> 0 order by 1, 2, 3, 4
    on conflict (program_id, status, origin, last_seen_day) do update set n = mid_insight_counts.n + excluded.n;
  end if;
  return null;
end $$;

create trigger mid_insight_counts_insert after insert on mid_insights
  referencing new table as new_rows for each statement execute function mid_insight_counts_apply();
create trigger mid_insight_counts_update after update on mid_insights
  referencing old table as old_rows new table as new_rows for each statement execute function mid_insight_counts_apply();
create trigger mid_insight_counts_delete after delete on mid_insights
  referencing old table as old_rows for each statement execute function mid_insight_counts_apply();

-- Exports: the request (format, filters, recipients) and its file, kept in chunks so a large export
-- never sits in one value. No mail is sent; the recipients are recorded.
create table mid_insight_exports (
  id uuid primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  live boolean not null,
  program_id uuid not null references programs (id) on delete cascade,
  format text not null check (format in ('csv', 'json')),
  recipients jsonb not null,
  filters jsonb not null,
  sort text not null,
  sort_order text not null check (sort_order in ('asc', 'desc')),
  row_count bigint not null,
  byte_size bigint not null,
  created timestamptz(3) not null
);
create index mid_insight_exports_program on mid_insight_exports (program_id, created, id);

create table mid_insight_export_chunks (
  export_id uuid not null references mid_insight_exports (id) on delete cascade,
  seq int not null,
  content text not null,
  primary key (export_id, seq)
);
