-- How much of an authorisation the network has cleared so far: a purchase may clear in parts, up to its
-- amount (it is `cleared` once nothing is left). A purchase already cleared when the column is added
-- counts as cleared in one.
alter table simulator_purchases add column if not exists cleared numeric not null default 0;
update simulator_purchases set cleared = amount where state = 'cleared' and cleared = 0;
