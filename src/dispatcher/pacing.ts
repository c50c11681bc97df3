// Between the dispatcher's rounds: after a claim, a short wait lets answers gather or the pool sleeps until
// woken; after a failed round, a backoff. A wake-up or a stop ends every wait.
import { backoffMs } from "../platform/backoff.ts";
import type { Waker } from "./wake.ts";

/** What the waits read of the dispatcher's pool. */
export interface Pacing {
  readonly running: boolean;
  readonly inFlight: { readonly size: number };
  readonly waker: Waker;
}

/** One claim: how many deliveries it asked for and how many it got. */
export interface Claim {
  limit: number;
  claimed: number;
  /** What the endpoints known to the pool had room for (their free slots), at most `limit`. */
  room: number;
}

/** Claims are at least this far apart unless the last one filled its limit, so each claims many. */
const CLAIM_INTERVAL_MS = 10;

/**
 * Between rounds: none after a claim that filled its limit (more may be due); after one that got some, or
 * while calls are in flight, a short wait lets answers gather so the next claim takes their slots at once;
 * otherwise sleep until woken.
 */
export async function rest(pool: Pacing, claim: Claim | null): Promise<void> {
  if (!pool.running || (claim && claim.claimed === claim.limit)) return;
  if (!claim || claim.claimed !== 0 || pool.inFlight.size > 0) {
    const sawWake = await gather(pool);
    if ((claim && claim.claimed > 0) || sawWake) return;
  }
  await pool.waker.sleep();
}

/** Waits up to CLAIM_INTERVAL_MS while calls are in flight; whether a wake-up came meanwhile. */
async function gather(pool: Pacing): Promise<boolean> {
  const until = performance.now() + CLAIM_INTERVAL_MS;
  let sawWake = false;
  while (pool.running && pool.inFlight.size > 0 && performance.now() < until) {
    // take() every turn, not only until the first wake-up: a flag left set makes the sleep below return at once.
    if (pool.waker.take()) sawWake = true;
    await pool.waker.sleep(until - performance.now());
  }
  return sawWake || pool.waker.woken;
}

/** After a failed round: waits, doubling with each failure in a row up to 5 s, unless stopped. */
export async function backOff(pool: Pacing, failures: number): Promise<void> {
  const until = performance.now() + backoffMs(failures);
  while (pool.running && performance.now() < until) {
    pool.waker.take();
    await pool.waker.sleep(until - performance.now());
  }
}
