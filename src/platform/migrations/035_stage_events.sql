-- The stage events of both 031 (transaction.auth.expired) and 032 (transaction.refund.qualified): 032 set
-- the check to a list without the expiry, which a database migrated in name order would refuse.
alter table transaction_stages drop constraint if exists transaction_stages_event_check;
alter table transaction_stages add constraint transaction_stages_event_check check (event in ('transaction.auth', 'transaction.clearing',
  'transaction.refund', 'transaction.auth.qualified', 'transaction.clearing.qualified', 'transaction.refund.qualified',
  'transaction.auth.expired'));
