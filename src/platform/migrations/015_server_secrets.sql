-- Secrets the service keeps for itself, shared by every process of a deployment (several api replicas
-- key their idempotency fingerprints alike). Written by src/services/accounts/server-secrets.ts only.
create table server_secrets (
  name text primary key,
  value text not null,
  created timestamptz not null default now()
);

-- Fingerprints were an unsalted SHA-256 of the request body (a card number could be recovered from one):
-- they are dropped, with their 24-hour answers, rather than kept beside the keyed ones.
delete from idempotency_keys;
