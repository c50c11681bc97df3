// What one dispatcher knows of each endpoint (hook) it sends to, and the bound that follows from it: a
// window of deliveries in flight that doubles with fast successes up to the per-endpoint bound, and one
// delivery at a time, from a share of the pool, for an endpoint that fails or hangs. Plain data and
// functions over it: no I/O, no timers.

/** What this process knows of one endpoint. */
export interface Endpoint {
  inFlight: number;
  /** Its in-flight bound now: grows by doubling with fast successes up to the per-endpoint bound. */
  window: number;
  /** Its last attempt failed, or one has hung longer than `slowMs`: one delivery at a time, from the suspect share. */
  suspect: boolean;
}

export type Endpoints = Map<string, Endpoint>;

export interface WindowPolicy {
  /** The largest window of a healthy endpoint. */
  endpointConcurrency: number;
  /** An attempt in flight longer than this marks its endpoint suspect; an answer slower than this halves its window. */
  slowMs: number;
  /** Deliveries suspect endpoints may have in flight together. */
  suspectShare: number;
}

/** How an attempt ended, as far as its endpoint's window is concerned. */
export interface AttemptVerdict {
  succeeded: boolean;
  /** Cut short by the dispatcher itself: says nothing about the endpoint. */
  cancelled: boolean;
  latencyMs: number;
}

/** An attempt in flight: its endpoint and when it was sent (`performance.now()`). */
export interface InFlight {
  hookId: string;
  started: number;
}

/** Free slots per known endpoint, in the shape a claim takes them. */
export interface Allowance {
  hookIds: string[];
  allowed: number[];
}

/** The endpoint's entry, made at the default (a window of one) when this process has not sent to it yet. */
export function endpointOf(endpoints: Endpoints, hookId: string): Endpoint {
  let e = endpoints.get(hookId);
  if (!e) endpoints.set(hookId, (e = { inFlight: 0, window: 1, suspect: false }));
  return e;
}

/** One more attempt in flight to the endpoint. */
export function opened(endpoints: Endpoints, hookId: string): void {
  endpointOf(endpoints, hookId).inFlight++;
}

/**
 * An attempt to the endpoint ended. Fast successes double the window and slow ones halve it (a slow answer
 * may be this process's own busy event loop); a failure makes the endpoint suspect with a window of one; a
 * cancelled attempt changes nothing but the count in flight.
 */
export function closed(endpoints: Endpoints, hookId: string, verdict: AttemptVerdict, policy: WindowPolicy): void {
  const e = endpointOf(endpoints, hookId);
  e.inFlight--;
  if (verdict.succeeded) {
    e.suspect = false;
    e.window = verdict.latencyMs < policy.slowMs ? Math.min(policy.endpointConcurrency, e.window * 2) : Math.max(1, Math.floor(e.window / 2));
  } else if (!verdict.cancelled) {
    e.suspect = true;
    e.window = 1;
  }
}

/**
 * Free slots per known endpoint at `now` (`performance.now()`); an endpoint missing from the answer starts at
 * one. An attempt in flight longer than `slowMs` first marks its endpoint suspect, and an endpoint back at the
 * default with nothing in flight is forgotten.
 */
export function allowance(endpoints: Endpoints, inFlight: Iterable<InFlight>, now: number, policy: WindowPolicy): Allowance {
  for (const held of inFlight) {
    if (now - held.started > policy.slowMs) endpointOf(endpoints, held.hookId).suspect = true;
  }
  let suspectInFlight = 0;
  for (const e of endpoints.values()) if (e.suspect) suspectInFlight += e.inFlight;
  const hookIds: string[] = [];
  const allowed: number[] = [];
  for (const [hookId, e] of endpoints) {
    if (e.inFlight === 0 && !e.suspect && e.window === 1) {
      endpoints.delete(hookId); // nothing known beyond the default
      continue;
    }
    hookIds.push(hookId);
    allowed.push(e.suspect ? (suspectInFlight < policy.suspectShare ? Math.max(0, 1 - e.inFlight) : 0) : Math.max(0, e.window - e.inFlight));
  }
  return { hookIds, allowed };
}
