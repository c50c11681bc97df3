-- A wake-up for what waits on an event's deliveries (`POST /v1/trigger`): a statement that fans outbox events
-- out (marks them dispatched) or records webhook attempts notifies `cardlink_deliveries` when its transaction
-- commits, once per statement.
create trigger outbox_dispatched after update of dispatched on outbox
  for each statement execute function cardlink_notify('cardlink_deliveries');

create trigger webhook_attempts_written after insert on webhook_attempts
  for each statement execute function cardlink_notify('cardlink_deliveries');
