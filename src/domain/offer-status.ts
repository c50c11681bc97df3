// Offer status (requests, upcoming, live, expired) as a function of the offer and service time.
// Every read, the list filters (through the stored window instants) and the qualifier use these.
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
 */
export function statusFromWindow(
  window: { startAt: Date; endAt: Date | null },
  offer: Pick<OfferTiming, "locationsTotal" | "marketplace">,
  now: Date,
): OfferStatus {
  if (window.endAt !== null && now.getTime() > window.endAt.getTime()) return "expired";
  if (offer.marketplace !== null && offer.marketplace.approval !== "accepted") return "requests";
  if (offer.locationsTotal === 0) return "requests";
  if (now.getTime() < window.startAt.getTime()) return "upcoming";
  return "live";
}

/** The offer's status at service time `now`. */
export const offerStatusAt = (offer: OfferTiming, now: Date): OfferStatus =>
  statusFromWindow(offerWindow(offer), offer, now);

/**
 * Whether the offer runs at a purchase's local time at the location (the qualifier's question; the
 * location is linked by construction). Compares wall-clock times, so it holds in the location's zone.
 */
export function isLiveAtLocal(
  offer: Pick<OfferTiming, "startDate" | "endDate" | "marketplace">,
  localDateTime: string,
): boolean {
  if (offer.marketplace !== null && offer.marketplace.approval !== "accepted") return false;
  return localDateTime >= offer.startDate && (offer.endDate === null || localDateTime <= offer.endDate);
}

export const DEFAULT_EXPIRING_DAYS = 30;

/** The dashboard's 'expiring soon' group: live offers whose end falls within `days` of `now`. */
export function isExpiringWithin(offer: OfferTiming, now: Date, days: number): boolean {
  const window = offerWindow(offer);
  return (
    statusFromWindow(window, offer, now) === "live" &&
    window.endAt !== null &&
    window.endAt.getTime() <= now.getTime() + days * 86_400_000
  );
}
