// What a test purchase is made of, as the catalog holds it: the cards and the locations at every network, as SQL for
// the purchase round's one statement (it reads both together with no round trip of its own), with their row types.
import type { Scheme } from "../../domain/scheme.ts";

/** A location at one network, as a purchase is made at it. */
export interface PurchaseLocation {
  id: string;
  account_id: string;
  live: boolean;
  program_id: string;
  address: string;
  city: string;
  postcode: string;
  country_code: string;
  timezone: string;
  brand_name: string;
  scheme: Scheme;
  status: string;
  mids: Record<string, string>[];
  /** When the network answered the location's onboarding (an ISO time); null while it has not. */
  answered: string | null;
}

/** A card as a purchase is made with it. */
export interface PurchaseCard {
  id: string;
  account_id: string;
  live: boolean;
  program_id: string;
  scheme: Scheme;
  first_numbers: string;
  last_numbers: string;
  status: string;
  failure_reason: string | null;
  /** ISO 3166-1 alpha-3: where the card was issued, so what it is billed in. */
  country_code: string;
  /** The sandbox the card is in (its account id), null for an account's own environments. */
  environment: string | null;
}

/** `select …`: the PurchaseCard rows of the card ids in `ids` (the placeholder of a uuid array), of any caller. */
export const purchaseCardsSql = (ids: string): string =>
  `select c.id, c.account_id, c.live, c.program_id, c.scheme, c.first_numbers, c.last_numbers, c.status, c.failure_reason, c.country_code,
             sandbox_of(c.account_id) as environment
           from cards c where c.id = any(${ids}::uuid[])`;

/** `select …`: the PurchaseLocation rows, one per network, of the location ids in `ids` (the placeholder of a uuid array), of any caller. */
export const purchaseLocationsSql = (ids: string): string =>
  `select l.id, l.account_id, l.live, l.program_id, l.address, l.city, l.postcode, l.country_code, l.timezone,
             b.name as brand_name, n.scheme, n.status, n.mids, n.answered
           from locations l join brands b on b.id = l.brand_id join location_networks n on n.location_id = l.id
           where l.id = any(${ids}::uuid[])`;
