// When a failed delivery is tried again, in service time after the attempt that failed
// (the Standard Webhooks reference schedule). After the last one the delivery is marked failed.
import type { EndpointPolicy } from "../services/hooks.ts";

export const RETRY_DELAYS_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000] as const;

/**
 * An endpoint (hook) that fails is paused, on service time, before the next probe: 5 s after the first
 * failure of a streak, doubling with each further one, at most 10 min. Deliveries due meanwhile wait
 * without spending attempts. One that has failed on every attempt for 5 days is disabled.
 */
export const ENDPOINT_POLICY: EndpointPolicy = {
  retryDelaysMs: RETRY_DELAYS_MS,
  pauseBaseMs: 5_000,
  pauseMaxMs: 600_000,
  disableAfterMs: 5 * 24 * 3_600_000,
};
