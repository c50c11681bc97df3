-- What the qualifier saw when it recorded a transaction, for the dashboard's transaction page and
-- GET /v1/transactions/{id}/qualification (never the public transaction record or its webhooks).
-- considered: the offers it decided between, written with the row by the qualifier (the domain's
-- `decision`): {"offers": [{"offerId", "outcome": "won"|"lost"|"rejected", "cashback"?, "performanceFee"?,
-- "reason"?}, …at most 20], "more": <how many beyond>}; null on refunds (they reverse their purchase's
-- award) and on rows already there when the column is added.
-- native_messages: the scheme's own message each stage of the row was made from, as the qualifier received
-- it off the bus, by stage: {"auth": {…}, "clearing": {…}, "void": {…}, "refund": {…}}; the first message
-- of a stage is kept. A clearing or refund that is a row of its own keeps its own message.
alter table transactions add column considered jsonb;
alter table transactions add column native_messages jsonb;
