-- How much of an authorisation the network has cleared so far: a purchase may clear in parts, up to its
-- amount (it is `cleared` once nothing is left). Purchases cleared before this column clear in one.
alter table simulator_purchases add column if not exists cleared numeric not null default 0;
update simulator_purchases set cleared = amount where state = 'cleared' and cleared = 0;
