// A per-account cap on test purchases in flight (POST /v1/transactions/test and a purchase's clear, void
// and refund): each waits for the simulators and the qualifier, so one account's burst would otherwise
// fill the pipeline every other account's purchases go through. Counted in this api process.
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../context.ts";
import { ApiError } from "../errors.ts";

const TEST_PURCHASE_PATH = /^\/v1\/transactions\/(test|[^/]+\/(clear|void|refund))$/;

/** At most `limit` (TEST_PURCHASE_CONCURRENCY) test purchases of one account in flight; the next is 429 with Retry-After. */
export function testPurchaseCap(limit: number): MiddlewareHandler<AppEnv> {
  const inFlight = new Map<string, number>();
  return async (c, next) => {
    if (c.req.method !== "POST" || !TEST_PURCHASE_PATH.test(c.req.path)) return next();
    const account = c.var.caller.account.id;
    const count = inFlight.get(account) ?? 0;
    if (count >= limit) {
      throw new ApiError(
        "rate_limit_exceeded",
        `Too many test purchases in flight for this account (at most ${limit} at once); retry after 1s.`,
        { "Retry-After": "1" },
      );
    }
    inFlight.set(account, count + 1);
    try {
      await next();
    } finally {
      const left = (inFlight.get(account) ?? 1) - 1;
      if (left === 0) inFlight.delete(account);
      else inFlight.set(account, left);
    }
  };
}
