-- Per-endpoint delivery health: a hook that keeps failing is paused (on service time) between probes and,
-- after a long failure streak, disabled with its reason until it is re-enabled. Claims name their owner
-- so a dispatcher renews only its own leases.
alter table hooks add column failure_streak int not null default 0;
alter table hooks add column failing_since timestamptz;
alter table hooks add column paused_until timestamptz;
alter table hooks add column last_error text;
alter table hooks add column disabled_at timestamptz;
alter table hooks add column disabled_reason text;

alter table webhook_deliveries add column lease_owner uuid;
create index webhook_deliveries_hook_due on webhook_deliveries (hook_id, next_attempt) where status = 'pending';
