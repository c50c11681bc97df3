// When a failed delivery is tried again, in service time after the attempt that failed
// (the Standard Webhooks reference schedule). After the last one the delivery is marked failed.
export const RETRY_DELAYS_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000] as const;

/** Service-time delay before attempt number `attempt + 1`, or null when no attempt is left. */
export const retryDelay = (attemptsMade: number): number | null => RETRY_DELAYS_MS[attemptsMade - 1] ?? null;
