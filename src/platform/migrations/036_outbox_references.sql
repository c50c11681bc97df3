-- Transaction events refer to their transaction instead of copying it. The events' table is now
-- `outbox_events`: a transaction event keeps its transaction's id and, in `data`, only what a later stage may
-- change in the record (the stage's own view: its flags, authorised amount, expiry, identifiers, offer
-- result, cleared amount, refund link, `updated`; stageViewOf in src/services/transactions/transactions.ts);
-- every other event keeps its whole payload in `data`, as before, and so do the events written before this
-- migration. `outbox` is the events as they are delivered: a view that assembles each transaction event's
-- payload from the transaction's row and the stage's view, so every reader (the dispatcher's claims, the
-- events pages, the request log's events) sees the payload the event was written with.

alter table outbox rename to outbox_events;
alter table outbox_events add column transaction_id uuid;

-- The keys of `j` among `keys`, as JavaScript's `{ a: j.a, b: j.b }` keeps them (a key `j` lacks is left out).
create function jsonb_pick(j jsonb, keys text[]) returns jsonb language sql immutable as $$
  select case when j is null or jsonb_typeof(j) <> 'object' then j
    else coalesce((select jsonb_object_agg(e.key, e.value) from jsonb_each(j) e where e.key = any(keys)), '{}'::jsonb) end
$$;

-- What a later stage never changes in a transaction's record, in the record's shape (toTransaction in
-- src/services/transactions/transactions.ts): the stage's view is laid over it. `amount` is not here: an
-- incremental authorisation changes it.
create function transaction_event_base(t transactions) returns jsonb language sql stable as $$
  select jsonb_build_object(
    'id', t.id, 'accountId', t.account_id, 'programId', t.program_id, 'live', t.live, 'type', t.kind,
    'originalTransactionId', t.original_id, 'authTransactionId', t.auth_id,
    'datetime', to_char(t.datetime, 'YYYY-MM-DD"T"HH24:MI:SS'),
    'created', to_char(t.created at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'cardPresent', t.card_present, 'currency', t.currency, 'wallet', t.wallet, 'targetingTag', t.targeting_tag,
    'card', jsonb_pick(t.card, array['id', 'firstNumbers', 'lastNumbers', 'scheme', 'metadata']),
    'brand', jsonb_pick(t.brand, array['id', 'name', 'logoUrl']),
    'location', case when t.location is null or jsonb_typeof(t.location) <> 'object' then t.location
      else jsonb_pick(t.location, array['id', 'address', 'city', 'postcode', 'countryCode', 'timezone', 'geolocation', 'metadata'])
        || case when jsonb_typeof(t.location -> 'geolocation') = 'object'
             then jsonb_build_object('geolocation', jsonb_pick(t.location -> 'geolocation', array['latitude', 'longitude'])) else '{}'::jsonb end
    end)
$$;

-- A view over the one table: besides its `data`, its columns are the table's, so an update of them (the
-- dispatched mark) goes to the table.
create view outbox as
  select e.id, e.account_id, e.live, e.program_id, e.event,
    case when e.transaction_id is null then e.data
      else coalesce((select transaction_event_base(t) from transactions t where t.id = e.transaction_id), '{}'::jsonb) || e.data end as data,
    e.created, e.dispatched, e.queued, e.transaction_id
  from outbox_events e;

-- An event written through the view (a script or a test that writes the outbox as it was) is an event
-- with its whole payload.
create function outbox_insert() returns trigger language plpgsql as $$
begin
  insert into outbox_events (id, account_id, live, program_id, event, data, created, dispatched, queued, transaction_id)
  values (new.id, new.account_id, new.live, new.program_id, new.event, new.data, new.created, new.dispatched, coalesce(new.queued, now()), null);
  return new;
end;
$$;

create trigger outbox_insert instead of insert on outbox for each row execute function outbox_insert();
