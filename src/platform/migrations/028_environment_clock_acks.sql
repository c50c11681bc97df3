-- The networks' acknowledgements of a sandbox's clock (network.clock.acks), as the lifecycle workers record
-- them: the sandbox's advance waits, in whichever process it runs, for each network's, and then for the
-- onboarding replies each lists to be applied. A row is read once by the advance that waits for it; rows
-- nobody waited for are removed by later inserts after an hour.
create table environment_clock_acks (
  ack_id uuid not null,
  scheme text not null check (scheme in ('visa', 'mastercard', 'amex')),
  environment uuid not null,
  onboarding_replies uuid[] not null,
  received timestamptz not null default now(),
  primary key (ack_id, scheme)
);
create index environment_clock_acks_received on environment_clock_acks (received);

-- The advance waits woken by this, not by polling (src/services/simulator-control/environment-clock.ts).
create trigger environment_clock_acked after insert on environment_clock_acks
  for each statement execute function cardlink_notify('cardlink_clock_acks');
