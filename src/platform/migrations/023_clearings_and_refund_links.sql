-- Clearings and refunds as the networks send them.
-- An authorisation may clear in parts (a partial clearing, or several clearings up to its amount): its
-- first clearing of the whole amount stays a stage of its own row, any other clearing is a row of its own
-- that names the authorisation (auth_id). The authorisation keeps what its clearings came to (clearings:
-- amount, count, cashback and performance fee), so an offer rewards the purchase once across them. A
-- clearing of its own keys its row as `<purchase key>:clearing:<clearing key>` (Mastercard's transaction
-- sequence number, else the message id), beside its authorisation's.
alter table transactions add column auth_id uuid references transactions (id);
alter table transactions add column clearings jsonb;
-- A purchase's refund (refundTransactionId): the first refund linked to it, by the network's reference or
-- by the matching rule (card, location, MID, amount, time).
alter table transactions add column refund_id uuid references transactions (id);
update transactions set clearings = jsonb_build_object('amount', amount, 'count', 1, 'cashback', (offer ->> 'cashback')::numeric,
  'performanceFee', (offer ->> 'performanceFee')::numeric)
  where kind = 'purchase' and cleared;
update transactions p set refund_id = r.id
  from (select distinct on (original_id) original_id, id from transactions where original_id is not null order by original_id, created, id) r
  where p.id = r.original_id;
-- The refunds' candidates: a card's purchases of one amount that no refund has claimed yet.
create index transactions_refund_candidates on transactions (card_id, amount) where kind = 'purchase' and refund_id is null;
create index transactions_auth on transactions (auth_id) where auth_id is not null;
