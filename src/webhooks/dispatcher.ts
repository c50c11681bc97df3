// The webhook dispatcher: a continuous pool that fans outbox events out to hooks, claims due
// deliveries in batches as slots free up, delivers them signed over keep-alive connections, and records
// the attempts in batches. Each endpoint (hook) has its own bound, so a slow or dead one never holds a
// slot another could use. It never touches the qualifier's work.
import { randomUUID } from "node:crypto";
import { setMaxListeners } from "node:events";
import type { Logger } from "pino";
import type { Clock } from "../platform/clock/index.ts";
import { keepListening, type Db } from "../platform/db.ts";
import { OUTBOX_WRITTEN } from "../platform/outbox.ts";
import {
  claimDue,
  fanOut,
  recordAttempts,
  renewLeases,
  type AttemptOutcome,
  type DueDelivery,
} from "../services/webhooks/index.ts";
import { createWebhookClient } from "./http.ts";
import { signedHeaders } from "./sign.ts";
import { ENDPOINT_POLICY, GONE, retryAfterMs } from "./schedule.ts";
import type { TargetPolicy } from "../domain/webhook-targets.ts";
import type { Metrics } from "../platform/metrics/index.ts";

export interface DispatcherOptions {
  db: Db;
  clock: Clock;
  log: Logger;
  /** Deliveries in flight at once, over every endpoint. */
  concurrency?: number;
  /** Deliveries in flight at once to one healthy endpoint (hook). */
  endpointConcurrency?: number;
  /** No answer within this is a failed attempt (real milliseconds). */
  timeoutMs?: number;
  /** No connection within this is a failed attempt. */
  connectTimeoutMs?: number;
  /** Which addresses deliveries may reach (WEBHOOK_TARGETS); a refused one is a failed attempt saying so. */
  targets?: TargetPolicy;
  /** An attempt in flight longer than this marks its endpoint suspect; an answer slower than this halves its window. */
  slowMs?: number;
  /** How often to look for new events and due retries, in real milliseconds. */
  pollMs?: number;
  /** Length of a claim on the database's clock; renewed every `leaseMs / 3` while held. */
  leaseMs?: number;
  /** How long `stop()` lets deliveries in flight finish before it cuts them short. */
  drainMs?: number;
  /** Where each attempt's outcome and the event's time to delivery are counted. */
  metrics?: Pick<Metrics, "delivery">;
}

export interface Dispatcher {
  /** New events were written in this process: look for them now instead of at the next poll. */
  kick(): void;
  /**
   * On a started dispatcher, resolves once the pool has looked again after this call and found nothing
   * it can send now: every event written before the call fanned out, every delivery due then and not
   * held back by its endpoint's bound or pause attempted and recorded.
   */
  settled(): Promise<void>;
  start(): void;
  /** Stops claiming; deliveries in flight get `drainMs` to finish, then are cut short and recorded as due again. */
  stop(): Promise<void>;
}

/** What this process knows of one endpoint. */
interface Endpoint {
  inFlight: number;
  /** Its in-flight bound now: grows by doubling with fast successes up to the per-endpoint bound. */
  window: number;
  /** Its last attempt failed, or one has hung longer than `slowMs`: one delivery at a time, from the suspect share. */
  suspect: boolean;
}

interface Held {
  delivery: DueDelivery;
  started: number;
}

/** Outcomes written in one batch at most, and how long a batch waits to fill. */
const RECORD_BATCH = 500;
const BATCH_LINGER_MS = 10;
/** Outbox events fanned out to their hooks in one round at most. */
const FAN_OUT_BATCH = 500;
/** Claims are at least this far apart unless the last one filled its limit, so each claims many. */
const CLAIM_INTERVAL_MS = 10;

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const STOPPING = new Error("cancelled: the dispatcher stopped before an answer came");

export function createDispatcher({
  db,
  clock,
  log,
  concurrency = 256,
  endpointConcurrency = 256,
  timeoutMs = 20_000,
  connectTimeoutMs = 3_000,
  targets = "local",
  slowMs = 5_000,
  pollMs = 200,
  leaseMs = 15_000,
  drainMs = 10_000,
  metrics,
}: DispatcherOptions): Dispatcher {
  const owner = randomUUID();
  const client = createWebhookClient({ timeoutMs, connectTimeoutMs, targets });
  const stopping = new AbortController();
  setMaxListeners(0, stopping.signal); // one listener per delivery in flight
  // Suspect endpoints together never take more than half of the pool.
  const suspectShare = Math.max(1, Math.floor(concurrency / 2));
  const inFlight = new Map<string, Held>();
  const endpoints = new Map<string, Endpoint>();
  const finishing = new Set<Promise<void>>();
  let unrecorded: AttemptOutcome[] = [];
  let recording: Promise<void> | undefined;

  let running = false;
  let loopDone: Promise<void> = Promise.resolve();
  let poll: NodeJS.Timeout | undefined;
  let renew: NodeJS.Timeout | undefined;
  let unsubscribe: (() => void) | undefined;
  let listening: { stop(): Promise<void> } | undefined;
  let fanOutWanted = true;
  let woken = false;
  let sleeper: (() => void) | undefined;
  let round = 0;
  const settleWaiters: { after: number; resolve: () => void }[] = [];

  const wake = () => {
    woken = true;
    sleeper?.();
  };
  const sleep = (ms?: number) =>
    woken
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          const timer = ms === undefined ? undefined : setTimeout(() => sleeper?.(), ms);
          sleeper = () => {
            sleeper = undefined;
            clearTimeout(timer);
            resolve();
          };
        });

  const endpoint = (hookId: string): Endpoint => {
    let e = endpoints.get(hookId);
    if (!e) endpoints.set(hookId, (e = { inFlight: 0, window: 1, suspect: false }));
    return e;
  };

  /** Free slots per known endpoint; an endpoint this process has not sent to yet starts at one. */
  function allowance(): { hookIds: string[]; allowed: number[] } {
    const now = performance.now();
    for (const held of inFlight.values()) {
      if (now - held.started > slowMs) endpoint(held.delivery.hookId).suspect = true;
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
      allowed.push(e.suspect ? (suspectInFlight < suspectShare ? Math.max(0, 1 - e.inFlight) : 0) : Math.max(0, e.window - e.inFlight));
    }
    return { hookIds, allowed };
  }

  function send(delivery: DueDelivery): void {
    const e = endpoint(delivery.hookId);
    e.inFlight++;
    const held: Held = { delivery, started: performance.now() };
    inFlight.set(delivery.id, held);
    const attempted = clock.now();
    const headers = signedHeaders(delivery.secret, delivery.eventId, delivery.body);
    const done = client
      .post(delivery.url, headers, delivery.body, stopping.signal)
      .then(({ responseCode, error, cancelled, responseBody, retryAfter }) => {
        const latencyMs = performance.now() - held.started;
        const succeeded = responseCode !== null && responseCode >= 200 && responseCode < 300;
        e.inFlight--;
        if (succeeded) {
          // Fast answers double the window, slow ones halve it (a slow answer may be our own busy event loop).
          e.suspect = false;
          e.window = latencyMs < slowMs ? Math.min(endpointConcurrency, e.window * 2) : Math.max(1, Math.floor(e.window / 2));
        } else if (!cancelled) {
          e.suspect = true;
          e.window = 1;
        }
        inFlight.delete(delivery.id);
        if (metrics) observeAttempt(metrics, clock, delivery, succeeded, cancelled, responseCode === GONE);
        unrecorded.push({
          deliveryId: delivery.id,
          hookId: delivery.hookId,
          hookFailing: delivery.hookFailing,
          attempted,
          finished: clock.now(),
          latencyMs,
          responseCode,
          error,
          succeeded,
          cancelled,
          // What was sent, signature included (it is no secret), and what came back, for the event's record.
          requestHeaders: headers,
          responseBody,
          retryAfterMs: retryAfterMs(responseCode, retryAfter, Number(headers["webhook-timestamp"]) * 1000),
          jitter: Math.random(),
        });
        record();
        wake();
      });
    finishing.add(done);
    void done.finally(() => finishing.delete(done));
  }

  /**
   * Writes what has come back, one batch at a time; a batch that fails to write is tried again. A batch
   * waits up to BATCH_LINGER_MS for more outcomes unless it is full or nothing else is in flight.
   */
  function record(): void {
    if (recording) return;
    recording = (async () => {
      let failures = 0;
      while (unrecorded.length > 0) {
        if (unrecorded.length < RECORD_BATCH && inFlight.size > 0 && running) await delay(BATCH_LINGER_MS);
        const batch = unrecorded;
        unrecorded = [];
        try {
          const disabled = await recordAttempts(db, batch, ENDPOINT_POLICY);
          for (const { hookId, reason } of disabled) log.warn({ hookId, reason }, "webhook endpoint disabled");
          // Each disabling wrote a `hook.disabled` event: hand it out at the next round.
          if (disabled.length > 0) fanOutWanted = true;
          failures = 0;
        } catch (err) {
          unrecorded = batch.concat(unrecorded);
          failures++;
          log.warn({ err, attempts: batch.length }, "recording webhook attempts failed; trying again");
          if (!running && failures >= 3) {
            log.error({ attempts: unrecorded.length }, "webhook attempts left unrecorded at stop; their claims expire");
            unrecorded = [];
            break;
          }
          await delay(Math.min(100 * 2 ** failures, 2_000));
        }
      }
    })().finally(() => {
      recording = undefined;
      wake();
    });
  }

  const held = () => inFlight.size + unrecorded.length + (recording ? 1 : 0);

  async function loop(): Promise<void> {
    let failures = 0;
    while (running) {
      woken = false;
      const thisRound = ++round;
      const withFanOut = fanOutWanted;
      fanOutWanted = false;
      let claimed = -1;
      let limit = 0;
      try {
        // One batch of fan-out a round, then a claim: under a steady stream of events, deliveries go out
        // between the batches instead of waiting for the outbox to be empty. A full batch asks for another.
        if (withFanOut && (await fanOut(db, clock.now(), FAN_OUT_BATCH)) === FAN_OUT_BATCH) {
          fanOutWanted = true;
          woken = true;
        }
        // Bounded twice: requests in flight, and outcomes not yet written (the database may be slow).
        const free = Math.min(concurrency - inFlight.size, 2 * concurrency - inFlight.size - unrecorded.length);
        if (free > 0 && running) {
          limit = free;
          const due = await claimDue(db, {
            now: clock.now(),
            limit,
            owner,
            leaseMs,
            allowance: allowance(),
            defaultAllowed: 1,
          });
          claimed = due.length;
          for (const d of due) send(d);
        }
        if (failures > 0) log.info({ failures }, "webhook dispatch rounds work again");
        failures = 0;
      } catch (err) {
        failures++;
        fanOutWanted ||= withFanOut;
        if (failures === 1) log.warn({ err }, "webhook dispatch round failed; trying again with backoff");
        else log.debug({ err, failures }, "webhook dispatch round failed again");
        const until = performance.now() + Math.min(100 * 2 ** failures, 5_000);
        while (running && performance.now() < until) {
          woken = false;
          await sleep(until - performance.now());
        }
        continue;
      }
      // Settled: nothing claimed, nothing held, and the fan-out has nothing more to do (a full batch asked for another).
      if (claimed === 0 && held() === 0 && !fanOutWanted) {
        for (let i = settleWaiters.length - 1; i >= 0; i--) {
          if (settleWaiters[i]!.after < thisRound) settleWaiters.splice(i, 1)[0]!.resolve();
        }
      }
      if (claimed === limit) continue; // more may be due: claim again with whatever is free by then
      if (claimed !== 0 || inFlight.size > 0) {
        // Let completions gather so the next claim takes them all at once.
        // Nothing left in flight: nothing more to gather.
        const until = performance.now() + CLAIM_INTERVAL_MS;
        let sawWake = false;
        while (running && inFlight.size > 0 && performance.now() < until) {
          sawWake ||= woken;
          woken = false;
          await sleep(until - performance.now());
        }
        if (claimed > 0 || sawWake || woken) continue;
      }
      await sleep();
    }
  }

  return {
    kick() {
      if (!running) return;
      fanOutWanted = true;
      wake();
    },
    settled() {
      return new Promise<void>((resolve) => {
        settleWaiters.push({ after: round, resolve });
        fanOutWanted = true;
        wake();
      });
    },
    start() {
      if (running) return;
      running = true;
      // Moving the clock makes retries due: wake the pool and return; the clock does not wait for deliveries.
      unsubscribe = clock.onAdvance(() => {
        fanOutWanted = true;
        wake();
      });
      // Events written in any process wake the pool at once; the poll is for due retries and lost wake-ups.
      const look = () => {
        fanOutWanted = true;
        wake();
      };
      listening = keepListening(db, OUTBOX_WRITTEN, look);
      poll = setInterval(look, pollMs);
      renew = setInterval(() => {
        const ids = [...inFlight.keys(), ...unrecorded.map((o) => o.deliveryId)];
        renewLeases(db, owner, ids, leaseMs).catch((err: unknown) => log.warn({ err }, "renewing webhook claims failed"));
      }, Math.floor(leaseMs / 3));
      loopDone = loop();
    },
    async stop() {
      if (!running) return;
      running = false;
      unsubscribe?.();
      clearInterval(poll);
      await listening?.stop();
      wake();
      await loopDone;
      if (finishing.size > 0) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          Promise.all(finishing),
          new Promise((resolve) => (timer = setTimeout(resolve, drainMs))),
        ]);
        clearTimeout(timer);
        stopping.abort(STOPPING);
        await Promise.all(finishing);
      }
      while (recording) await recording;
      clearInterval(renew);
      for (const w of settleWaiters.splice(0)) w.resolve();
      await client.close();
    },
  };
}

/**
 * Counts an attempt's outcome and, for a delivered one, the time since its event was written: service time
 * back to real time at the clock's speed (not known on a frozen clock; an advance between the two adds to it).
 */
function observeAttempt(metrics: Pick<Metrics, "delivery">, clock: Clock, delivery: DueDelivery, succeeded: boolean, cancelled: boolean, gone: boolean): void {
  const lastAttempt = gone || delivery.attempts + 1 > ENDPOINT_POLICY.retryDelaysMs.length;
  const outcome = succeeded ? "delivered" : cancelled ? "cancelled" : lastAttempt ? "failed" : "retried";
  const since = succeeded && clock.speed > 0 ? (clock.now().getTime() - delivery.eventCreated.getTime()) / clock.speed / 1000 : undefined;
  metrics.delivery(outcome, since);
}
