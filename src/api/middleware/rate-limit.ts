// Rate limits. Per account (test and live keys together): token buckets kept in the database through
// src/services/accounts/rate-limits.ts, so every api process spends one budget; the requests that arrive while a
// statement is in flight are grouped into the next one, so the cost is one cheap statement per round trip,
// not one per request. Per client address (failed authentications and sign-ins, /admin): buckets in
// this process's memory. Both refill RATE tokens a second up to BURST, on the wall clock (rate limiting
// protects the process, so it does not follow the service clock).
import type { Context } from "hono";
import type { IncomingMessage } from "node:http";
import type { Db } from "../../platform/db.ts";
import { takeTokens } from "../../services/accounts/index.ts";
import { ApiError } from "../errors.ts";
import { groupCommit } from "../../platform/group-commit.ts";

export interface RateLimiter {
  /** Takes one token for `key`, or throws 429 with the seconds until one is free. */
  take(key: string): void;
  /** Throws 429 when `key` has no token left, without taking one. */
  check(key: string): void;
}

const limited = (what: string, retryAfter: number) =>
  new ApiError("rate_limit_exceeded", `Too many requests for this ${what}; retry after ${retryAfter}s.`, { "Retry-After": String(retryAfter) });

const retryAfterSeconds = (tokens: number, perSecond: number) => Math.max(1, Math.ceil((1 - tokens) / perSecond));

/** In-memory buckets, one per key, for limits that are this process's own (per client address). */
export function createRateLimiter(perSecond: number, burst: number, wall = () => performance.now(), what = "key"): RateLimiter {
  const buckets = new Map<string, { tokens: number; at: number }>();
  // Buckets that have refilled are forgotten when the map grows: many addresses seen once cost no memory.
  const sweep = (now: number) => {
    for (const [key, bucket] of buckets) if (bucket.tokens + ((now - bucket.at) / 1000) * perSecond >= burst) buckets.delete(key);
  };
  const refill = (key: string) => {
    const now = wall();
    if (buckets.size >= 10_000 && !buckets.has(key)) sweep(now);
    const bucket = buckets.get(key) ?? { tokens: burst, at: now };
    bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.at) / 1000) * perSecond);
    bucket.at = now;
    buckets.set(key, bucket);
    // A full bucket is the same as none.
    if (bucket.tokens >= burst) buckets.delete(key);
    return bucket;
  };
  return {
    take(key) {
      const bucket = refill(key);
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        buckets.set(key, bucket);
        return;
      }
      throw limited(what, retryAfterSeconds(bucket.tokens, perSecond));
    },
    check(key) {
      const bucket = refill(key);
      if (bucket.tokens < 1) throw limited(what, retryAfterSeconds(bucket.tokens, perSecond));
    },
  };
}

/**
 * The TCP peer of a request served by @hono/node-server; undefined for an in-process call (the dashboard's
 * calls of the API, tests' app.request), which no address limit applies to.
 */
export const clientAddress = (c: Context): string | undefined =>
  (c.env as { incoming?: IncomingMessage } | undefined)?.incoming?.socket?.remoteAddress;

/**
 * Limits per client address (the TCP peer), buckets in this process. `failedAuth`: credentials presented
 * and refused (a wrong key or admin token on any route, a failed dashboard sign-in), AUTH_FAILURE_LIMIT_*;
 * an address that has spent it is refused (429) before its credentials are looked up, whatever they are.
 * `admin`: every /admin request, with the per-account budget (RATE_LIMIT_*) per address.
 */
export interface AddressLimiters {
  failedAuth: RateLimiter;
  admin: RateLimiter;
}

export const createAddressLimiters = (config: {
  AUTH_FAILURE_LIMIT_PER_MINUTE: number;
  AUTH_FAILURE_LIMIT_BURST: number;
  RATE_LIMIT_PER_SECOND: number;
  RATE_LIMIT_BURST: number;
}): AddressLimiters => ({
  failedAuth: createRateLimiter(config.AUTH_FAILURE_LIMIT_PER_MINUTE / 60, config.AUTH_FAILURE_LIMIT_BURST, undefined, "client address"),
  admin: createRateLimiter(config.RATE_LIMIT_PER_SECOND, config.RATE_LIMIT_BURST, undefined, "client address"),
});

export interface AccountLimiter {
  /** Takes one token of the account's shared bucket, or rejects with 429 and Retry-After. */
  take(accountId: string): Promise<void>;
}

/**
 * The per-account limit: in the database on PostgreSQL, which every api replica shares; in this process's
 * memory on PGlite, whose database only this process opens (one process per embedded database).
 */
export function createAccountLimiter(db: Db, perSecond: number, burst: number): AccountLimiter {
  if (db.engine === "pglite") {
    const buckets = createRateLimiter(perSecond, burst, undefined, "account");
    return { take: async (accountId) => buckets.take(accountId) };
  }
  return sharedAccountLimiter(db, perSecond, burst);
}

/**
 * The per-account limit in the database, in rounds (group commit): one statement in flight at a time,
 * carrying every request that arrived meanwhile (each account's requests summed into one demand, granted
 * in the order they came).
 */
function sharedAccountLimiter(db: Db, perSecond: number, burst: number): AccountLimiter {
  const take = groupCommit<string, void>(async (accountIds) => {
    const demand = new Map<string, number>();
    for (const id of accountIds) demand.set(id, (demand.get(id) ?? 0) + 1);
    const answers = new Map((await takeTokens(db, [...demand].map(([key, count]) => ({ key, count })), { perSecond, burst })).map((a) => [a.key, a]));
    const granted = new Map<string, number>();
    return accountIds.map((id) => {
      const answer = answers.get(id);
      const n = granted.get(id) ?? 0;
      granted.set(id, n + 1);
      return answer && n < answer.granted ? { ok: undefined } : { error: limited("account", retryAfterSeconds(answer?.tokens ?? 0, perSecond)) };
    });
  }, { fairBy: (accountId) => accountId });
  return { take };
}
