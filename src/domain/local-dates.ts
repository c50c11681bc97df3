// Local date-times (`YYYY-MM-DDThh:mm:ss`, no zone) as offers carry them: validation, month
// arithmetic, and conversion to and from instants in an IANA time zone.
import { DAY_MS, SECOND_MS } from "./time-units.ts";

const LOCAL = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})$/;

/**
 * A real calendar date YYYY-MM-DD of years 0001-9999 as a regular expression (no anchors), for JSON
 * Schema patterns: 31-day months, 30-day months, February to the 28th, and the 29th of February in leap
 * years (divisible by 4, not by 100 unless by 400).
 */
const YEAR = "(?!0000)[0-9]{4}";
const LEAP_YEAR = "([0-9]{2}(0[48]|[2468][048]|[13579][26])|(0[48]|[2468][048]|[13579][26])00)";
const MONTH_DAY = "((0[13578]|1[02])-(0[1-9]|[12][0-9]|3[01])|(0[469]|11)-(0[1-9]|[12][0-9]|30)|02-(0[1-9]|1[0-9]|2[0-8]))";
export const CALENDAR_DATE_PATTERN = `(${YEAR}-${MONTH_DAY}|${LEAP_YEAR}-02-29)`;

/** isLocalDateTime as a JSON Schema pattern. */
export const LOCAL_DATE_TIME_PATTERN = `^${CALENDAR_DATE_PATTERN}T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]$`;

interface Fields {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

function fields(local: string): Fields | null {
  const m = LOCAL.exec(local);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  return { year, month, day, hour, minute, second };
}

/**
 * Milliseconds since the epoch of a UTC calendar time. Date.UTC reads years 0-99 as 1900-1999, so the
 * year is set on its own: 0001-01-01 is year 1, not 1901.
 */
export function utcMs(year: number, month: number, day: number, hour = 0, minute = 0, second = 0): number {
  const d = new Date(Date.UTC(2000, 0, 1, hour, minute, second));
  d.setUTCFullYear(year, month - 1, day);
  return d.getTime();
}

const daysInMonth = (year: number, month: number) => new Date(utcMs(year, month + 1, 0)).getUTCDate();

/** True for a real calendar date-time written exactly as `YYYY-MM-DDThh:mm:ss`. */
export function isLocalDateTime(value: string): boolean {
  const f = fields(value);
  return (
    f !== null &&
    f.year >= 1 &&
    f.month >= 1 &&
    f.month <= 12 &&
    f.day >= 1 &&
    f.day <= daysInMonth(f.year, f.month) &&
    f.hour <= 23 &&
    f.minute <= 59 &&
    f.second <= 59
  );
}

const pad = (n: number, width = 2) => String(n).padStart(width, "0");

const format = (f: Fields) =>
  `${pad(f.year, 4)}-${pad(f.month)}-${pad(f.day)}T${pad(f.hour)}:${pad(f.minute)}:${pad(f.second)}`;

function mustParse(local: string): Fields {
  const f = fields(local);
  if (!f || !isLocalDateTime(local)) throw new RangeError(`not a local date-time: ${local}`);
  return f;
}

/**
 * `local` moved by whole months, the day clamped to the target month's length, so
 * 2028-02-29 plus 12 months is 2029-02-28 and 2026-01-31 plus 1 month is 2026-02-28.
 */
export function addMonths(local: string, months: number): string {
  const f = mustParse(local);
  const index = f.year * 12 + (f.month - 1) + months;
  const year = Math.floor(index / 12);
  const month = (index % 12) + 1;
  return format({ ...f, year, month, day: Math.min(f.day, daysInMonth(year, month)) });
}

/** `local` moved by whole days (calendar days: the wall-clock time stays). */
export function addDays(local: string, days: number): string {
  const f = mustParse(local);
  const d = new Date(utcMs(f.year, f.month, f.day + days));
  return format({ ...f, year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() });
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      era: "short",
    });
    formatters.set(zone, f);
  }
  return f;
}

/** The wall-clock fields in `zone` at `instant` (years before 1 AD as 0, -1, …; after 9999 as they are). */
function wallFields(instant: Date, zone: string): Fields {
  const parts = Object.fromEntries(formatter(zone).formatToParts(instant).map((p) => [p.type, p.value]));
  const year = Number(parts.year);
  return {
    year: parts.era === "BC" || parts.era === "B" ? 1 - year : year,
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
  };
}

/** The wall-clock date-time in `zone` at `instant`, to the second; the year has four digits (0001-9999). */
export function localAt(instant: Date, zone: string): string {
  return format(wallFields(instant, zone));
}

const wallMs = (local: string) => {
  const f = mustParse(local);
  return utcMs(f.year, f.month, f.day, f.hour, f.minute, f.second);
};

/** How far `zone`'s wall clock is ahead of UTC at `ms`, in milliseconds. */
const offsetAt = (zone: string, ms: number) => {
  const whole = ms - (((ms % SECOND_MS) + SECOND_MS) % SECOND_MS);
  const f = wallFields(new Date(whole), zone);
  return utcMs(f.year, f.month, f.day, f.hour, f.minute, f.second) - whole;
};

/**
 * The instant a wall-clock time in `zone` names. Around a daylight-saving change this follows the
 * usual "compatible" rule: a repeated time takes its earlier instant, a skipped time is read with
 * the offset before the change (02:30 in a spring-forward gap becomes 03:30 summer time).
 */
export function instantOf(local: string, zone: string): Date {
  const wall = wallMs(local);
  const before = offsetAt(zone, wall - DAY_MS);
  const after = offsetAt(zone, wall + DAY_MS);
  const valid = [...new Set([before, after])]
    .map((offset) => wall - offset)
    .filter((ms) => localAt(new Date(ms), zone) === local)
    .sort((a, b) => a - b);
  return new Date(valid[0] ?? wall - before);
}
