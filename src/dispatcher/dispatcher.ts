// The webhook dispatcher: a continuous pool that fans outbox events out to hooks, claims due
// deliveries in batches as slots free up, delivers them signed over keep-alive connections, and records
// the attempts in batches. Each endpoint (hook) has its own bound, so a slow or dead one never holds a
// slot another could use. It never touches the qualifier's work. A round is phases over typed values —
// fan out, claim, then per delivery prepare, call and handle the answer — each a function of the
// dispatcher's context (what it is given) and its pool (what changes as it runs), each timed.
import { randomUUID } from "node:crypto";
import { setMaxListeners } from "node:events";
import type { Logger } from "pino";
import type { Clock } from "../platform/clock/index.ts";
import { keepListening, type Db } from "../platform/db.ts";
import { OUTBOX_WRITTEN } from "../platform/outbox.ts";
import { ROUND_TICK_MS } from "../platform/group-commit.ts";
import type { DispatchPhase, Metrics } from "../platform/metrics/index.ts";
import { claimDue, fanOut, renewLeases, type DueDelivery } from "../services/webhooks/index.ts";
import type { TargetPolicy } from "../domain/webhook-targets.ts";
import { createWebhookClient, type WebhookClient } from "./http.ts";
import { allowance, closed, opened, type Endpoints, type WindowPolicy } from "./endpoints.ts";
import { call, observeAttempt, outcomeOf, prepare, type Answer, type PreparedAttempt } from "./attempt.ts";
import { createRecorder, type Recorder } from "./recorder.ts";
import { createWaker, type Waker } from "./wake.ts";
import { backOff, rest, type Claim } from "./pacing.ts";

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
  /** Where each attempt's outcome, the event's time to delivery and each phase's duration are counted. */
  metrics?: Pick<Metrics, "delivery" | "dispatchPhase">;
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

/** What every phase reads: the dispatcher's dependencies and settings, fixed at creation. */
interface DispatchContext {
  db: Db;
  clock: Clock;
  log: Logger;
  client: WebhookClient;
  /** This dispatcher's name on its claims. */
  owner: string;
  concurrency: number;
  pollMs: number;
  leaseMs: number;
  drainMs: number;
  window: WindowPolicy;
  /** Aborted at stop once `drainMs` has passed: cuts the calls still in flight short. */
  stopping: AbortController;
  metrics: DispatcherOptions["metrics"];
  /** Counts one run of a phase that began at `started` (`performance.now()`). */
  timed(phase: DispatchPhase, started: number): void;
}

/** What changes as the pool runs. */
interface Pool {
  running: boolean;
  /** Rounds begun; a `settled()` waits for a quiet round begun after it. */
  round: number;
  /** Outbox events may wait: the next round fans out a batch. */
  fanOutWanted: boolean;
  readonly inFlight: Map<string, PreparedAttempt>;
  readonly endpoints: Endpoints;
  /** Each call in flight until its answer is handled. */
  readonly finishing: Set<Promise<void>>;
  readonly settleWaiters: { after: number; resolve: () => void }[];
  readonly waker: Waker;
  readonly recorder: Recorder;
  loopDone: Promise<void>;
  wiring?: Wiring;
}

/** The wake-ups and the lease renewal a started dispatcher has set up. */
interface Wiring {
  stopWakeUps(): Promise<void>;
  stopRenewing(): void;
}

/** Outbox events fanned out to their hooks in one round at most. */
const FAN_OUT_BATCH = 500;

/** The reason calls in flight are cut short at stop; its message is the attempt's recorded error. */
class DispatcherStopped extends Error {
  constructor() {
    super("cancelled: the dispatcher stopped before an answer came");
  }
}

export function createDispatcher(options: DispatcherOptions): Dispatcher {
  const ctx = contextOf(options);
  const pool = poolOf(ctx);
  const look = () => {
    pool.fanOutWanted = true;
    pool.waker.wake();
  };
  return {
    kick() {
      if (pool.running) look();
    },
    settled() {
      return new Promise<void>((resolve) => {
        pool.settleWaiters.push({ after: pool.round, resolve });
        look();
      });
    },
    start() {
      if (pool.running) return;
      pool.running = true;
      pool.wiring = wire(ctx, pool, look);
      pool.loopDone = loop(ctx, pool);
    },
    stop: () => stop(ctx, pool),
  };
}

function contextOf({
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
}: DispatcherOptions): DispatchContext {
  const stopping = new AbortController();
  setMaxListeners(0, stopping.signal); // one listener per delivery in flight
  return {
    db,
    clock,
    log,
    client: createWebhookClient({ timeoutMs, connectTimeoutMs, targets }),
    owner: randomUUID(),
    concurrency,
    pollMs,
    leaseMs,
    drainMs,
    // Suspect endpoints together never take more than half of the pool.
    window: { endpointConcurrency, slowMs, suspectShare: Math.max(1, Math.floor(concurrency / 2)) },
    stopping,
    metrics,
    timed: metrics ? (phase, started) => metrics.dispatchPhase(phase, (performance.now() - started) / 1000) : () => {},
  };
}

function poolOf(ctx: DispatchContext): Pool {
  const pool: Pool = {
    running: false,
    round: 0,
    fanOutWanted: true,
    inFlight: new Map(),
    endpoints: new Map(),
    finishing: new Set(),
    settleWaiters: [],
    waker: createWaker(),
    recorder: createRecorder({
      db: ctx.db,
      log: ctx.log,
      running: () => pool.running,
      inFlight: () => pool.inFlight.size,
      // Each disabling wrote a `hook.disabled` event: hand it out at the next round.
      disabled: () => {
        pool.fanOutWanted = true;
      },
      idle: () => pool.waker.wake(),
      written: (started) => ctx.timed("record", started),
    }),
    loopDone: Promise.resolve(),
  };
  return pool;
}

/** Sets up what wakes the pool, and the renewal of its claims. */
function wire(ctx: DispatchContext, pool: Pool, look: () => void): Wiring {
  // Moving the clock makes retries due: wake the pool and return; the clock does not wait for deliveries.
  const unsubscribe = ctx.clock.onAdvance(look);
  // Events written in any process wake the pool at once; the poll is for due retries and lost wake-ups.
  const listening = keepListening(ctx.db, OUTBOX_WRITTEN, look);
  const poll = setInterval(look, ctx.pollMs);
  const renew = setInterval(() => renewClaims(ctx, pool), Math.floor(ctx.leaseMs / 3));
  return {
    async stopWakeUps() {
      unsubscribe();
      clearInterval(poll);
      await listening.stop();
    },
    stopRenewing: () => clearInterval(renew),
  };
}

/** Extends the claims on every delivery in flight or with its outcome not yet written. */
function renewClaims(ctx: DispatchContext, pool: Pool): void {
  const ids = [...pool.inFlight.keys(), ...pool.recorder.queuedIds()];
  renewLeases(ctx.db, ctx.owner, ids, ctx.leaseMs).catch((err: unknown) => ctx.log.warn({ err }, "renewing webhook claims failed"));
}

/** The pool's rounds until stop: fan out and claim, settle waiters when all is quiet, then rest. */
async function loop(ctx: DispatchContext, pool: Pool): Promise<void> {
  let failures = 0;
  let began = -Infinity;
  let busy = false;
  while (pool.running) {
    // A busy pool's rounds (the last one claimed more than one delivery, and less than its endpoints had
    // room for: it took all that was due) are a tick apart (ROUND_TICK_MS): the events and answers of the
    // tick share them. A claim that filled its room goes again as soon as slots free up.
    const early = busy ? began + ROUND_TICK_MS - performance.now() : 0;
    if (early > 1) await new Promise((resolve) => setTimeout(resolve, early));
    // Stopped during the tick: its wake-up must not be taken below, or the rest after would sleep for good.
    if (!pool.running) break;
    began = performance.now();
    pool.waker.take();
    const round = ++pool.round;
    const withFanOut = pool.fanOutWanted;
    pool.fanOutWanted = false;
    let claim: Claim | null;
    try {
      claim = await runRound(ctx, pool, withFanOut);
    } catch (err) {
      failures++;
      pool.fanOutWanted ||= withFanOut;
      if (failures === 1) ctx.log.warn({ err }, "webhook dispatch round failed; trying again with backoff");
      else ctx.log.debug({ err, failures }, "webhook dispatch round failed again");
      await backOff(pool, failures);
      continue;
    }
    if (failures > 0) ctx.log.info({ failures }, "webhook dispatch rounds work again");
    failures = 0;
    busy = claim !== null && claim.claimed > 1 && claim.claimed < claim.room;
    if (claim?.claimed === 0 && quiet(pool)) settleWaiters(pool, round);
    await rest(pool, claim);
  }
}

/**
 * One batch of fan-out, then a claim: under a steady stream of events, deliveries go out between the
 * batches instead of waiting for the outbox to be empty. A full batch asks for another.
 */
async function runRound(ctx: DispatchContext, pool: Pool, withFanOut: boolean): Promise<Claim | null> {
  if (withFanOut && (await fanOutBatch(ctx)) === FAN_OUT_BATCH) {
    pool.fanOutWanted = true;
    pool.waker.wake();
  }
  return claimAndSend(ctx, pool);
}

/** Turns one batch of outbox events into deliveries; returns the events handled. */
async function fanOutBatch(ctx: DispatchContext): Promise<number> {
  const started = performance.now();
  const events = await fanOut(ctx.db, ctx.clock.now(), FAN_OUT_BATCH);
  ctx.timed("fan_out", started);
  return events;
}

/** Claims as many due deliveries as there is room for and sends each; null when there is no room. */
async function claimAndSend(ctx: DispatchContext, pool: Pool): Promise<Claim | null> {
  // Bounded twice: requests in flight, and outcomes not yet written (the database may be slow).
  const free = Math.min(ctx.concurrency - pool.inFlight.size, 2 * ctx.concurrency - pool.inFlight.size - pool.recorder.queued);
  if (free <= 0 || !pool.running) return null;
  const started = performance.now();
  const slots = allowance(pool.endpoints, pool.inFlight.values(), performance.now(), ctx.window);
  const due = await claimDue(ctx.db, {
    now: ctx.clock.now(),
    limit: free,
    owner: ctx.owner,
    leaseMs: ctx.leaseMs,
    allowance: slots,
    defaultAllowed: 1,
  });
  ctx.timed("claim", started);
  for (const delivery of due) send(ctx, pool, delivery);
  return { limit: free, claimed: due.length, room: Math.min(free, slots.allowed.reduce((n, a) => n + a, 0)) };
}

/** Prepares a delivery and calls its endpoint; the answer is handled when it comes. */
function send(ctx: DispatchContext, pool: Pool, delivery: DueDelivery): void {
  const started = performance.now();
  const attempt = prepare(delivery, ctx.clock);
  ctx.timed("prepare", started);
  opened(pool.endpoints, delivery.hookId);
  pool.inFlight.set(delivery.id, attempt);
  const done = call(ctx.client, attempt, ctx.stopping.signal, ctx.clock).then((answer) => {
    ctx.timed("call", attempt.started);
    handle(ctx, pool, attempt, answer);
  });
  pool.finishing.add(done);
  void done.finally(() => pool.finishing.delete(done));
}

/** An answer came (or the call failed, or was cut short): the endpoint's window, the metrics, the record. */
function handle(ctx: DispatchContext, pool: Pool, attempt: PreparedAttempt, answer: Answer): void {
  closed(pool.endpoints, attempt.hookId, answer, ctx.window);
  pool.inFlight.delete(attempt.delivery.id);
  if (ctx.metrics) observeAttempt(ctx.metrics, ctx.clock, attempt, answer);
  pool.recorder.add(outcomeOf(attempt, answer));
  pool.waker.wake();
}

/** Nothing in flight, nothing unwritten, and the fan-out has nothing more to do (a full batch asked for another). */
const quiet = (pool: Pool) => pool.inFlight.size === 0 && pool.recorder.held() === 0 && !pool.fanOutWanted;

/** Resolves the `settled()` calls made before this round began. */
function settleWaiters(pool: Pool, round: number): void {
  const waiters = pool.settleWaiters;
  for (let i = waiters.length - 1; i >= 0; i--) {
    if (waiters[i]!.after < round) waiters.splice(i, 1)[0]!.resolve();
  }
}

/** Stops claiming, lets calls in flight finish for `drainMs`, cuts the rest short and writes every outcome. */
async function stop(ctx: DispatchContext, pool: Pool): Promise<void> {
  if (!pool.running) return;
  pool.running = false;
  await pool.wiring?.stopWakeUps();
  pool.waker.wake();
  await pool.loopDone;
  await drain(ctx, pool);
  await pool.recorder.drained();
  pool.wiring?.stopRenewing();
  for (const w of pool.settleWaiters.splice(0)) w.resolve();
  await ctx.client.close();
}

/** Waits up to `drainMs` for the calls in flight, then cuts the rest short; they answer `cancelled`. */
async function drain(ctx: DispatchContext, pool: Pool): Promise<void> {
  if (pool.finishing.size === 0) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([Promise.all(pool.finishing), new Promise((resolve) => (timer = setTimeout(resolve, ctx.drainMs)))]);
  clearTimeout(timer);
  ctx.stopping.abort(new DispatcherStopped());
  await Promise.all(pool.finishing);
}
