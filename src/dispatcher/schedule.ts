// When a failed delivery is tried again, in service time after the attempt that failed (the Standard
// Webhooks reference schedule, each delay stretched by a random jitter so that deliveries failed together
// do not come back together), and what a receiver's answer changes in it: `Retry-After` on 429 and 503,
// and 410 Gone. After the last retry the delivery is marked failed.
import type { EndpointPolicy } from "../services/webhooks/index.ts";
import { DAY_MS } from "../domain/time-units.ts";

export const RETRY_DELAYS_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000] as const;

/** Each delay is stretched by up to this share of itself, at random: never earlier than the schedule. */
export const RETRY_JITTER = 0.2;

/** A retry is never put off further than the schedule's longest delay, whatever `Retry-After` asks. */
export const RETRY_AFTER_MAX_MS = Math.max(...RETRY_DELAYS_MS);

/** The answers whose `Retry-After` is honoured. */
export const RETRY_AFTER_STATUSES: readonly number[] = [429, 503];

/** The answer that says the endpoint is gone for good: its hook is disabled at once. */
export const GONE = 410;

/**
 * An endpoint (hook) that fails is paused, on service time, before the next probe: 5 s after the first
 * failure of a streak, doubling with each further one, at most 10 min (or longer when it asked so with
 * `Retry-After`). Deliveries due meanwhile wait without spending attempts. One that has failed on every
 * attempt for 5 days is disabled; so is one that answers 410 Gone.
 */
export const ENDPOINT_POLICY: EndpointPolicy = {
  retryDelaysMs: RETRY_DELAYS_MS,
  jitter: RETRY_JITTER,
  pauseBaseMs: 5_000,
  pauseMaxMs: 600_000,
  disableAfterMs: 5 * DAY_MS,
};

/**
 * How long a `Retry-After` answer asks to wait, in milliseconds, or null when there is none to honour:
 * only on 429 and 503, as delta-seconds or an HTTP-date (read against `sentAtMs`, the wall-clock time the
 * request was signed at, the receiver's own frame of reference). Capped at RETRY_AFTER_MAX_MS.
 */
export function retryAfterMs(status: number | null, header: string | null | undefined, sentAtMs: number): number | null {
  if (status === null || !RETRY_AFTER_STATUSES.includes(status) || !header) return null;
  const value = header.trim();
  let ms: number;
  if (/^\d+$/.test(value)) ms = Number(value) * 1000;
  else {
    if (!HTTP_DATE.test(value)) return null;
    const at = Date.parse(value);
    if (Number.isNaN(at)) return null;
    ms = Math.max(0, at - sentAtMs);
  }
  return Math.min(ms, RETRY_AFTER_MAX_MS);
}

/** An HTTP date (IMF-fixdate, RFC 9110), e.g. `Mon, 05 Jan 2026 12:30:00 GMT`. */
const HTTP_DATE = /^[A-Za-z]{3},\s+\d{1,2}\s+[A-Za-z]{3}\s+\d{4}\s+\d{2}:\d{2}:\d{2}\s+GMT$/;

/** The schedule in words, for the API's descriptions and the docs. */
export const SCHEDULE_TEXT =
  "A non-2xx answer or a timeout is retried after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h of service time " +
  `(each delay stretched by a random jitter of up to ${RETRY_JITTER * 100}%, never shortened); then the delivery is \`failed\`. ` +
  "A 429 or 503 with `Retry-After` (seconds or an HTTP date) is retried no earlier than it asks, at most 10 h later, " +
  "and pauses the hook as long; the number of attempts stays the same. A 410 Gone fails the delivery and disables the hook at once; " +
  "so does failing on every attempt for 5 days of service time. A disabled hook sends `hook.disabled` to the program's other hooks " +
  "registered for that event.";
