-- The networks as they behave: an authorisation left uncleared expires (the network withdraws it), told by
-- `transaction.auth.expired` — a stage event like the others, claimed once per transaction.
alter table transactions add column expired_at timestamptz;
-- The stage events a transaction may claim: every transaction event, whatever it is named. The list of
-- names is the service's (src/domain/stage-events.ts); the check keeps out anything else, and is replaced
-- whatever it was named.
do $$
declare c record;
begin
  for c in select conname from pg_constraint where conrelid = 'transaction_stages'::regclass and contype = 'c' and pg_get_constraintdef(oid) ~ '\mevent\M'
  loop
    execute format('alter table transaction_stages drop constraint %I', c.conname);
  end loop;
end $$;
alter table transaction_stages add constraint transaction_stages_event_check check (event like 'transaction.%');
