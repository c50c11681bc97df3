-- The store's identity. Each network reads simulator.settings in a consumer group named after it: a fresh
-- store (a new volume, a wiped folder) reads every setting from the topic's start, one that persists
-- resumes where it was.
create table if not exists simulator_store (
  id boolean primary key default true check (id),
  store_id text not null
);
insert into simulator_store (store_id) values (gen_random_uuid()::text) on conflict (id) do nothing;
