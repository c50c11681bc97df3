-- What the networks do besides authorising, clearing, refunding and voiding: an authorisation may be
-- incremented (a message of kind 'increment'), and one left uncleared expires (state 'expired', a message
-- of kind 'expiry'); increments, expiries and clearings sent again wait in the due-queue like clearings.
-- The check constraints on these columns are replaced whatever they were named (a store made by an older
-- release of the service's own migrations may have them under other names).
do $$
declare c record;
begin
  for c in
    select conrelid::regclass as t, conname from pg_constraint
    where contype = 'c'
      and conrelid in ('simulator_purchases'::regclass, 'simulator_messages'::regclass, 'simulator_due'::regclass)
      and pg_get_constraintdef(oid) ~ '\m(state|kind)\M'
  loop
    execute format('alter table %s drop constraint %I', c.t, c.conname);
  end loop;
end $$;
alter table simulator_purchases add constraint simulator_purchases_state_check
  check (state in ('authorized', 'cleared', 'voided', 'expired'));
alter table simulator_messages add constraint simulator_messages_kind_check
  check (kind in ('auth', 'increment', 'clearing', 'refund', 'void', 'expiry'));
alter table simulator_due add constraint simulator_due_kind_check
  check (kind in ('clearing', 'void', 'refund', 'onboarding-reply', 'expiry', 'increment', 'resend'));
