// The locations linked to an offer, as a predicate a list of locations can add to its filters: catalog lists
// the locations but cannot import offers, so the predicate over offers' table comes from here.

/** A predicate over `locations` with `?` standing for each of `params`, in order. */
export interface LocationPredicate {
  sql: string;
  params: unknown[];
}

/** Locations linked to the offer. */
export function linkedToOffer(offerId: string): LocationPredicate {
  return { sql: "exists (select 1 from offer_locations ol where ol.location_id = locations.id and ol.offer_id = ?)", params: [offerId] };
}
