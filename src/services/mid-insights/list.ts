// MID insights, read: the filtered, sorted, keyset-paged list with its exact count, and the cost model
// that picks, per request, between one index walk and a union of per-value arms.
import type { Ctx } from "../../platform/context.ts";
import type { Db } from "../../platform/db.ts";
import { Filters, type Page } from "../../platform/page.ts";
import {
  NULLABLE_SORT_FIELDS,
  encodeCursor,
  splitIntoDays,
  utcDay,
  type MidIdentifiers,
  type MidInsightStatus,
  type Origin,
  type SortField,
  type SortOrder,
  type SortValue,
} from "../../domain/mid-insights.ts";
import { IDENTIFIER_COLUMNS, toMidInsight, type MidInsight, type MidInsightRow } from "./mid-insights.ts";
import { applyDueOffboardings } from "./offboarding.ts";


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


export async function countMidInsights(ctx: Ctx, programId: string, f: MidInsightFilters): Promise<number> {
  await applyDueOffboardings(ctx, programId);
  return countMatching(ctx.db, programId, f);
}

export async function listMidInsights(
  ctx: Ctx,
  programId: string,
  f: MidInsightFilters,
  o: ListOptions,
): Promise<Page<MidInsight>> {
  await applyDueOffboardings(ctx, programId);
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
  await applyDueOffboardings(ctx, programId);
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
