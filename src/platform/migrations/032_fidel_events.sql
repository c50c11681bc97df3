-- Fidel's events (issue 34): the stage claim of transaction.refund.qualified, a card's enrolment outcome,
-- marketplace offers private to one account (the fixtures `cardlink trigger` adopts), and the adopted
-- marketplace offers whose going live was announced (marketplace.offer.live, once per offer).

alter table transaction_stages drop constraint transaction_stages_event_check;
alter table transaction_stages add constraint transaction_stages_event_check check (event in ('transaction.auth', 'transaction.clearing',
  'transaction.refund', 'transaction.auth.qualified', 'transaction.clearing.qualified', 'transaction.refund.qualified'));

-- linked: the network enrolled it; failed: it refused (failure_reason says why), and the card is kept only
-- as the record of that answer: the network never knows it, no transaction names it.
alter table cards add column status text not null default 'linked' check (status in ('linked', 'failed'));
alter table cards add column failure_reason text;

-- A marketplace offer only this account sees and adopts (null: every publisher's marketplace).
alter table marketplace_offers add column private_to uuid references accounts (id) on delete cascade;

create table marketplace_offer_live (
  offer_id uuid primary key references offers (id) on delete cascade,
  announced timestamptz not null
);
-- Adopted offers made before this migration count as announced: nobody is told again of an old offer.
insert into marketplace_offer_live (offer_id, announced)
  select id, updated from offers where marketplace_offer_id is not null;
