-- MID insight sort indexes that answer a page's keys from the index alone (index-only scans): each carries
-- lastSeenTransactionDate, so a date range is tested without reading the row, and the base column of its
-- sort expression; the lastSeenTransactionDate index carries every sort field, so the insights in a date
-- range can be sorted by any of them without reading a row. Only the page's rows are then read.

drop index mid_insights_by_created;
drop index mid_insights_by_updated;
drop index mid_insights_by_event_ts;
drop index mid_insights_by_onboarded;
drop index mid_insights_by_offboarded;
drop index mid_insights_by_sourced;
drop index mid_insights_by_last_seen;
drop index mid_insights_by_scheme;
drop index mid_insights_by_id;

create index mid_insights_by_created on mid_insights (program_id, status, origin, created, id)
  include (last_seen_transaction_date);
create index mid_insights_by_updated on mid_insights (program_id, status, origin, updated, id)
  include (last_seen_transaction_date);
create index mid_insights_by_event_ts on mid_insights (program_id, status, origin, event_ts, id)
  include (last_seen_transaction_date);
create index mid_insights_by_onboarded on mid_insights
  (program_id, status, origin, coalesce(onboarded_at, 'infinity'::timestamptz), id)
  include (onboarded_at, last_seen_transaction_date);
create index mid_insights_by_offboarded on mid_insights
  (program_id, status, origin, coalesce(offboarded_at, 'infinity'::timestamptz), id)
  include (offboarded_at, last_seen_transaction_date);
create index mid_insights_by_sourced on mid_insights
  (program_id, status, origin, coalesce(sourced_at, 'infinity'::timestamptz), id)
  include (sourced_at, last_seen_transaction_date);
create index mid_insights_by_last_seen on mid_insights
  (program_id, status, origin, coalesce(last_seen_transaction_date, 'infinity'::timestamptz), id)
  include (last_seen_transaction_date, created, updated, event_ts, onboarded_at, offboarded_at, sourced_at, scheme);
create index mid_insights_by_scheme on mid_insights (program_id, status, origin, scheme, id)
  include (last_seen_transaction_date);
create index mid_insights_by_id on mid_insights (program_id, status, origin, id) include (last_seen_transaction_date);
