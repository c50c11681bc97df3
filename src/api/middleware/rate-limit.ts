// Per-key token buckets: RATE_LIMIT_PER_SECOND tokens a second up to RATE_LIMIT_BURST.
// Rate limiting protects the process, so it runs on the wall clock, not the service clock.
import { ApiError } from "../errors.ts";

export interface RateLimiter {
  /** Takes one token for `key`, or throws 429 with the seconds until one is free. */
  take(key: string): void;
}

export function createRateLimiter(perSecond: number, burst: number, wall = () => performance.now()): RateLimiter {
  const buckets = new Map<string, { tokens: number; at: number }>();
  return {
    take(key) {
      const now = wall();
      const bucket = buckets.get(key) ?? { tokens: burst, at: now };
      bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.at) / 1000) * perSecond);
      bucket.at = now;
      buckets.set(key, bucket);
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        return;
      }
      const retryAfter = Math.max(1, Math.ceil((1 - bucket.tokens) / perSecond));
      throw new ApiError("rate_limit_exceeded", `Too many requests for this key; retry after ${retryAfter}s.`, {
        "Retry-After": String(retryAfter),
      });
    },
  };
}
