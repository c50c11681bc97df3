// MID insights: the rules of the resource — schemes, statuses, origins, per-scheme identifier formats,
// the status transitions, the sort fields and their cursor, and the lastSeenTransactionDate bounds. No I/O.

/** Listed alphabetically: the database enums are declared in this order, so sorting by them is alphabetical. */
import { SCHEMES, type Scheme } from "./scheme.ts";
import { CALENDAR_DATE_PATTERN, utcMs } from "./local-dates.ts";
import { DAY_MS, MINUTE_MS } from "./time-units.ts";

export { SCHEMES, type Scheme } from "./scheme.ts";

export const MID_INSIGHT_STATUSES = ["offboarded", "onboarded", "sourced"] as const;
export type MidInsightStatus = (typeof MID_INSIGHT_STATUSES)[number];

/** The spec's status filter takes only these two values; `sourced` is a value of the field alone. */
export const STATUS_FILTER_VALUES = ["onboarded", "offboarded"] as const;

export const ORIGINS = [
  "address-match",
  "brand-provided-mid",
  "customer-provided-mid",
  "manual-mid-lookup",
  "missing-transaction-lookup",
  "processor-provided-mid",
  "system-mid-lookup",
  "system-provided-mid",
  "third-party-provided-mid",
] as const;
export type Origin = (typeof ORIGINS)[number];

export const SORT_FIELDS = [
  "created",
  "onboardedAt",
  "offboardedAt",
  "lastSeenTransactionDate",
  "sourcedAt",
  "eventTs",
  "updated",
  "origin",
  "status",
  "scheme",
] as const;
export type SortField = (typeof SORT_FIELDS)[number];
export type SortOrder = "asc" | "desc";

export const DEFAULT_SORT: SortField = "created";
export const DEFAULT_ORDER: SortOrder = "desc";

/** Sort fields whose value may be absent: they sort after every value ascending, before every value descending. */
export const NULLABLE_SORT_FIELDS: ReadonlySet<SortField> = new Set([
  "onboardedAt",
  "offboardedAt",
  "lastSeenTransactionDate",
  "sourcedAt",
]);

const ENUM_SORT_VALUES: Partial<Record<SortField, readonly string[]>> = {
  origin: ORIGINS,
  status: MID_INSIGHT_STATUSES,
  // Sorting by scheme is alphabetical: amex, mastercard, visa.
  scheme: [...SCHEMES].sort(),
};

/** How long the simulated network takes to act on an offboard request, in service time. */
export const OFFBOARD_DELAY_MS = 2 * DAY_MS;

// ---------------------------------------------------------------- identifiers

export interface MidIdentifiers {
  seNumber?: string | null;
  vmid?: string | null;
  vsid?: string | null;
  visaAcquiringMid?: string | null;
  visaBin?: string | null;
  mcLocationId?: string | null;
  mcAcquiringMid?: string | null;
}
export type IdentifierField = keyof MidIdentifiers;

/** The formats the networks use; the scheme an identifier belongs to. */
export const IDENTIFIER_RULES: Record<IdentifierField, { scheme: Scheme; pattern: RegExp; rule: string }> = {
  seNumber: { scheme: "amex", pattern: /^\d{10}$/, rule: "must be exactly 10 digits" },
  vmid: { scheme: "visa", pattern: /^\d{6,8}$/, rule: "must be 6 to 8 digits" },
  vsid: { scheme: "visa", pattern: /^\d{6,10}$/, rule: "must be 6 to 10 digits" },
  visaAcquiringMid: { scheme: "visa", pattern: /^[0-9A-Za-z]{1,15}$/, rule: "must be 1 to 15 letters or digits" },
  visaBin: { scheme: "visa", pattern: /^\d{6,11}$/, rule: "must be 6 to 11 digits" },
  mcLocationId: { scheme: "mastercard", pattern: /^\d{1,12}$/, rule: "must be 1 to 12 digits" },
  mcAcquiringMid: { scheme: "mastercard", pattern: /^[0-9A-Za-z]{1,15}$/, rule: "must be 1 to 15 letters or digits" },
};
export const IDENTIFIER_FIELDS = Object.keys(IDENTIFIER_RULES) as IdentifierField[];

/** The identifier a network cannot do without: what the MID is known by. */
const KEY_IDENTIFIERS: Record<Scheme, IdentifierField[]> = {
  amex: ["seNumber"],
  visa: ["vmid", "visaAcquiringMid"],
  mastercard: ["mcLocationId", "mcAcquiringMid"],
};

/** Problems with a MID's identifiers for its scheme, as "field: rule" messages (empty when valid). */
export function identifierProblems(scheme: Scheme, ids: MidIdentifiers): string[] {
  const problems: string[] = [];
  for (const field of IDENTIFIER_FIELDS) {
    const value = ids[field];
    if (value === undefined || value === null) continue;
    const rule = IDENTIFIER_RULES[field];
    if (rule.scheme !== scheme) problems.push(`${field}: is a ${rule.scheme} identifier, not ${scheme}`);
    else if (!rule.pattern.test(value)) problems.push(`${field}: ${rule.rule}`);
  }
  const keys = KEY_IDENTIFIERS[scheme];
  if (!keys.some((k) => ids[k])) problems.push(`${keys.join(" or ")}: required for a ${scheme} MID`);
  return problems;
}

/**
 * The MID's identity at its network, unique per program and scheme: the SE number (amex), the
 * vmid/vsid pair or else the acquiring MID and BIN (visa), the location id or else the acquiring MID (mastercard).
 */
export function networkKey(scheme: Scheme, ids: MidIdentifiers): string {
  switch (scheme) {
    case "amex":
      return `se:${ids.seNumber}`;
    case "visa":
      return ids.vmid ? `vmid:${ids.vmid}/vsid:${ids.vsid ?? ""}` : `caid:${ids.visaAcquiringMid}/bin:${ids.visaBin ?? ""}`;
    case "mastercard":
      return ids.mcLocationId ? `loc:${ids.mcLocationId}` : `acq:${ids.mcAcquiringMid}`;
  }
}

// ---------------------------------------------------------------- status transitions

export type MidEvent = "onboarded" | "sourced" | "offboard-requested" | "offboarded";

export type Transition =
  | { ok: true; status: MidInsightStatus }
  | { ok: false; reason: string };

/**
 * The insight's status after an event. A MID is sourced (found, not yet onboarded), onboarded at its
 * network, then offboarded; an offboarded MID can be onboarded again. A look-up that finds a MID the
 * program already has changes nothing; only an onboarded MID can be offboarded.
 */
export function transition(current: MidInsightStatus | undefined, event: MidEvent): Transition {
  switch (event) {
    case "onboarded":
      return { ok: true, status: "onboarded" };
    case "sourced":
      return { ok: true, status: current ?? "sourced" };
    case "offboard-requested":
    case "offboarded":
      if (current === "onboarded") return { ok: true, status: event === "offboarded" ? "offboarded" : "onboarded" };
      return {
        ok: false,
        reason:
          current === "offboarded"
            ? "the MID is already offboarded"
            : "the MID is not onboarded at its network, so there is nothing to offboard",
      };
  }
}

/** eventTs: the time of the latest event on the insight — sourcing, onboarding, offboard request, offboarding or a transaction seen. */
export const latestEvent = (...times: (Date | null | undefined)[]): Date => {
  const present = times.filter((t): t is Date => t instanceof Date);
  if (present.length === 0) throw new RangeError("an insight has at least one event");
  return new Date(Math.max(...present.map((t) => t.getTime())));
};

// ---------------------------------------------------------------- lastSeenTransactionDate bounds

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:\d{2})?$/;

export const DATE_BOUND_RULE = "must be an ISO 8601 date (YYYY-MM-DD) or date-time (YYYY-MM-DDThh:mm:ssZ)";

/** Years 0001-9999 (Date.UTC alone would read 0001-0099 as 1901-1999). */
function validCalendarDate(y: number, m: number, d: number): boolean {
  const t = new Date(utcMs(y, m, d));
  return y >= 1 && t.getUTCFullYear() === y && t.getUTCMonth() === m - 1 && t.getUTCDate() === d;
}

/** The instants a bound can name: stored times are within years 0001-9999, so a bound past them is clamped. */
const EARLIEST_MS = utcMs(1, 1, 1);
const LATEST_MS = utcMs(10000, 1, 1) - 1;
const clamped = (ms: number) => new Date(Math.min(LATEST_MS, Math.max(EARLIEST_MS, ms)));

/** DATE_BOUND_RULE as a JSON Schema pattern. */
/** The longest string DATE_BOUND_PATTERN matches: 2025-12-31T23:59:59.123456789+05:30. */
export const DATE_BOUND_MAX_LENGTH = 35;
export const DATE_BOUND_PATTERN =
  `^${CALENDAR_DATE_PATTERN}(T([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\\.[0-9]{1,9})?)?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])?)?$`;

/**
 * The inclusive instant a `lastSeenTransactionDateFrom`/`To` value stands for, or undefined when it is not
 * ISO 8601. A date covers its whole UTC day: from its first millisecond, to its last. A date-time without
 * a zone is UTC. Times are kept to the millisecond (as stored), rounded inwards.
 */
export function parseDateBound(value: string, edge: "from" | "to"): Date | undefined {
  const date = DATE.exec(value);
  if (date) {
    const [y, m, d] = [Number(date[1]), Number(date[2]), Number(date[3])];
    if (!validCalendarDate(y, m, d)) return undefined;
    const start = utcMs(y, m, d);
    return clamped(edge === "from" ? start : start + DAY_MS - 1);
  }
  const dt = DATE_TIME.exec(value);
  if (!dt) return undefined;
  const [y, mo, d, h, mi, s] = [1, 2, 3, 4, 5, 6].map((i) => Number(dt[i] ?? 0)) as [number, number, number, number, number, number];
  if (!validCalendarDate(y, mo, d) || h > 23 || mi > 59 || s > 59) return undefined;
  const fraction = dt[7] ?? "";
  const nanos = Number(fraction.padEnd(9, "0"));
  const ms = edge === "from" ? Math.ceil(nanos / 1e6) : Math.floor(nanos / 1e6);
  const zone = dt[8] ?? "Z";
  const offsetMin = zone === "Z" ? 0 : (zone.startsWith("-") ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6)));
  if (zone !== "Z" && (Number(zone.slice(1, 3)) > 23 || Number(zone.slice(4, 6)) > 59)) return undefined;
  return clamped(utcMs(y, mo, d, h, mi, s) + ms - offsetMin * MINUTE_MS);
}

/** The UTC day an instant falls on, YYYY-MM-DD. */
export const utcDay = (t: Date): string => t.toISOString().slice(0, 10);
const startsDay = (t: Date): boolean => t.getTime() % DAY_MS === 0;
const endsDay = (t: Date): boolean => (t.getTime() + 1) % DAY_MS === 0;
export const addDays = (day: string, n: number): string => utcDay(new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS));

/**
 * Splits an inclusive [from, to] range into whole UTC days (counted from per-day totals) and the
 * partial days at its edges (counted row by row). Either bound may be open.
 */
export function splitIntoDays(from: Date | undefined, to: Date | undefined): {
  days: { from?: string; to?: string } | null;
  partial: { from?: Date; to?: Date }[];
} {
  const firstWhole = from ? (startsDay(from) ? utcDay(from) : addDays(utcDay(from), 1)) : undefined;
  const lastWhole = to ? (endsDay(to) ? utcDay(to) : addDays(utcDay(to), -1)) : undefined;
  if (firstWhole && lastWhole && firstWhole > lastWhole) return { days: null, partial: [{ from, to }] };
  const partial: { from?: Date; to?: Date }[] = [];
  if (from && !startsDay(from)) partial.push({ from, to: new Date(Date.parse(`${firstWhole}T00:00:00Z`) - 1) });
  if (to && !endsDay(to)) partial.push({ from: new Date(Date.parse(`${lastWhole}T00:00:00Z`) + DAY_MS), to });
  return { days: { ...(firstWhole ? { from: firstWhole } : {}), ...(lastWhole ? { to: lastWhole } : {}) }, partial };
}

// ---------------------------------------------------------------- cursor

/** The sort value a row had, as the cursor carries it: an ISO instant, an enum value, or null (no value). */
export type SortValue = string | null;

export interface MidInsightCursor {
  sort: SortField;
  order: SortOrder;
  value: SortValue;
  id: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export const encodeCursor = (c: MidInsightCursor): string =>
  Buffer.from(JSON.stringify([c.sort, c.order, c.value, c.id])).toString("base64url");

/** The cursor in `start`, checked against the sort and order of the request; a string says what is wrong. */
export function decodeCursor(start: string, sort: SortField, order: SortOrder): MidInsightCursor | string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(start, "base64url").toString("utf8"));
  } catch {
    parsed = undefined;
  }
  const notOurs = "not a cursor from the `last` field of an earlier response";
  if (!Array.isArray(parsed) || parsed.length !== 4) return notOurs;
  const [s, o, value, id] = parsed as unknown[];
  if (typeof id !== "string" || !UUID.test(id)) return notOurs;
  if (s !== sort || o !== order) return `this cursor continues a list sorted by ${String(s)} ${String(o)}; send the same sort and order`;
  if (value === null) return NULLABLE_SORT_FIELDS.has(sort) ? { sort, order, value, id } : notOurs;
  if (typeof value !== "string") return notOurs;
  const allowed = ENUM_SORT_VALUES[sort];
  const valid = allowed ? allowed.includes(value) : ISO_INSTANT.test(value) && !Number.isNaN(Date.parse(value));
  return valid ? { sort, order, value, id } : notOurs;
}

/** The scheme's own identifiers of `ids`, without the empty ones: what a location stores for that scheme. */
export function schemeIdentifiers(scheme: Scheme, ids: Partial<Record<string, unknown>>): MidIdentifiers {
  return Object.fromEntries(
    IDENTIFIER_FIELDS.flatMap((field) => {
      const value = ids[field];
      return IDENTIFIER_RULES[field].scheme === scheme && typeof value === "string" && value ? [[field, value]] : [];
    }),
  );
}

/**
 * Whether two MIDs of one scheme share an identifier that names a merchant (the same merchant at the
 * network); an acquirer BIN is shared by many merchants and does not count.
 */
export const sameMid = (a: MidIdentifiers, b: MidIdentifiers): boolean =>
  IDENTIFIER_FIELDS.some((field) => field !== "visaBin" && !!a[field] && a[field] === b[field]);

/** Whether `full` carries every identifier `given` has, with the same value (the network filled in the rest). */
export const fillsIn = (full: MidIdentifiers, given: MidIdentifiers): boolean =>
  IDENTIFIER_FIELDS.every((field) => !given[field] || given[field] === full[field]);
