// Token buckets kept in the database, so every api process of a deployment spends one budget per account.
// The one writer of rate_limit_buckets: a batch of demands is refilled and spent in one statement.
import type { Db } from "../../platform/db.ts";

export interface BucketDemand {
  key: string;
  /** Tokens asked for (one per request). */
  count: number;
}

export interface BucketAnswer {
  key: string;
  /** Tokens given, at most the count asked for. */
  granted: number;
  /** Tokens left after this batch (fractions refill at perSecond). */
  tokens: number;
}

/**
 * Refills each bucket at `perSecond` up to `burst` since its last use (on the database's clock, the same
 * for every process) and takes up to `count` whole tokens from it; a new bucket starts full. One
 * statement for the whole batch; each row is locked while it is updated, so concurrent batches of other
 * processes never spend the same token twice. Keys must be distinct.
 */
export async function takeTokens(db: Db, demands: readonly BucketDemand[], limits: { perSecond: number; burst: number }): Promise<BucketAnswer[]> {
  if (demands.length === 0) return [];
  const sorted = [...demands].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  // The refilled level of an existing bucket: its tokens plus the time since its last use at perSecond.
  const refilled = "least($3::float8, b.tokens + greatest(0, extract(epoch from (clock_timestamp() - b.updated))) * $4::float8)";
  return db.query<BucketAnswer>(
    `insert into rate_limit_buckets as b (key, tokens, updated, demand, granted)
     select d.key, $3::float8 - least(d.n, floor($3::float8)), clock_timestamp(), d.n, least(d.n, floor($3::float8))::int
       from unnest($1::text[], $2::int[]) with ordinality as d(key, n, i)
      order by d.i
     on conflict (key) do update set
       tokens = ${refilled} - least(excluded.demand, floor(${refilled})),
       granted = least(excluded.demand, floor(${refilled}))::int,
       demand = excluded.demand,
       updated = clock_timestamp()
     returning key, granted, tokens`,
    [sorted.map((d) => d.key), sorted.map((d) => d.count), limits.burst, limits.perSecond],
  );
}
