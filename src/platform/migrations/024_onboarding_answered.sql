-- When a network answered a location's onboarding request. A test location with no MIDs on a scheme is
-- either waiting for that answer (a purchase there waits for it) or had them removed by the client after
-- it (a purchase there is refused at once, naming the location). Rows already there count as answered when
-- the network has MIDs (answered, or given by the client) or, for a test location, once the request is
-- sent, since a test network answers a request as soon as it is sent.
alter table location_networks add column answered timestamptz;
update location_networks n set answered = n.updated
from locations l
where l.id = n.location_id and (jsonb_array_length(n.mids) > 0 or (not l.live and n.request_sent is not null));
