-- A wake-up between processes: a statement that writes outbox events notifies `cardlink_outbox`, so the
-- dispatchers claim them at once instead of at their next look. The notification is sent when the writing
-- transaction commits, and repeats within one transaction are sent once.
create function cardlink_notify() returns trigger language plpgsql as $$
begin
  perform pg_notify(tg_argv[0], '');
  return null;
end;
$$;

create trigger outbox_written after insert on outbox
  for each statement execute function cardlink_notify('cardlink_outbox');
