// One delivery attempt as typed values through its phases: prepared (signed, its headers made, stamped),
// called (the HTTP client's answer, judged), then its outcome for the record and for the metrics.
import type { Clock } from "../platform/clock/index.ts";
import type { DeliveryOutcome, Metrics } from "../platform/metrics/index.ts";
import type { AttemptOutcome, DueDelivery } from "../services/webhooks/index.ts";
import type { PostResult, WebhookClient } from "./http.ts";
import type { InFlight } from "./endpoints.ts";
import { ENDPOINT_POLICY, GONE, retryAfterMs } from "./schedule.ts";
import { signedHeaders } from "./sign.ts";

/** A delivery ready to send. */
export interface PreparedAttempt extends InFlight {
  delivery: DueDelivery;
  /** What is sent, signature included (it is no secret): kept for the event's record. */
  headers: Record<string, string>;
  /** Service time the request is sent. */
  attempted: Date;
}

/** What came back, judged. */
export interface Answer extends PostResult {
  /** A 2xx. */
  succeeded: boolean;
  latencyMs: number;
  /** Service time the answer (or the failure) came. */
  finished: Date;
}

/** Signs the delivery and stamps it as sent now. */
export function prepare(delivery: DueDelivery, clock: Clock): PreparedAttempt {
  const headers = signedHeaders(delivery.secret, delivery.eventId, delivery.body);
  return { delivery, hookId: delivery.hookId, headers, attempted: clock.now(), started: performance.now() };
}

/** POSTs the prepared attempt; never throws. `signal` cuts it short, and the answer then says `cancelled`. */
export async function call(client: WebhookClient, attempt: PreparedAttempt, signal: AbortSignal, clock: Clock): Promise<Answer> {
  const { delivery, headers } = attempt;
  const result = await client.post(delivery.url, headers, delivery.body, signal);
  const succeeded = result.responseCode !== null && result.responseCode >= 200 && result.responseCode < 300;
  return { ...result, succeeded, latencyMs: performance.now() - attempt.started, finished: clock.now() };
}

/** The attempt as recorded: what was sent, what came back, and when the answer asked to be tried again. */
export function outcomeOf(attempt: PreparedAttempt, answer: Answer): AttemptOutcome {
  const { delivery, headers } = attempt;
  return {
    deliveryId: delivery.id,
    hookId: delivery.hookId,
    hookFailing: delivery.hookFailing,
    attempted: attempt.attempted,
    finished: answer.finished,
    latencyMs: answer.latencyMs,
    responseCode: answer.responseCode,
    error: answer.error,
    succeeded: answer.succeeded,
    cancelled: answer.cancelled,
    requestHeaders: headers,
    responseBody: answer.responseBody,
    retryAfterMs: retryAfterMs(answer.responseCode, answer.retryAfter, Number(headers["webhook-timestamp"]) * 1000),
    jitter: Math.random(),
  };
}

/** What became of the delivery with this attempt, as counted. */
export function deliveryOutcome(delivery: DueDelivery, answer: Answer): DeliveryOutcome {
  if (answer.succeeded) return "delivered";
  if (answer.cancelled) return "cancelled";
  const lastAttempt = answer.responseCode === GONE || delivery.attempts + 1 > ENDPOINT_POLICY.retryDelaysMs.length;
  return lastAttempt ? "failed" : "retried";
}

/**
 * Counts an attempt's outcome and, for a delivered one, the time since its event was written: service time
 * back to real time at the clock's speed (not known on a frozen clock; an advance between the two adds to it).
 */
export function observeAttempt(metrics: Pick<Metrics, "delivery">, clock: Clock, attempt: PreparedAttempt, answer: Answer): void {
  const { delivery } = attempt;
  const since = answer.succeeded && clock.speed > 0 ? (clock.now().getTime() - delivery.eventCreated.getTime()) / clock.speed / 1000 : undefined;
  metrics.delivery(deliveryOutcome(delivery, answer), since);
}
