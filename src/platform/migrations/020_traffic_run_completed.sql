-- A traffic run with a duration ends as `completed` once every network of the run has reported all its
-- planned purchases (stopped: by the operator, or by the run after it).
alter table traffic_runs drop constraint if exists traffic_runs_state_check;
alter table traffic_runs add constraint traffic_runs_state_check check (state in ('running', 'stopped', 'completed'));

-- The run's achieved rate, in real time (the service clock may be frozen or advanced): its purchases over
-- the time from when it was asked for to the latest report of its networks, as the database's clock saw them.
alter table traffic_runs add column requested timestamptz not null default clock_timestamp();
alter table traffic_run_counts add column reported timestamptz;
