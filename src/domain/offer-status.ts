// Offer status (requests, upcoming, live, expired) as a function of the offer and service time.
// Every read and the list filters (through the stored window instants) use these.
import { countryByAlpha3 } from "./countries.ts";
import { instantOf } from "./local-dates.ts";

export const OFFER_STATUSES = ["requests", "upcoming", "live", "expired"] as const;
export type OfferStatus = (typeof OFFER_STATUSES)[number];

/** A marketplace offer's approval by its brand; self-sourced offers have none. */
export type Approval = "pending" | "accepted" | "declined";

export interface OfferTiming {
  /** YYYY-MM-DDThh:mm:ss, local. */
  startDate: string;
  endDate: string | null;
  countryCode: string;
  /** Linked locations; -1 for `transactionSource: "oaas"` offers, which link none and need none. */
  locationsTotal: number;
  marketplace: { approval: Approval } | null;
}

/**
 * The zone an offer's status is computed in: its country's main time zone. The few territories
 * the time-zone data gives no zone (Bouvet Island, Heard Island) use UTC.
 */
export const statusZone = (countryCode: string): string => countryByAlpha3(countryCode)?.mainTimezone ?? "UTC";

/** The instants an offer starts and ends, read in its country's main time zone. */
export function offerWindow(offer: Pick<OfferTiming, "startDate" | "endDate" | "countryCode">): {
  startAt: Date;
  endAt: Date | null;
} {
  const zone = statusZone(offer.countryCode);
  return { startAt: instantOf(offer.startDate, zone), endAt: offer.endDate === null ? null : instantOf(offer.endDate, zone) };
}

/**
 * The spec's states: expired once the end has passed; requests while a marketplace offer awaits (or
 * lost) its brand's approval, or while no location is linked; upcoming with a location before the
 * start; live between start and end, inclusive — so a past startDate with a location is live at once.
 * An oaas offer never has a linked location, so it is never upcoming: it is requests until its
 * startDate (the spec's "creation -> requests"; "requests = startDate in the future and/or no linked
 * locations") and live from then, needing no location.
 */
export function statusFromWindow(
  window: { startAt: Date; endAt: Date | null },
  offer: Pick<OfferTiming, "locationsTotal" | "marketplace">,
  now: Date,
): OfferStatus {
  if (window.endAt !== null && now.getTime() > window.endAt.getTime()) return "expired";
  if (offer.marketplace !== null && offer.marketplace.approval !== "accepted") return "requests";
  if (offer.locationsTotal === 0) return "requests";
  if (now.getTime() < window.startAt.getTime()) return offer.locationsTotal === -1 ? "requests" : "upcoming";
  return "live";
}

/** The offer's status at service time `now`. */
export const offerStatusAt = (offer: OfferTiming, now: Date): OfferStatus =>
  statusFromWindow(offerWindow(offer), offer, now);

/** The dashboard's 'expiring soon' group: live offers ending within this many days unless a list says otherwise. */
export const DEFAULT_EXPIRING_DAYS = 30;

