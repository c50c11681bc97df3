import { describe, expect, it } from "vitest";
import { countryByAlpha3 } from "../../src/domain/countries.ts";
import {
  offerStatusAt,
  offerWindow,
  statusZone,
  type OfferTiming,
} from "../../src/domain/offer-status.ts";

// GBR's main zone is Europe/London (UTC+0 in January); USA's is an Eastern zone (UTC-5 in January).
const offer = (over: Partial<OfferTiming> = {}): OfferTiming => ({
  startDate: "2026-01-01T00:00:00",
  endDate: "2026-12-31T23:59:59",
  countryCode: "GBR",
  locationsTotal: 1,
  marketplace: null,
  ...over,
});
const at = (iso: string) => new Date(iso);

describe("offer status", () => {
  it.each<[string, Partial<OfferTiming>, string, string]>([
    ["no linked location, start past", { locationsTotal: 0 }, "2026-01-05T12:00:00Z", "requests"],
    ["no linked location, start future", { locationsTotal: 0, startDate: "2026-02-01T00:00:00" }, "2026-01-05T12:00:00Z", "requests"],
    ["linked, start future", { startDate: "2026-02-01T00:00:00" }, "2026-01-05T12:00:00Z", "upcoming"],
    ["linked, start past: live at once", { startDate: "2025-06-01T00:00:00" }, "2026-01-05T12:00:00Z", "live"],
    ["linked, at the start second", { startDate: "2026-01-05T12:00:00" }, "2026-01-05T12:00:00Z", "live"],
    ["linked, one second before the start", { startDate: "2026-01-05T12:00:01" }, "2026-01-05T12:00:00Z", "upcoming"],
    ["linked, at the end second", { endDate: "2026-01-05T12:00:00" }, "2026-01-05T12:00:00Z", "live"],
    ["linked, after the end", { endDate: "2026-01-05T11:59:59" }, "2026-01-05T12:00:00Z", "expired"],
    ["no location, after the end", { locationsTotal: 0, endDate: "2026-01-05T11:59:59" }, "2026-01-05T12:00:00Z", "expired"],
    ["no end date", { endDate: null }, "2040-01-01T00:00:00Z", "live"],
    ["oaas offer (-1 locations) needs no location", { locationsTotal: -1 }, "2026-01-05T12:00:00Z", "live"],
    ["oaas offer before its start: requests, never upcoming", { locationsTotal: -1, startDate: "2026-02-01T00:00:00" }, "2026-01-05T12:00:00Z", "requests"],
    ["marketplace, awaiting approval", { marketplace: { approval: "pending" } }, "2026-01-05T12:00:00Z", "requests"],
    ["marketplace, declined", { marketplace: { approval: "declined" } }, "2026-01-05T12:00:00Z", "requests"],
    ["marketplace, accepted", { marketplace: { approval: "accepted" } }, "2026-01-05T12:00:00Z", "live"],
    ["marketplace, declined and ended", { marketplace: { approval: "declined" }, endDate: "2026-01-01T00:00:00" }, "2026-01-05T12:00:00Z", "expired"],
    // 12:00 UTC is 07:00 in New York: a USA offer starting at 08:00 local has not started yet.
    ["status in the country's main zone", { countryCode: "USA", startDate: "2026-01-05T08:00:00" }, "2026-01-05T12:00:00Z", "upcoming"],
    ["same instant in London has started", { startDate: "2026-01-05T08:00:00" }, "2026-01-05T12:00:00Z", "live"],
  ])("%s", (_name, over, now, status) => {
    expect(offerStatusAt(offer(over), at(now))).toBe(status);
  });

  it("reads dates in the country's main time zone", () => {
    expect(statusZone("GBR")).toBe("Europe/London");
    expect(statusZone("USA")).toBe(countryByAlpha3("USA")!.mainTimezone);
    expect(statusZone("BVT")).toBe("UTC");
    expect(offerWindow({ startDate: "2026-07-01T09:00:00", endDate: null, countryCode: "FRA" }).startAt.toISOString()).toBe(
      "2026-07-01T07:00:00.000Z",
    );
  });
});
