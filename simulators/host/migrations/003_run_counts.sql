-- What each network has done for a traffic run, kept as totals by the transaction that writes its
-- purchases and messages: a progress report reads one row instead of counting the run's history.
create table if not exists simulator_run_counts (
  run_id text not null,
  scheme text not null check (scheme in ('visa', 'mastercard', 'amex')),
  purchases bigint not null default 0,
  -- Messages published by kind, duplicates counted.
  auth bigint not null default 0,
  clearing bigint not null default 0,
  refund bigint not null default 0,
  void bigint not null default 0,
  -- Messages a drop fault kept from the bus, and messages published twice.
  dropped bigint not null default 0,
  duplicated bigint not null default 0,
  primary key (run_id, scheme)
);

-- Runs already in the store: their totals from their history.
insert into simulator_run_counts (run_id, scheme, purchases, auth, clearing, refund, void, dropped, duplicated)
  select p.run_id, p.scheme, count(distinct p.id),
         coalesce(sum(m.copies) filter (where m.kind = 'auth'), 0),
         coalesce(sum(m.copies) filter (where m.kind = 'clearing'), 0),
         coalesce(sum(m.copies) filter (where m.kind = 'refund'), 0),
         coalesce(sum(m.copies) filter (where m.kind = 'void'), 0),
         count(m.message_id) filter (where m.delivery = 'dropped'),
         count(m.message_id) filter (where m.copies > 1)
  from simulator_purchases p left join simulator_messages m on m.purchase_id = p.id
  where p.run_id is not null
  group by p.run_id, p.scheme
on conflict (run_id, scheme) do nothing;
