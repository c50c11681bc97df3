-- Dashboard sign-ins, server-side: the cookie carries a random id whose SHA-256 is the key here, so a
-- session ends for good at sign-out or when its key is revoked or rotated, whatever the browser kept.
-- Written by src/services/accounts/sessions.ts only.
create table dashboard_sessions (
  id_hash text primary key,
  -- The signed-in key; null for the operator (admin token).
  key_id uuid references api_keys (id) on delete cascade,
  created timestamptz not null,
  expires timestamptz not null
);
create index dashboard_sessions_key on dashboard_sessions (key_id) where key_id is not null;
create index dashboard_sessions_expires on dashboard_sessions (expires);
