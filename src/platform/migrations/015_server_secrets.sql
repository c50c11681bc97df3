-- Secrets the service keeps for itself, shared by every process of a deployment (several api replicas
-- key their idempotency fingerprints alike). Written by src/services/accounts/server-secrets.ts only.
create table server_secrets (
  name text primary key,
  value text not null,
  created timestamptz not null default now()
);

-- The fingerprints already recorded are an unsalted SHA-256 of the request body (a card number can be
-- recovered from one): they are deleted, with their 24-hour answers, rather than kept beside keyed ones.
delete from idempotency_keys;
