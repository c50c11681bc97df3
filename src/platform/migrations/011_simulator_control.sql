-- The service's side of the simulator controls: what the operator asked the simulated networks for
-- (faults per scheme, traffic runs), which the /admin API answers from and publishes on the
-- simulator.settings topic, and what the networks report back over the bus about each run. The
-- simulators keep their own copy in their own store (simulators/host/store.ts); these are never read by them.

create sequence simulator_setting_versions;

create table network_faults (
  scheme text primary key check (scheme in ('visa', 'mastercard', 'amex')),
  faults jsonb not null,
  version bigint not null,
  updated timestamptz not null
);

create table traffic_runs (
  id text primary key,
  -- Order of starts: with a frozen clock several runs start at one service time.
  seq bigint generated always as identity,
  options jsonb not null,
  state text not null check (state in ('running', 'stopped')),
  started timestamptz not null,
  stopped timestamptz
);
create index traffic_runs_seq on traffic_runs (seq);

-- A network's latest report on a run (simulator.traffic.progress): totals, so the largest wins.
create table traffic_run_counts (
  run_id text not null,
  scheme text not null check (scheme in ('visa', 'mastercard', 'amex')),
  purchases bigint not null,
  sent jsonb not null,
  dropped bigint not null,
  duplicated bigint not null,
  -- Messages sent and dropped: it only grows, so a report redelivered after a later one is told apart.
  messages bigint not null,
  primary key (run_id, scheme)
);

-- A database that the simulators share with the service (`npm start`) may hold their settings in their own
-- tables, made there by older releases' service migrations: the operator's faults and traffic runs, and the
-- runs' counts from the purchases and messages, start from them. Elsewhere there is nothing to take over.
do $$
begin
  if to_regclass('simulator_faults') is not null then
    insert into network_faults (scheme, faults, version, updated)
      select scheme, faults, nextval('simulator_setting_versions'), updated from simulator_faults;
    insert into traffic_runs (id, options, state, started, stopped)
      select id, options, state, started, stopped from simulator_traffic order by seq;
    insert into traffic_run_counts (run_id, scheme, purchases, sent, dropped, duplicated, messages)
      select p.run_id, p.scheme, count(distinct p.id),
             jsonb_build_object(
               'auth', coalesce(sum(m.copies) filter (where m.kind = 'auth'), 0),
               'clearing', coalesce(sum(m.copies) filter (where m.kind = 'clearing'), 0),
               'refund', coalesce(sum(m.copies) filter (where m.kind = 'refund'), 0),
               'void', coalesce(sum(m.copies) filter (where m.kind = 'void'), 0)),
             count(m.message_id) filter (where m.delivery = 'dropped'),
             count(m.message_id) filter (where m.copies > 1),
             coalesce(sum(m.copies), 0) + count(m.message_id) filter (where m.delivery = 'dropped')
      from simulator_purchases p left join simulator_messages m on m.purchase_id = p.id
      where p.run_id is not null
      group by p.run_id, p.scheme;
  end if;
end
$$;
