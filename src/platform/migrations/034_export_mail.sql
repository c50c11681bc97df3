-- Each MID insight export's e-mail, one per recipient: sent by the workers through SMTP_URL (or kept in
-- DATA_DIR/mail without it) with the file attached, and tried again with backoff while sending fails. A
-- mail's fate never touches its export: the file stays downloadable whatever happens to the mail.
-- `created` and `sent` are the environment's time, as every record's; `next_attempt` and `claimed_until`
-- the database's real time, since an SMTP server's outage lasts real seconds whatever the clock's speed.
create table mid_insight_export_mails (
  id uuid primary key,
  export_id uuid not null references mid_insight_exports (id) on delete cascade,
  account_id uuid not null references accounts (id) on delete cascade,
  live boolean not null,
  recipient text not null,
  status text not null default 'pending' check (status in ('pending', 'retrying', 'sent', 'failed')),
  attempts int not null default 0,
  next_attempt timestamptz(3),
  claimed_until timestamptz(3),
  last_error text,
  transport text check (transport in ('smtp', 'local')),
  message_id text,
  sent timestamptz(3),
  created timestamptz(3) not null
);
-- The workers' sweep: what is due to be tried, oldest first.
create index mid_insight_export_mails_due on mid_insight_export_mails (next_attempt) where status in ('pending', 'retrying');
create index mid_insight_export_mails_export on mid_insight_export_mails (export_id);
create index mid_insight_export_mails_account on mid_insight_export_mails (account_id, live, created, id);
