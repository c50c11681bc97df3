-- Events you can see and replay: every attempt keeps the request headers it sent (the signature header,
-- never the secret) and the first 4 KB of the answer's body; a program's events are listed newest first.
alter table webhook_attempts add column request_headers jsonb;
alter table webhook_attempts add column response_body text;
alter table webhook_attempts add column retry_after_ms int;

create index outbox_program on outbox (program_id, created, id);
