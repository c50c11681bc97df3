-- The environment a dashboard session acts in: null for the signed-in key's own, else a sandbox of the
-- key's account the session switched to. No foreign key: a sandbox deleted (or expired) while chosen is
-- noticed on the next page, which falls back to the key's environment and says so.
alter table dashboard_sessions add column sandbox_id uuid;
