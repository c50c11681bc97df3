// The front door's admission of test purchases (and their clear, void, refund). Each waits for the
// simulators and the qualifier, so what is in flight is the pipeline's depth, and everyone's latency grows
// with it. The gate lets a capacity of them in flight, every account together; an account under its fair
// share starts at once, the rest wait in fair turns (deficit round robin) for a place. The capacity follows
// what the gate sees: cut while the stream is past a bound or, when accounts contend, while latency grows
// past ADMISSION_LATENCY_TOLERANCE × its baseline; grown back otherwise. Max-min fair shares make every cut
// fall on the heaviest accounts first. A request is refused (429) only when its account already has
// ADMISSION_QUEUE_PER_ACCOUNT waiting, never because answers are slow. Pure rules in src/domain/fair-share.ts.
import { DeficitRoundRobin, fairShares, median, nextCapacity } from "../domain/fair-share.ts";
import type { Config } from "../platform/config/index.ts";
import type { AdmissionMetrics, AdmissionState } from "../platform/metrics/index.ts";
import { ApiError } from "./errors.ts";

/** The stream's backlog: messages the qualifiers have still to handle, outbox events not yet fanned out. */
export interface StreamBacklog {
  qualifierLag: number;
  outboxBacklog: number;
}

export type AdmissionSettings = Pick<
  Config,
  | "ADMISSION_MAX_IN_FLIGHT"
  | "ADMISSION_MIN_IN_FLIGHT"
  | "ADMISSION_LATENCY_TOLERANCE"
  | "ADMISSION_QUEUE_PER_ACCOUNT"
  | "ADMISSION_QUALIFIER_LAG_BOUND"
  | "ADMISSION_OUTBOX_BACKLOG_BOUND"
>;

export interface AdmissionDeps {
  settings: AdmissionSettings;
  /** Reads the stream's backlog; the gate calls it at most once a second, and only while requests come. */
  readBacklog?: () => Promise<StreamBacklog>;
  metrics?: AdmissionMetrics;
  /** Real milliseconds (performance.now). */
  now?: () => number;
}

/** Ends an admitted request's turn; `ok` when it was answered as asked (its latency then counts). */
export type Finish = (ok: boolean) => void;

export interface Admission {
  /** Waits for `tenant`'s turn and starts its request; or refuses with 429 when too many of its own wait. */
  enter(tenant: string): Promise<Finish>;
  state(): AdmissionState;
}

/** How often the capacity is looked at again (real ms). */
const TICK_MS = 250;
/** A tenant that asked this recently still counts as contending, and keeps a place in the shares. */
const ACTIVE_MS = 1_000;
/** An interval's median needs this many answers to count. */
const MIN_SAMPLES = 3;
/**
 * The latency baseline: the lowest median of BASELINE_GROUP consecutive answers over BASELINE_MS (real ms).
 * Medians of a fixed count, so a quiet interval's two answers do not make a baseline no load can meet; over
 * half a minute, so it follows the machine (other work on it) rather than its best moment. Each cut drains the
 * pipeline for a moment, which is what keeps the lowest median near the latency without a queue.
 */
const BASELINE_GROUP = 8;
const BASELINE_MS = 30_000;
/** The stream's backlog is read at most this often (real ms). */
const BACKLOG_EVERY_MS = 1_000;

interface Tenant {
  inFlight: number;
  lastAsked: number;
}

interface Waiter {
  since: number;
  start: (finish: Finish) => void;
}

/** The per-account queue: each account's requests in flight and waiting, and its fair share of the capacity. */
function createAccountQueue() {
  const tenants = new Map<string, Tenant>();
  const waiting = new DeficitRoundRobin<Waiter>();
  let shares = new Map<string, number>();

  /** Each tenant that has work or asked lately, with what it asks for (at least one place: its next request). */
  function demands(at: number): Map<string, number> {
    const asked = new Map<string, number>();
    for (const [id, tenant] of tenants) {
      const demand = tenant.inFlight + waiting.sizeOf(id);
      if (demand > 0 || at - tenant.lastAsked < ACTIVE_MS) asked.set(id, Math.max(demand, 1));
      else tenants.delete(id);
    }
    return asked;
  }

  return {
    waiting,
    demands,
    tenant: (id: string) => tenants.get(id)!,
    /** The account's tenant, asking at `at`. */
    asked(id: string, at: number): Tenant {
      let tenant = tenants.get(id);
      if (!tenant) tenants.set(id, (tenant = { inFlight: 0, lastAsked: at }));
      tenant.lastAsked = at;
      return tenant;
    },
    reshare(at: number, capacity: number): void {
      shares = fairShares(demands(at), capacity);
    },
    shareOf: (id: string) => Math.max(1, shares.get(id) ?? 1),
    state(): AdmissionState["accounts"] {
      const accounts = new Map<string, { inFlight: number; waiting: number; share: number }>();
      for (const [id, tenant] of tenants) accounts.set(id, { inFlight: tenant.inFlight, waiting: waiting.sizeOf(id), share: shares.get(id) ?? 0 });
      return accounts;
    },
  };
}

/** The answers' latencies: each interval's median, and the baseline (the lowest median of a group over BASELINE_MS). */
function createLatencies() {
  let samples: number[] = [];
  let group: number[] = [];
  const medians: { at: number; ms: number }[] = [];
  return {
    sample(at: number, latencyMs: number): void {
      samples.push(latencyMs);
      group.push(latencyMs);
      if (group.length < BASELINE_GROUP) return;
      medians.push({ at, ms: median(group)! });
      group = [];
    },
    /** Ends the interval: its median, when it had enough answers, and the baseline at `at`. */
    take(at: number): { latencyMs?: number; baselineMs?: number } {
      const latencyMs = samples.length >= MIN_SAMPLES ? median(samples) : undefined;
      samples = [];
      while (medians.length > 0 && medians[0]!.at < at - BASELINE_MS) medians.shift();
      const baselineMs = medians.length > 0 ? Math.min(...medians.map((m) => m.ms)) : undefined;
      return { latencyMs, baselineMs };
    },
  };
}

/** Reads the stream's backlog in the background, at most every BACKLOG_EVERY_MS, and keeps the last answer. */
function createBacklogReader(readBacklog: AdmissionDeps["readBacklog"]) {
  let backlog: StreamBacklog | undefined;
  let backlogReadAt = -Infinity;
  let reading = false;
  return {
    last: () => backlog,
    readIfDue(at: number): void {
      if (!readBacklog || reading || at - backlogReadAt < BACKLOG_EVERY_MS) return;
      reading = true;
      backlogReadAt = at;
      void readBacklog().then(
        (read) => (backlog = read),
        // Unknown is not backlogged: the stream's own bounds (the embedded log's, Kafka's) still hold.
        () => (backlog = undefined),
      ).finally(() => (reading = false));
    },
  };
}

/** The capacity the gate lets in flight, looked at again every TICK_MS from the answers' latencies and the stream's backlog. */
function createCapacity(settings: AdmissionSettings, readBacklog: AdmissionDeps["readBacklog"], startedAt: number) {
  const bounds = { min: settings.ADMISSION_MIN_IN_FLIGHT, max: settings.ADMISSION_MAX_IN_FLIGHT, tolerance: settings.ADMISSION_LATENCY_TOLERANCE };
  const latencies = createLatencies();
  const backlog = createBacklogReader(readBacklog);
  let capacity = bounds.max;
  let contended = false;
  let lastTick = startedAt;
  return {
    current: () => capacity,
    sample: latencies.sample,
    backlog: backlog.last,
    /** Looks again, when TICK_MS have passed since it last did (then `true`); `contending` says whether accounts contend. */
    tick(at: number, inFlight: number, contending: () => boolean): boolean {
      if (at - lastTick < TICK_MS) return false;
      lastTick = at;
      const { latencyMs, baselineMs } = latencies.take(at);
      const nowContended = contending();
      // Contention begins: halve what is in flight first, so the baseline is measured again below the queue a
      // tenant alone may have built (its latency was nobody else's business until now).
      if (nowContended && !contended) capacity = Math.max(bounds.min, Math.floor(Math.min(capacity, inFlight) / 2));
      contended = nowContended;
      const read = backlog.last();
      const backlogged = read !== undefined && (read.qualifierLag > settings.ADMISSION_QUALIFIER_LAG_BOUND || read.outboxBacklog > settings.ADMISSION_OUTBOX_BACKLOG_BOUND);
      capacity = nextCapacity(capacity, { contended, latencyMs, baselineMs, backlogged, inFlight }, bounds);
      backlog.readIfDue(at);
      return true;
    },
  };
}

export function createAdmission({ settings, readBacklog, metrics, now = () => performance.now() }: AdmissionDeps): Admission {
  const queue = createAccountQueue();
  const capacity = createCapacity(settings, readBacklog, now());
  let inFlight = 0;

  /** Under its share it starts whatever others hold; over it, only into capacity nobody else uses. */
  const mayStart = (id: string) => queue.tenant(id).inFlight < queue.shareOf(id) || inFlight < capacity.current();

  function tick(at: number): void {
    if (capacity.tick(at, inFlight, () => queue.demands(at).size > 1)) metrics?.state(state());
  }

  function begin(id: string): Finish {
    const tenant = queue.tenant(id);
    tenant.inFlight++;
    inFlight++;
    const began = now();
    let finished = false;
    return (ok) => {
      if (finished) return;
      finished = true;
      tenant.inFlight--;
      inFlight--;
      const at = now();
      if (ok) capacity.sample(at, at - began);
      tick(at);
      queue.reshare(at, capacity.current());
      pump(at);
    };
  }

  /** Starts waiting requests in fair turns while their tenants may start. */
  function pump(at: number): void {
    for (;;) {
      const next = queue.waiting.shift(mayStart);
      if (!next) return;
      metrics?.waited((at - next.item.since) / 1000);
      next.item.start(begin(next.tenant));
    }
  }

  function state(): AdmissionState {
    const backlog = capacity.backlog();
    return { capacity: capacity.current(), accounts: queue.state(), ...(backlog ? { backlog } : {}) };
  }

  return {
    async enter(id) {
      const at = now();
      const tenant = queue.asked(id, at);
      tick(at);
      queue.reshare(at, capacity.current());
      // A grown capacity lets waiting requests in first.
      pump(at);
      // A tenant's own requests start in the order they came: behind its waiting ones, if any.
      const waiting = queue.waiting.sizeOf(id);
      if (waiting === 0 && mayStart(id)) {
        metrics?.decided(id, "admitted");
        return begin(id);
      }
      if (waiting >= settings.ADMISSION_QUEUE_PER_ACCOUNT) {
        metrics?.decided(id, "refused");
        throw new ApiError(
          "rate_limit_exceeded",
          `Too many test purchases waiting for this account (${waiting} wait behind its ${tenant.inFlight} in flight, its fair share of a busy service); retry after 1s.`,
          { "Retry-After": "1" },
        );
      }
      metrics?.decided(id, "queued");
      return new Promise<Finish>((start) => queue.waiting.push(id, { since: at, start }));
    },
    state,
  };
}
