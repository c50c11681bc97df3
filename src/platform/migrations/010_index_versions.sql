-- The qualifier's in-memory indexes reload when a version row changes. Versions move only when rows did,
-- read from the statement's transition table: statement triggers fire even when a statement changes no row,
-- and the due-work sweeps (marketplace answers, brand consents) run an update every half second that usually
-- changes nothing, which would otherwise reload the offer index each time.
drop trigger offers_changed on offers;
drop trigger offer_locations_changed on offer_locations;

-- A version the qualifier's in-memory location index (MIDs to locations) compares to know when to reload.
create table location_index_version (
  id boolean primary key default true check (id),
  version bigint not null
);
insert into location_index_version (version) values (0);

create function bump_index_version_if_changed() returns trigger language plpgsql as $$
declare
  changed boolean;
begin
  if TG_OP = 'DELETE' then
    select exists (select 1 from old_rows) into changed;
  else
    select exists (select 1 from new_rows) into changed;
  end if;
  if changed then
    if TG_ARGV[0] = 'offer' then
      update offer_index_version set version = version + 1;
    else
      update location_index_version set version = version + 1;
    end if;
  end if;
  return null;
end $$;

create trigger offers_inserted after insert on offers referencing new table as new_rows
  for each statement execute function bump_index_version_if_changed('offer');
create trigger offers_updated after update on offers referencing new table as new_rows
  for each statement execute function bump_index_version_if_changed('offer');
create trigger offers_deleted after delete on offers referencing old table as old_rows
  for each statement execute function bump_index_version_if_changed('offer');
create trigger offer_locations_inserted after insert on offer_locations referencing new table as new_rows
  for each statement execute function bump_index_version_if_changed('offer');
create trigger offer_locations_updated after update on offer_locations referencing new table as new_rows
  for each statement execute function bump_index_version_if_changed('offer');
create trigger offer_locations_deleted after delete on offer_locations referencing old table as old_rows
  for each statement execute function bump_index_version_if_changed('offer');

create trigger locations_inserted after insert on locations referencing new table as new_rows
  for each statement execute function bump_index_version_if_changed('location');
create trigger locations_updated after update on locations referencing new table as new_rows
  for each statement execute function bump_index_version_if_changed('location');
create trigger locations_deleted after delete on locations referencing old table as old_rows
  for each statement execute function bump_index_version_if_changed('location');
create trigger location_networks_inserted after insert on location_networks referencing new table as new_rows
  for each statement execute function bump_index_version_if_changed('location');
create trigger location_networks_updated after update on location_networks referencing new table as new_rows
  for each statement execute function bump_index_version_if_changed('location');
create trigger location_networks_deleted after delete on location_networks referencing old table as old_rows
  for each statement execute function bump_index_version_if_changed('location');
create trigger brands_updated after update on brands referencing new table as new_rows
  for each statement execute function bump_index_version_if_changed('location');
