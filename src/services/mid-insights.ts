// MID insights: the writers (one per network or transaction event), the offboard request and the
// simulated network's offboarding, and the filtered, sorted, keyset-paged list with its exact count.
import type { Ctx } from "./context.ts";
import { DomainError, notFound } from "./errors.ts";
import type { Db } from "./db.ts";
import { Filters, type Page } from "./page.ts";
import { newId } from "./ids.ts";
import { getProgram } from "./programs.ts";
import {
  NULLABLE_SORT_FIELDS,
  OFFBOARD_DELAY_MS,
  encodeCursor,
  identifierProblems,
  latestEvent,
  networkKey,
  splitIntoDays,
  transition,
  utcDay,
  type MidIdentifiers,
  type MidInsightStatus,
  type Origin,
  type Scheme,
  type SortField,
  type SortOrder,
  type SortValue,
} from "../domain/mid-insights.ts";

export interface MidInsight {
  id: string;
  brandId: string;
  locationId: string;
  midId: string;
  programId: string;
  scheme: Scheme;
  status: MidInsightStatus;
  created: string;
  cardNetworkMerchantName: string | null;
  mcAcquiringMid: string | null;
  mcLocationId: string | null;
  seNumber: string | null;
  visaAcquiringMid: string | null;
  visaBin: string | null;
  vmid: string | null;
  vsid: string | null;
  midRequestId: string | null;
  origin: Origin;
  sourcedAt: string | null;
  onboardedAt: string | null;
  offboardedAt: string | null;
  lastSeenTransactionDate: string | null;
  lastSeenTransactionId: string | null;
  firstTransactionClearingId: string | null;
  firstTransactionAuthId: string | null;
  offboardRequestedAt: string | null;
  eventTs: string;
  updated: string;
}

interface MidInsightRow {
  id: string;
  account_id: string;
  live: boolean;
  program_id: string;
  mid_id: string;
  brand_id: string;
  location_id: string;
  scheme: Scheme;
  status: MidInsightStatus;
  origin: Origin;
  card_network_merchant_name: string | null;
  mc_acquiring_mid: string | null;
  mc_location_id: string | null;
  se_number: string | null;
  visa_acquiring_mid: string | null;
  visa_bin: string | null;
  vmid: string | null;
  vsid: string | null;
  mid_request_id: string | null;
  sourced_at: Date | null;
  onboarded_at: Date | null;
  offboarded_at: Date | null;
  offboard_requested_at: Date | null;
  offboard_due: Date | null;
  last_seen_transaction_date: Date | null;
  last_seen_transaction_id: string | null;
  first_transaction_auth_id: string | null;
  first_transaction_clearing_id: string | null;
  event_ts: Date;
  created: Date;
  updated: Date;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

const toMidInsight = (r: MidInsightRow): MidInsight => ({
  id: r.id,
  brandId: r.brand_id,
  locationId: r.location_id,
  midId: r.mid_id,
  programId: r.program_id,
  scheme: r.scheme,
  status: r.status,
  created: r.created.toISOString(),
  cardNetworkMerchantName: r.card_network_merchant_name,
  mcAcquiringMid: r.mc_acquiring_mid,
  mcLocationId: r.mc_location_id,
  seNumber: r.se_number,
  visaAcquiringMid: r.visa_acquiring_mid,
  visaBin: r.visa_bin,
  vmid: r.vmid,
  vsid: r.vsid,
  midRequestId: r.mid_request_id,
  origin: r.origin,
  sourcedAt: iso(r.sourced_at),
  onboardedAt: iso(r.onboarded_at),
  offboardedAt: iso(r.offboarded_at),
  lastSeenTransactionDate: iso(r.last_seen_transaction_date),
  lastSeenTransactionId: r.last_seen_transaction_id,
  firstTransactionClearingId: r.first_transaction_clearing_id,
  firstTransactionAuthId: r.first_transaction_auth_id,
  offboardRequestedAt: iso(r.offboard_requested_at),
  eventTs: r.event_ts.toISOString(),
  updated: r.updated.toISOString(),
});

/** The column each identifier is stored in. */
const IDENTIFIER_COLUMNS = {
  seNumber: "se_number",
  vmid: "vmid",
  vsid: "vsid",
  visaAcquiringMid: "visa_acquiring_mid",
  visaBin: "visa_bin",
  mcLocationId: "mc_location_id",
  mcAcquiringMid: "mc_acquiring_mid",
} as const satisfies Record<keyof MidIdentifiers, string>;

/** A writer was given an event the data cannot take (unknown location, malformed identifiers, wrong state). */
export class MidInsightEventError extends Error {
  override name = "MidInsightEventError";
}

// ---------------------------------------------------------------- writers (one per event)

interface LocationOwner {
  id: string;
  program_id: string;
  brand_id: string;
  account_id: string;
  live: boolean;
}

/** The network's MID for a location, created on first sight; identifiers checked against the scheme's formats. */
async function upsertMid(
  db: Db,
  input: { locationId: string; scheme: Scheme; identifiers: MidIdentifiers },
  now: Date,
): Promise<{ location: LocationOwner; midId: string }> {
  const problems = identifierProblems(input.scheme, input.identifiers);
  if (problems.length) throw new MidInsightEventError(problems.join("; "));
  const [location] = await db.query<LocationOwner>(
    "select id, program_id, brand_id, account_id, live from locations where id = $1",
    [input.locationId],
  );
  if (!location) throw new MidInsightEventError(`No location with id ${input.locationId}.`);
  // The no-op update makes the conflicting row come back, so the MID is found and created in one step.
  const [mid] = await db.query<{ id: string }>(
    `insert into mids (id, account_id, live, program_id, brand_id, location_id, scheme, network_key, created)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9)
     on conflict (program_id, scheme, network_key) do update set network_key = excluded.network_key
     returning id`,
    [
      newId(),
      location.account_id,
      location.live,
      location.program_id,
      location.brand_id,
      location.id,
      input.scheme,
      networkKey(input.scheme, input.identifiers),
      now,
    ],
  );
  return { location, midId: mid!.id };
}

async function insertInsight(
  db: Db,
  init: {
    location: LocationOwner;
    midId: string;
    scheme: Scheme;
    identifiers: MidIdentifiers;
    status: MidInsightStatus;
    origin: Origin;
    merchantName: string | null;
    midRequestId: string | null;
    sourcedAt: Date;
    onboardedAt: Date | null;
  },
  now: Date,
): Promise<MidInsightRow> {
  const ids = init.identifiers;
  const [row] = await db.query<MidInsightRow>(
    `insert into mid_insights (id, account_id, live, program_id, mid_id, brand_id, location_id, scheme, status, origin,
       card_network_merchant_name, mc_acquiring_mid, mc_location_id, se_number, visa_acquiring_mid, visa_bin, vmid, vsid,
       mid_request_id, sourced_at, onboarded_at, event_ts, created, updated)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $23)
     returning *`,
    [
      newId(),
      init.location.account_id,
      init.location.live,
      init.location.program_id,
      init.midId,
      init.location.brand_id,
      init.location.id,
      init.scheme,
      init.status,
      init.origin,
      init.merchantName,
      ids.mcAcquiringMid ?? null,
      ids.mcLocationId ?? null,
      ids.seNumber ?? null,
      ids.visaAcquiringMid ?? null,
      ids.visaBin ?? null,
      ids.vmid ?? null,
      ids.vsid ?? null,
      init.midRequestId,
      init.sourcedAt,
      init.onboardedAt,
      latestEvent(init.sourcedAt, init.onboardedAt),
      now,
    ],
  );
  return row!;
}

export interface NetworkMid {
  locationId: string;
  scheme: Scheme;
  identifiers: MidIdentifiers;
  /** The merchant name the network has on record. */
  merchantName?: string | null;
}

/**
 * A network's onboarding reply for a location: the MID is onboarded (created, or moved from sourced or
 * offboarded). `origin` says how the MID was found; it is kept from the first time the MID was sourced.
 */
export async function recordOnboardingReply(
  db: Db,
  event: NetworkMid & { origin: Origin; midRequestId?: string | null; at: Date },
  now: Date,
): Promise<MidInsight> {
  return db.tx(async (tx) => {
    const { location, midId } = await upsertMid(tx, event, now);
    const [current] = await tx.query<MidInsightRow>("select * from mid_insights where mid_id = $1 for update", [midId]);
    const next = transition(current?.status, "onboarded");
    if (!next.ok) throw new MidInsightEventError(next.reason);
    if (!current) {
      return toMidInsight(
        await insertInsight(
          tx,
          {
            location,
            midId,
            scheme: event.scheme,
            identifiers: event.identifiers,
            status: next.status,
            origin: event.origin,
            merchantName: event.merchantName ?? null,
            midRequestId: event.midRequestId ?? null,
            sourcedAt: event.at,
            onboardedAt: event.at,
          },
          now,
        ),
      );
    }
    const [row] = await tx.query<MidInsightRow>(
      `update mid_insights set status = $2, onboarded_at = $3, offboarded_at = null, offboard_requested_at = null,
         offboard_due = null, card_network_merchant_name = coalesce($4, card_network_merchant_name),
         mid_request_id = coalesce(mid_request_id, $5), event_ts = greatest(event_ts, $3), updated = $6
       where id = $1 returning *`,
      [current.id, next.status, event.at, event.merchantName ?? null, event.midRequestId ?? null, now],
    );
    return toMidInsight(row!);
  });
}

/**
 * A missing-transaction look-up identified a MID at a location: a MID the program did not have is
 * sourced (origin missing-transaction-lookup); one it has is left as it is.
 */
export async function recordMissingTransactionLookup(
  db: Db,
  event: NetworkMid & { at: Date },
  now: Date,
): Promise<MidInsight> {
  return db.tx(async (tx) => {
    const { location, midId } = await upsertMid(tx, event, now);
    const [current] = await tx.query<MidInsightRow>("select * from mid_insights where mid_id = $1 for update", [midId]);
    const next = transition(current?.status, "sourced");
    if (!next.ok) throw new MidInsightEventError(next.reason);
    if (current) return toMidInsight(current);
    return toMidInsight(
      await insertInsight(
        tx,
        {
          location,
          midId,
          scheme: event.scheme,
          identifiers: event.identifiers,
          status: next.status,
          origin: "missing-transaction-lookup",
          merchantName: event.merchantName ?? null,
          midRequestId: null,
          sourcedAt: event.at,
          onboardedAt: null,
        },
        now,
      ),
    );
  });
}

/**
 * A transaction seen on a MID: the latest one (by transaction time) becomes lastSeenTransactionDate/Id;
 * the first authorisation and the first clearing recorded are kept. Returns undefined for an unknown MID.
 */
export async function recordTransactionSeen(
  db: Db,
  event: { programId: string; midId: string; transactionId: string; stage: "auth" | "clearing"; at: Date },
  now: Date,
): Promise<MidInsight | undefined> {
  const [row] = await db.query<MidInsightRow>(
    `update mid_insights set
       last_seen_transaction_id = case when last_seen_transaction_date is null or $3 >= last_seen_transaction_date
         then $4 else last_seen_transaction_id end,
       last_seen_transaction_date = greatest(last_seen_transaction_date, $3),
       first_transaction_auth_id = case when $5 = 'auth' then coalesce(first_transaction_auth_id, $4)
         else first_transaction_auth_id end,
       first_transaction_clearing_id = case when $5 = 'clearing' then coalesce(first_transaction_clearing_id, $4)
         else first_transaction_clearing_id end,
       event_ts = greatest(event_ts, $3), updated = $6
     where mid_id = $1 and program_id = $2 returning *`,
    [event.midId, event.programId, event.at, event.transactionId, event.stage, now],
  );
  return row && toMidInsight(row);
}

/** The network reports a MID offboarded (on request or on its own): status offboarded at `at`. */
export async function recordOffboarded(
  db: Db,
  event: { programId: string; midId: string; at: Date },
  now: Date,
): Promise<MidInsight> {
  return db.tx(async (tx) => {
    const [current] = await tx.query<MidInsightRow>(
      "select * from mid_insights where mid_id = $1 and program_id = $2 for update",
      [event.midId, event.programId],
    );
    if (!current) throw new MidInsightEventError(`No MID ${event.midId} in program ${event.programId}.`);
    const next = transition(current.status, "offboarded");
    if (!next.ok) throw new MidInsightEventError(next.reason);
    const [row] = await tx.query<MidInsightRow>(
      `update mid_insights set status = $2, offboarded_at = $3, offboard_due = null,
         event_ts = greatest(event_ts, $3), updated = $4
       where id = $1 returning *`,
      [current.id, next.status, event.at, now],
    );
    return toMidInsight(row!);
  });
}

/** The MID a network's identifiers name in a program, for writers that start from a transaction's identifiers. */
export async function findMid(
  db: Db,
  key: { programId: string; scheme: Scheme; identifiers: MidIdentifiers },
): Promise<string | undefined> {
  const [row] = await db.query<{ id: string }>(
    "select id from mids where program_id = $1 and scheme = $2 and network_key = $3",
    [key.programId, key.scheme, networkKey(key.scheme, key.identifiers)],
  );
  return row?.id;
}

// ---------------------------------------------------------------- offboarding

/**
 * The offboard request: the MID stays onboarded until the simulated network acts on it,
 * OFFBOARD_DELAY_MS of service time later (runOffboardingDue). Asking again while it is pending changes nothing.
 */
export async function requestOffboarding(ctx: Ctx, programId: string, midInsightId: string): Promise<MidInsight> {
  await getProgram(ctx, programId);
  return ctx.db.tx(async (db) => {
    const [current] = await db.query<MidInsightRow>(
      "select * from mid_insights where id = $1 and program_id = $2 and account_id = $3 and live = $4 for update",
      [midInsightId, programId, ctx.accountId, ctx.live],
    );
    if (!current) throw notFound("MID insight", midInsightId);
    const next = transition(current.status, "offboard-requested");
    if (!next.ok) throw new DomainError("conflict", `midInsightId: ${next.reason}.`);
    if (current.offboard_requested_at) return toMidInsight(current);
    const now = ctx.clock.now();
    const [row] = await db.query<MidInsightRow>(
      `update mid_insights set offboard_requested_at = $2, offboard_due = $3, event_ts = greatest(event_ts, $2),
         updated = $2
       where id = $1 returning *`,
      [current.id, now, new Date(now.getTime() + OFFBOARD_DELAY_MS)],
    );
    return toMidInsight(row!);
  });
}

/** What the simulated network does to an insight whose offboard request fell due. */
const OFFBOARD_DUE_SET = `status = 'offboarded', offboarded_at = offboard_due, offboard_due = null,
  event_ts = greatest(event_ts, offboard_due)`;

/**
 * The simulated networks act on every offboard request due by `now`: status offboarded, offboardedAt the
 * moment it fell due. Runs when the service clock advances, and for a program before its insights are read.
 */
export async function runOffboardingDue(db: Db, now: Date): Promise<number> {
  const [row] = await db.query<{ n: number }>(
    `with done as (
       update mid_insights set ${OFFBOARD_DUE_SET}, updated = $1
       where offboard_due <= $1 and status = 'onboarded'
       returning 1
     ) select count(*)::int as n from done`,
    [now],
  );
  return row?.n ?? 0;
}

// ---------------------------------------------------------------- list and count

export interface MidInsightFilters extends MidIdentifiers {
  brandId?: string;
  id?: string;
  locationId?: string;
  midId?: string;
  /** Inclusive bounds on lastSeenTransactionDate. */
  lastSeenFrom?: Date;
  lastSeenTo?: Date;
  origin?: Origin;
  status?: "onboarded" | "offboarded";
}

export interface ListOptions {
  sort: SortField;
  order: SortOrder;
  limit: number;
  /** The sort value and id of the last row of the previous page. */
  after?: { value: SortValue; id: string };
}

/** Each sort field's ordering expression — the same text as in the indexes — and its SQL type. */
const SORT_SQL: Record<SortField, { expr: string; type: string }> = {
  created: { expr: "created", type: "timestamptz" },
  updated: { expr: "updated", type: "timestamptz" },
  eventTs: { expr: "event_ts", type: "timestamptz" },
  onboardedAt: { expr: "coalesce(onboarded_at, 'infinity'::timestamptz)", type: "timestamptz" },
  offboardedAt: { expr: "coalesce(offboarded_at, 'infinity'::timestamptz)", type: "timestamptz" },
  sourcedAt: { expr: "coalesce(sourced_at, 'infinity'::timestamptz)", type: "timestamptz" },
  lastSeenTransactionDate: {
    expr: "coalesce(last_seen_transaction_date, 'infinity'::timestamptz)",
    type: "timestamptz",
  },
  origin: { expr: "origin", type: "mid_origin" },
  status: { expr: "status", type: "mid_insight_status" },
  scheme: { expr: "scheme", type: "mid_scheme" },
};

const EXACT_COLUMNS = {
  brandId: "brand_id",
  id: "id",
  locationId: "location_id",
  midId: "mid_id",
  ...IDENTIFIER_COLUMNS,
} as const;

/** The value of the sort field on an insight, as a cursor carries it. */
function sortValue(item: MidInsight, sort: SortField): SortValue {
  return item[sort];
}

const hasExact = (f: MidInsightFilters) =>
  Object.keys(EXACT_COLUMNS).some((k) => f[k as keyof typeof EXACT_COLUMNS] != null);
const hasDates = (f: MidInsightFilters) => f.lastSeenFrom !== undefined || f.lastSeenTo !== undefined;

/** Adds a bound parameter and returns its placeholder, for conditions that are not WHERE clauses. */
function bind(where: Filters, value: unknown): string {
  where.params.push(value);
  return `$${where.params.length}`;
}

/**
 * The program, the exact filters and the date range, as bound conditions (status and origin are added
 * by the caller). `dates: "sort-index"` states the range on the expression the lastSeenTransactionDate
 * sort index holds (absent as infinity), so that index can range-scan it.
 */
function narrowing(programId: string, f: MidInsightFilters, dates: "column" | "sort-index" = "column"): Filters {
  const where = new Filters().add("program_id = ?", programId);
  for (const [field, column] of Object.entries(EXACT_COLUMNS) as [keyof typeof EXACT_COLUMNS, string][]) {
    const value = f[field];
    if (value !== undefined && value !== null) where.add(`${column} = ?`, value);
  }
  const ls = dates === "column" ? "last_seen_transaction_date" : SORT_SQL.lastSeenTransactionDate.expr;
  if (f.lastSeenFrom) where.add(`${ls} >= ?`, f.lastSeenFrom);
  if (f.lastSeenTo) where.add(`${ls} <= ?`, f.lastSeenTo);
  else if (f.lastSeenFrom && dates === "sort-index") where.clauses.push(`${ls} < 'infinity'::timestamptz`);
  return where;
}

function byEnums(where: Filters, f: MidInsightFilters): Filters {
  if (f.status) where.add("status = ?::mid_insight_status", f.status);
  if (f.origin) where.add("origin = ?::mid_origin", f.origin);
  return where;
}

async function countRows(db: Db, where: Filters): Promise<number> {
  const [row] = await db.query<{ n: number }>(`select count(*)::bigint as n from mid_insights ${where.where()}`, where.params);
  return row?.n ?? 0;
}

/**
 * One (status, origin) range of the sort indexes: at most `upTo` insights match in it, of `total`;
 * `earlier` and `later` have their last transaction on a day before or after the date range.
 */
interface Arm {
  status: MidInsightStatus;
  origin: Origin;
  upTo: number;
  total: number;
  earlier: number;
  later: number;
}

/**
 * From the per-day totals, for filters on status, origin and the date range only: the exact count
 * (whole UTC days summed, the partial days at the range's edges counted row by row) and, per
 * (status, origin), an upper bound of the matches and the number of insights.
 */
async function totalsFor(db: Db, programId: string, f: MidInsightFilters): Promise<{ count: number; arms: Arm[] }> {
  const { days, partial } = splitIntoDays(f.lastSeenFrom, f.lastSeenTo);
  const q = byEnums(new Filters().add("program_id = ?", programId), f);
  const dayRange = (from?: string, to?: string) =>
    `(last_seen_day is not null${from ? ` and last_seen_day >= ${bind(q, from)}::date` : ""}${to ? ` and last_seen_day <= ${bind(q, to)}::date` : ""})`;
  const whole = !hasDates(f) ? "true" : days ? dayRange(days.from, days.to) : "false";
  const edge = partial.length ? partial.map((r) => dayRange(utcDay(r.from!), utcDay(r.to!))).join(" or ") : "false";
  const earlier = f.lastSeenFrom ? `last_seen_day < ${bind(q, utcDay(f.lastSeenFrom))}::date` : "false";
  const later = f.lastSeenTo ? `last_seen_day > ${bind(q, utcDay(f.lastSeenTo))}::date` : "false";
  const rows = await db.query<Omit<Arm, "upTo"> & { whole: number; edge: number }>(
    `select status, origin, coalesce(sum(n) filter (where ${whole}), 0)::bigint as whole,
       coalesce(sum(n) filter (where ${edge}), 0)::bigint as edge, sum(n)::bigint as total,
       coalesce(sum(n) filter (where ${earlier}), 0)::bigint as earlier,
       coalesce(sum(n) filter (where ${later}), 0)::bigint as later
     from mid_insight_counts ${q.where()} group by status, origin`,
    q.params,
  );
  let count = rows.reduce((sum, r) => sum + r.whole, 0);
  if (partial.length) {
    // One count per edge, each an index-only range scan (an OR of the two would read the rows).
    const edges = byEnums(new Filters().add("program_id = ?", programId), f);
    const counts = partial.map(
      (r) =>
        `(select count(*) from mid_insights ${edges.where()} and last_seen_transaction_date >= ${bind(edges, r.from)}
          and last_seen_transaction_date <= ${bind(edges, r.to)})`,
    );
    const [row] = await db.query<{ n: number }>(`select (${counts.join(" + ")})::bigint as n`, edges.params);
    count += row?.n ?? 0;
  }
  return {
    count,
    arms: rows.map((r) => ({ status: r.status, origin: r.origin, upTo: r.whole + r.edge, total: r.total, earlier: r.earlier, later: r.later })),
  };
}

/** The number of insights matching the filters, exact. */
async function countMatching(db: Db, programId: string, f: MidInsightFilters): Promise<number> {
  return hasExact(f) ? countRows(db, byEnums(narrowing(programId, f), f)) : (await totalsFor(db, programId, f)).count;
}

/**
 * How a page is read. `single`: every match is fetched and sorted, for filters that leave few rows.
 * `arms`: one range of a sort index per (status, origin), merged in sort order; an arm where matches are
 * sparse (few of its rows fall in the date range) is fetched and sorted on its own instead of walked.
 */
type Plan = { kind: "single" } | { kind: "arms"; arms: (Arm & { fetch: boolean })[] };

/** Sort fields that follow the time of the last transaction: a MID created (or onboarded…) later tends to have transacted later. */
const TIME_LIKE: ReadonlySet<SortField> = new Set(["created", "sourcedAt", "onboardedAt", "offboardedAt", "eventTs", "updated"]);

/**
 * The cost model, in index entries read. A page of `limit` keys merged from arms walked in sort order takes
 * from each arm its share of the page, reading (share + 1) / density entries of it, the +1 being the arm's
 * first match. By a time-like sort, the insights whose last transaction falls before the range (ascending)
 * or after it (descending) are taken to come first and are read before any match. Fetching an arm reads
 * its matches. Both read index entries only (index-only scans); the page's rows are read once at the end.
 */
function walkCost(arm: Arm, matching: number, limit: number, sort: SortField, order: SortOrder): number {
  const skipped = TIME_LIKE.has(sort) ? (order === "asc" ? arm.earlier : arm.later) : 0;
  return skipped + ((limit * arm.upTo) / matching + 1) * ((arm.total - skipped) / arm.upTo);
}

// Up to this many matches an arm is fetched whatever the model says: that costs a millisecond or two,
// while a walk's cost depends on where in the sort order the matches fall, which the model only guesses.
const ALWAYS_FETCH = 2000;

async function planFor(db: Db, programId: string, f: MidInsightFilters, o: { sort: SortField; order: SortOrder; limit: number }) {
  if (hasExact(f)) {
    const count = await countRows(db, byEnums(narrowing(programId, f), f));
    const { arms, count: total } = await totalsFor(db, programId, { status: f.status, origin: f.origin });
    const used = arms.filter((a) => a.total > 0);
    // Exact filters are not in the per-day totals: assume their matches spread evenly over the arms.
    const walk =
      count > 0 &&
      used.reduce((sum, a) => sum + walkCost({ ...a, upTo: (count * a.total) / total, earlier: 0, later: 0 }, count, o.limit, o.sort, o.order), 0) <
        count;
    const plan: Plan = walk ? { kind: "arms", arms: used.map((a) => ({ ...a, fetch: false })) } : { kind: "single" };
    return { count, plan };
  }
  const { count, arms } = await totalsFor(db, programId, f);
  const used = arms.filter((a) => a.upTo > 0);
  const matching = used.reduce((sum, a) => sum + a.upTo, 0);
  // The lastSeenTransactionDate sort index range-scans the date range itself: walking is always right.
  const walkAll = !hasDates(f) || o.sort === "lastSeenTransactionDate";
  const fetch = (a: Arm) => !walkAll && (a.upTo <= ALWAYS_FETCH || walkCost(a, matching, o.limit, o.sort, o.order) > a.upTo);
  const plan: Plan = { kind: "arms", arms: used.map((a) => ({ ...a, fetch: fetch(a) })) };
  return { count, plan };
}

/** One page of rows in sort order, after `o.after`. */
async function pageRows(db: Db, programId: string, f: MidInsightFilters, o: ListOptions, plan: Plan): Promise<MidInsightRow[]> {
  const { expr, type } = SORT_SQL[o.sort];
  const dir = o.order === "asc" ? "asc" : "desc";
  const limit = o.limit + 1;
  const order = `order by ${expr} ${dir}, id ${dir} limit ${limit}`;
  const where = plan.kind === "single" ? byEnums(narrowing(programId, f), f) : narrowing(programId, f, "sort-index");
  /** The keyset condition on a sort key: rows strictly after the previous page's last row. */
  let after = (_key: string) => "true";
  if (o.after) {
    const cmp = o.order === "asc" ? ">" : "<";
    // An absent timestamp sorts as infinity; the cursor carries it as null.
    const value = bind(where, o.after.value);
    const last = NULLABLE_SORT_FIELDS.has(o.sort) ? `coalesce(${value}::${type}, 'infinity'::timestamptz)` : `${value}::${type}`;
    const id = bind(where, o.after.id);
    after = (key) => `(${key}, id) ${cmp} (${last}, ${id}::uuid)`;
  }
  if (plan.kind === "single") {
    return db.query<MidInsightRow>(`select * from mid_insights ${where.where()} and ${after(expr)} ${order}`, where.params);
  }
  if (plan.arms.length === 0) return [];
  // The page's keys first: each arm is cut at the page size and PostgreSQL merges them in sort order,
  // stopping once the page is full; the sort indexes hold what an arm tests (index-only scans). A fetched
  // arm is materialised first, so its date range (on the covering lastSeenTransactionDate index), not the
  // sort order, picks how it is read. Then only the page's rows are read. The enum values are constants
  // from the per-day totals, not input.
  const ctes: string[] = [];
  const arms = plan.arms.map((a) => {
    const arm = `${where.where()} and status = '${a.status}' and origin = '${a.origin}'`;
    if (!a.fetch) return `(select id, ${expr} as sort_key from mid_insights ${arm} and ${after(expr)} ${order})`;
    const name = `arm${ctes.length}`;
    ctes.push(`${name} as materialized (select id, ${expr} as sort_key from mid_insights ${arm})`);
    return `(select id, sort_key from ${name} where ${after("sort_key")} order by sort_key ${dir}, id ${dir} limit ${limit})`;
  });
  ctes.push(`keys as (select * from (${arms.join(" union all ")}) merged order by sort_key ${dir}, id ${dir} limit ${limit})`);
  return db.query<MidInsightRow>(
    `with ${ctes.join(", ")}
     select m.* from keys join mid_insights m on m.id = keys.id order by keys.sort_key ${dir}, keys.id ${dir}`,
    where.params,
  );
}

/**
 * The caller's program (404 otherwise), with the offboardings that fell due in it applied first, in one
 * round trip: reads come before anything else a list request does.
 */
async function readable(ctx: Ctx, programId: string): Promise<void> {
  const [row] = await ctx.db.query<{ found: boolean }>(
    `with program as (select id from programs where id = $1 and account_id = $2 and live = $3),
     done as (
       update mid_insights set ${OFFBOARD_DUE_SET}, updated = $4
       where program_id = (select id from program) and offboard_due <= $4 and status = 'onboarded'
       returning 1
     )
     select exists (select 1 from program) as found, (select count(*) from done) as offboarded`,
    [programId, ctx.accountId, ctx.live, ctx.clock.now()],
  );
  if (!row?.found) throw notFound("program", programId);
}

export async function countMidInsights(ctx: Ctx, programId: string, f: MidInsightFilters): Promise<number> {
  await readable(ctx, programId);
  return countMatching(ctx.db, programId, f);
}

export async function listMidInsights(
  ctx: Ctx,
  programId: string,
  f: MidInsightFilters,
  o: ListOptions,
): Promise<Page<MidInsight>> {
  await readable(ctx, programId);
  const { count, plan } = await planFor(ctx.db, programId, f, o);
  if (count === 0) return { items: [], count };
  const rows = await pageRows(ctx.db, programId, f, o, plan);
  const items = rows.slice(0, o.limit).map(toMidInsight);
  const lastItem = items.at(-1);
  return {
    items,
    count,
    ...(rows.length > o.limit && lastItem
      ? { last: encodeCursor({ sort: o.sort, order: o.order, value: sortValue(lastItem, o.sort), id: lastItem.id }) }
      : {}),
  };
}

/** Every matching insight in sort order, a batch at a time (for exports). */
export async function* allMidInsights(
  ctx: Ctx,
  programId: string,
  f: MidInsightFilters,
  o: { sort: SortField; order: SortOrder; batch: number },
): AsyncGenerator<MidInsight[]> {
  await readable(ctx, programId);
  const { count, plan } = await planFor(ctx.db, programId, f, { ...o, limit: o.batch });
  if (count === 0) return;
  let after: ListOptions["after"];
  for (;;) {
    const rows = await pageRows(ctx.db, programId, f, { sort: o.sort, order: o.order, limit: o.batch, after }, plan);
    const items = rows.slice(0, o.batch).map(toMidInsight);
    if (items.length) yield items;
    const lastItem = items.at(-1);
    if (rows.length <= o.batch || !lastItem) return;
    after = { value: sortValue(lastItem, o.sort), id: lastItem.id };
  }
}
