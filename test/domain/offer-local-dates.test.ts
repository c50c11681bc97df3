import { describe, expect, it } from "vitest";
import { LOCAL_DATE_TIME_PATTERN, addDays, addMonths, instantOf, isLocalDateTime, localAt } from "../../src/domain/local-dates.ts";

describe("local date-times", () => {
  it.each([
    ["2026-01-05T12:00:00", true],
    ["2028-02-29T00:00:00", true],
    ["2027-02-29T00:00:00", false],
    ["2026-04-31T00:00:00", false],
    ["2026-13-01T00:00:00", false],
    ["2026-01-05T24:00:00", false],
    ["2026-01-05T12:60:00", false],
    ["2026-01-05 12:00:00", false],
    ["2026-01-05T12:00:00Z", false],
    ["2026-01-05T12:00", false],
    ["2026-01-05", false],
  ])("isLocalDateTime(%s) is %s", (value, ok) => {
    expect(isLocalDateTime(value)).toBe(ok);
  });

  it.each([
    ["2026-01-05T12:00:00", 12, "2027-01-05T12:00:00"],
    ["2028-02-29T23:59:59", 12, "2029-02-28T23:59:59"],
    ["2026-01-31T08:00:00", 1, "2026-02-28T08:00:00"],
    ["2026-11-30T00:00:00", 3, "2027-02-28T00:00:00"],
    ["2026-03-15T00:00:00", -3, "2025-12-15T00:00:00"],
  ])("addMonths(%s, %i) = %s", (local, months, expected) => {
    expect(addMonths(local, months)).toBe(expected);
  });

  it("adds calendar days across month ends", () => {
    expect(addDays("2026-01-30T10:00:00", 3)).toBe("2026-02-02T10:00:00");
  });

  it.each([
    ["UTC", "2026-01-05T12:00:00", "2026-01-05T12:00:00.000Z"],
    ["Europe/London", "2026-07-01T12:00:00", "2026-07-01T11:00:00.000Z"],
    ["America/New_York", "2026-01-05T12:00:00", "2026-01-05T17:00:00.000Z"],
    ["Asia/Kolkata", "2026-01-05T12:00:00", "2026-01-05T06:30:00.000Z"],
    // Spring forward in London, 2026-03-29 01:00 -> 02:00: 01:30 does not exist and reads as 02:30 BST.
    ["Europe/London", "2026-03-29T01:30:00", "2026-03-29T01:30:00.000Z"],
    // Fall back, 2026-10-25 02:00 -> 01:00: 01:30 happens twice; the earlier one (BST) is taken.
    ["Europe/London", "2026-10-25T01:30:00", "2026-10-25T00:30:00.000Z"],
  ])("instantOf in %s: %s is %s", (zone, local, instant) => {
    expect(instantOf(local, zone).toISOString()).toBe(instant);
  });

  it("reads an instant back as the zone's wall clock", () => {
    expect(localAt(new Date("2026-01-05T17:00:00.750Z"), "America/New_York")).toBe("2026-01-05T12:00:00");
    expect(localAt(new Date("2026-01-05T00:00:00Z"), "Asia/Tokyo")).toBe("2026-01-05T09:00:00");
  });

  // Years 0001-9999 are valid local dates: Date.UTC reads years 0-99 as 1900-1999 and Intl writes
  // year 1 as "1", so these edges once answered 500 (found by schemathesis).
  it.each([
    ["UTC", "0001-01-01T00:00:00", "0001-01-01T00:00:00.000Z"],
    ["Europe/London", "0001-01-01T00:00:00", "0001-01-01T00:01:15.000Z"],
    ["Asia/Tokyo", "0001-01-01T00:00:00", "0000-12-31T14:41:01.000Z"],
    ["UTC", "0099-12-31T23:59:59", "0099-12-31T23:59:59.000Z"],
    ["America/New_York", "9999-12-31T23:59:59", "+010000-01-01T04:59:59.000Z"],
  ])("instantOf in %s at the edges of the years: %s is %s", (zone, local, instant) => {
    expect(instantOf(local, zone).toISOString()).toBe(instant);
    expect(localAt(instantOf(local, zone), zone)).toBe(local);
  });

  it("keeps four-digit years at the edges", () => {
    expect(localAt(new Date("0001-01-01T00:00:00Z"), "UTC")).toBe("0001-01-01T00:00:00");
    expect(addDays("0001-01-01T10:00:00", 40)).toBe("0001-02-10T10:00:00");
    expect(addDays("0050-02-28T10:00:00", 1)).toBe("0050-03-01T10:00:00");
    expect(addMonths("9999-11-30T00:00:00", 1)).toBe("9999-12-30T00:00:00");
    expect(isLocalDateTime("0001-01-01T00:00:00")).toBe(true);
    expect(isLocalDateTime("0000-01-01T00:00:00")).toBe(false);
    expect(isLocalDateTime("0004-02-29T00:00:00")).toBe(true);
  });

  it.each([
    "2026-01-05T12:00:00", "2028-02-29T00:00:00", "2000-02-29T00:00:00", "1900-02-29T00:00:00", "0004-02-29T00:00:00",
    "0001-01-01T00:00:00", "0000-01-01T00:00:00", "9999-12-31T23:59:59", "2026-04-31T00:00:00", "2026-04-30T23:59:59",
    "2026-13-01T00:00:00", "2026-01-05T24:00:00", "2026-01-05T12:60:00", "2026-01-05T12:00:60", "2026-00-10T00:00:00",
  ])("the document's pattern agrees with isLocalDateTime on %s", (value) => {
    expect(new RegExp(LOCAL_DATE_TIME_PATTERN).test(value)).toBe(isLocalDateTime(value));
  });
});
