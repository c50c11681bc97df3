import { describe, expect, it } from "vitest";
import {
  decodeCursor,
  encodeCursor,
  identifierProblems,
  latestEvent,
  networkKey,
  parseDateBound,
  DATE_BOUND_PATTERN,
  splitIntoDays,
  transition,
} from "../../src/domain/mid-insights.ts";

const id = "3f2b9c1e-8d4a-4b6e-9f1a-2c3d4e5f6a7b";

describe("MID identifiers", () => {
  it("accepts each network's formats", () => {
    expect(identifierProblems("amex", { seNumber: "1234567890" })).toEqual([]);
    expect(identifierProblems("visa", { vmid: "123456", vsid: "87654321", visaAcquiringMid: "000923847561023", visaBin: "426684" })).toEqual([]);
    expect(identifierProblems("visa", { visaAcquiringMid: "A1B2C3", visaBin: "426684" })).toEqual([]);
    expect(identifierProblems("mastercard", { mcLocationId: "184736291", mcAcquiringMid: "402911000120034" })).toEqual([]);
  });

  it("names the identifier and its rule when a format is wrong", () => {
    expect(identifierProblems("amex", { seNumber: "123456789" })).toEqual(["seNumber: must be exactly 10 digits"]);
    expect(identifierProblems("amex", { seNumber: "12345678901" })).toEqual(["seNumber: must be exactly 10 digits"]);
    expect(identifierProblems("visa", { vmid: "12345" })).toEqual(["vmid: must be 6 to 8 digits"]);
    expect(identifierProblems("visa", { vmid: "123456789" })).toEqual(["vmid: must be 6 to 8 digits"]);
    expect(identifierProblems("visa", { vmid: "12345a" })).toEqual(["vmid: must be 6 to 8 digits"]);
  });

  it("refuses another network's identifiers and a MID with no key identifier", () => {
    expect(identifierProblems("amex", { seNumber: "1234567890", vmid: "123456" })).toEqual(["vmid: is a visa identifier, not amex"]);
    expect(identifierProblems("mastercard", {})).toEqual(["mcLocationId or mcAcquiringMid: required for a mastercard MID"]);
    expect(identifierProblems("visa", { vsid: "12345678" })).toEqual(["vmid or visaAcquiringMid: required for a visa MID"]);
  });

  it("keys a MID by what its network knows it by", () => {
    expect(networkKey("amex", { seNumber: "1234567890" })).toBe("se:1234567890");
    expect(networkKey("visa", { vmid: "123456", vsid: "999999" })).toBe("vmid:123456/vsid:999999");
    expect(networkKey("visa", { visaAcquiringMid: "ABC", visaBin: "426684" })).toBe("caid:ABC/bin:426684");
    expect(networkKey("mastercard", { mcLocationId: "1", mcAcquiringMid: "2" })).toBe("loc:1");
    expect(networkKey("mastercard", { mcAcquiringMid: "2" })).toBe("acq:2");
  });
});

describe("MID insight status", () => {
  it("onboards from nothing, from sourced and from offboarded", () => {
    expect(transition(undefined, "onboarded")).toEqual({ ok: true, status: "onboarded" });
    expect(transition("sourced", "onboarded")).toEqual({ ok: true, status: "onboarded" });
    expect(transition("offboarded", "onboarded")).toEqual({ ok: true, status: "onboarded" });
  });

  it("sources only a MID the program does not have", () => {
    expect(transition(undefined, "sourced")).toEqual({ ok: true, status: "sourced" });
    expect(transition("onboarded", "sourced")).toEqual({ ok: true, status: "onboarded" });
    expect(transition("offboarded", "sourced")).toEqual({ ok: true, status: "offboarded" });
  });

  it("offboards only an onboarded MID; the request leaves it onboarded", () => {
    expect(transition("onboarded", "offboard-requested")).toEqual({ ok: true, status: "onboarded" });
    expect(transition("onboarded", "offboarded")).toEqual({ ok: true, status: "offboarded" });
    expect(transition("offboarded", "offboard-requested")).toEqual({ ok: false, reason: "the MID is already offboarded" });
    expect(transition("sourced", "offboarded")).toMatchObject({ ok: false, reason: expect.stringMatching(/not onboarded/) });
    expect(transition(undefined, "offboard-requested")).toMatchObject({ ok: false });
  });

  it("takes eventTs as the latest of the events that happened", () => {
    const a = new Date("2025-01-01T00:00:00Z");
    const b = new Date("2025-03-01T00:00:00Z");
    expect(latestEvent(a, null, b, undefined)).toEqual(b);
    expect(() => latestEvent(null)).toThrow(RangeError);
  });
});

describe("lastSeenTransactionDate bounds", () => {
  it("reads a date as its whole UTC day, inclusive at both ends", () => {
    expect(parseDateBound("2025-12-01", "from")?.toISOString()).toBe("2025-12-01T00:00:00.000Z");
    expect(parseDateBound("2025-12-01", "to")?.toISOString()).toBe("2025-12-01T23:59:59.999Z");
  });

  it("reads date-times with Z, an offset or no zone (UTC), rounding fractions inwards", () => {
    expect(parseDateBound("2025-12-01T10:30:00Z", "from")?.toISOString()).toBe("2025-12-01T10:30:00.000Z");
    expect(parseDateBound("2025-12-01T10:30:00+02:00", "to")?.toISOString()).toBe("2025-12-01T08:30:00.000Z");
    expect(parseDateBound("2025-12-01T10:30", "from")?.toISOString()).toBe("2025-12-01T10:30:00.000Z");
    expect(parseDateBound("2025-12-01T10:30:00.0005Z", "from")?.toISOString()).toBe("2025-12-01T10:30:00.001Z");
    expect(parseDateBound("2025-12-01T10:30:00.0005Z", "to")?.toISOString()).toBe("2025-12-01T10:30:00.000Z");
  });

  it("refuses what is not an ISO 8601 date or date-time", () => {
    for (const bad of ["2025-02-30", "2025-13-01", "20251201", "yesterday", "2025-12-01T25:00:00Z", "2025-12-01T10:00:00+25:00", "2025-12-01 10:00"]) {
      expect(parseDateBound(bad, "from"), bad).toBeUndefined();
    }
  });

  it("splits a range into whole UTC days and the partial days at its edges", () => {
    const d = (s: string) => new Date(s);
    expect(splitIntoDays(d("2025-12-01T00:00:00.000Z"), d("2025-12-03T23:59:59.999Z"))).toEqual({
      days: { from: "2025-12-01", to: "2025-12-03" },
      partial: [],
    });
    expect(splitIntoDays(d("2025-12-01T08:00:00.000Z"), d("2025-12-03T12:00:00.000Z"))).toEqual({
      days: { from: "2025-12-02", to: "2025-12-02" },
      partial: [
        { from: d("2025-12-01T08:00:00.000Z"), to: d("2025-12-01T23:59:59.999Z") },
        { from: d("2025-12-03T00:00:00.000Z"), to: d("2025-12-03T12:00:00.000Z") },
      ],
    });
    // Within one day, or two partial days with nothing whole between: counted row by row.
    expect(splitIntoDays(d("2025-12-01T08:00:00.000Z"), d("2025-12-02T07:00:00.000Z"))).toEqual({
      days: null,
      partial: [{ from: d("2025-12-01T08:00:00.000Z"), to: d("2025-12-02T07:00:00.000Z") }],
    });
    expect(splitIntoDays(d("2025-12-01T08:00:00.000Z"), undefined)).toEqual({
      days: { from: "2025-12-02" },
      partial: [{ from: d("2025-12-01T08:00:00.000Z"), to: d("2025-12-01T23:59:59.999Z") }],
    });
    expect(splitIntoDays(undefined, undefined)).toEqual({ days: {}, partial: [] });
  });
});

describe("the list cursor", () => {
  it("round-trips the sort, order, value and id", () => {
    const cursor = { sort: "onboardedAt" as const, order: "asc" as const, value: "2025-12-01T10:00:00.000Z", id };
    expect(decodeCursor(encodeCursor(cursor), "onboardedAt", "asc")).toEqual(cursor);
    const absent = { ...cursor, value: null };
    expect(decodeCursor(encodeCursor(absent), "onboardedAt", "asc")).toEqual(absent);
    const origin = { sort: "origin" as const, order: "desc" as const, value: "address-match", id };
    expect(decodeCursor(encodeCursor(origin), "origin", "desc")).toEqual(origin);
  });

  it("refuses a cursor made for another sort or order", () => {
    const start = encodeCursor({ sort: "created", order: "desc", value: "2025-12-01T10:00:00.000Z", id });
    expect(decodeCursor(start, "created", "asc")).toMatch(/sorted by created desc/);
    expect(decodeCursor(start, "updated", "desc")).toMatch(/sorted by created desc/);
  });

  it("refuses values that are not the sort field's", () => {
    const forge = (value: unknown, sort = "created", cursorId: unknown = id) =>
      Buffer.from(JSON.stringify([sort, "asc", value, cursorId])).toString("base64url");
    expect(decodeCursor("not a cursor", "created", "asc")).toMatch(/not a cursor/);
    expect(decodeCursor(forge("yesterday"), "created", "asc")).toMatch(/not a cursor/);
    expect(decodeCursor(forge(null), "created", "asc")).toMatch(/not a cursor/); // created always has a value
    expect(decodeCursor(forge(7), "created", "asc")).toMatch(/not a cursor/);
    expect(decodeCursor(forge("unknown-origin", "origin"), "origin", "asc")).toMatch(/not a cursor/);
    expect(decodeCursor(forge("2025-12-01T10:00:00.000Z", "created", "x"), "created", "asc")).toMatch(/not a cursor/);
  });
});

describe("lastSeenTransactionDate bounds at the edges of the years", () => {
  it.each([
    ["0001-01-01", "from", "0001-01-01T00:00:00.000Z"],
    ["0050-06-30", "to", "0050-06-30T23:59:59.999Z"],
    ["0048-02-29", "from", "0048-02-29T00:00:00.000Z"],
    // Past years 0001-9999 an offset is clamped to them: nothing is stored outside.
    ["0001-01-01T00:00+23:59", "from", "0001-01-01T00:00:00.000Z"],
    ["9999-12-31T23:59:59.999999999-23:59", "to", "9999-12-31T23:59:59.999Z"],
  ] as const)("reads %s (%s) as %s", (value, edge, instant) => {
    expect(parseDateBound(value, edge)?.toISOString()).toBe(instant);
  });

  it.each(["0000-01-01", "0050-02-29", "2025-02-29", "2025-13-01", "2025-12-01T24:00", "2025-12-01T10:00+24:00"])(
    "refuses %s, as the document's pattern does",
    (value) => {
      expect(parseDateBound(value, "from")).toBeUndefined();
      expect(new RegExp(DATE_BOUND_PATTERN).test(value)).toBe(false);
    },
  );

  it.each(["2025-12-01", "0048-02-29", "2000-02-29", "2025-12-31T23:59:59Z", "2025-12-01T10:00", "2025-12-01T10:00:00.123+05:30"])(
    "accepts %s, as the document's pattern does",
    (value) => {
      expect(parseDateBound(value, "from")).toBeDefined();
      expect(new RegExp(DATE_BOUND_PATTERN).test(value)).toBe(true);
    },
  );
});
