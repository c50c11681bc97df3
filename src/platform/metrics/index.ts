// A process's Prometheus metrics (prom-client): one registry per process, made by the composition root and
// passed down in the services, served at /metrics on the health port (and the API's port). The timings
// of a purchase's hops — API -> command published, simulator, qualifier, dispatcher — are one histogram
// (cardlink_hop_duration_seconds) so that operators and the bench read them side by side.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { BusMessage, CommittedBatch, ConsumerObserver } from "../bus/bus.ts";
import { commandTopic, transactionTopic } from "../bus/topics.ts";
import { SCHEMES } from "../../domain/scheme.ts";

/**
 * The hops of a purchase, in order:
 * - `api`: a test-transaction request received -> its command published on the bus;
 * - `simulator`: the command published -> the simulator's batch with it committed (its native messages published);
 * - `qualifier`: the native message published -> the qualifier's batch with it committed (transaction and outbox written);
 * - `dispatcher`: the outbox event created -> its webhook delivered (a 2xx).
 */
export const HOPS = ["api", "simulator", "qualifier", "dispatcher"] as const;
export type Hop = (typeof HOPS)[number];

/**
 * What became of one delivery attempt: `delivered` (a 2xx), `retried` (no 2xx; another attempt is scheduled),
 * `failed` (no 2xx on the last scheduled attempt: the delivery is given up), `cancelled` (cut short by the
 * dispatcher stopping; due again at once).
 */
export type DeliveryOutcome = "delivered" | "retried" | "failed" | "cancelled";

/**
 * The webhook dispatcher's phases, each timed on its own: `fan_out` (one batch of outbox events turned into
 * deliveries), `claim` (one claim of due deliveries), `prepare` (one delivery signed and its headers made),
 * `call` (one HTTP attempt, to its answer or its failure), `record` (one batch of attempts written).
 */
export const DISPATCH_PHASES = ["fan_out", "claim", "prepare", "call", "record"] as const;
export type DispatchPhase = (typeof DISPATCH_PHASES)[number];

/**
 * Why the request log's writer dropped records: `overflow` (its buffer was full: PostgreSQL slower than the
 * requests, or away), `refused` (PostgreSQL refused the record itself), `stopped` (still unwritten when the
 * process stopped with PostgreSQL away).
 */
export const REQUEST_LOG_DROPS = ["overflow", "refused", "stopped"] as const;
export type RequestLogDrop = (typeof REQUEST_LOG_DROPS)[number];

/** What the request log's writer reports (src/services/request-log/writer.ts). */
export interface RequestLogObserver {
  written(count: number): void;
  dropped(reason: RequestLogDrop, count: number): void;
  /** Records waiting in its buffer now. */
  buffered(count: number): void;
}

/** What the front door's admission did with one request: started at once, started after waiting its turn, or refused (429). */
export type AdmissionOutcome = "admitted" | "queued" | "refused";

/** The admission gate's state as of one look (src/api/admission.ts). */
export interface AdmissionState {
  /** Work the gate lets in flight now, every account together. */
  capacity: number;
  /** Per account: in flight, waiting, and its fair share of `capacity`. */
  accounts: ReadonlyMap<string, { inFlight: number; waiting: number; share: number }>;
  /** The stream's backlog as last read, when it was. */
  backlog?: { qualifierLag: number; outboxBacklog: number };
}

/** The front door's admission, per account under a bounded set of labels. */
export interface AdmissionMetrics {
  decided(account: string, outcome: AdmissionOutcome): void;
  /** Seconds a request waited for its turn before it started. */
  waited(seconds: number): void;
  state(state: AdmissionState): void;
}

export interface Metrics {
  readonly registry: Registry;
  /** The request log's writer reports its rounds, its drops and its buffer here. */
  readonly requestLog: RequestLogObserver;
  /** The bus's consumer runners report every committed batch here (batch sizes, lag, message latency, hops). */
  readonly consumers: ConsumerObserver;
  hop(hop: Hop, seconds: number): void;
  /** One answered HTTP request: its route template (`/v1/cards/:cardId`), or `unmatched`. */
  request(method: string, route: string, status: number, seconds: number): void;
  /** One delivery attempt; `sinceEventSeconds` (event created -> now, real seconds) when it was delivered and known. */
  delivery(outcome: DeliveryOutcome, sinceEventSeconds?: number): void;
  /** One run of a webhook dispatcher's phase and how long it took. */
  dispatchPhase(phase: DispatchPhase, seconds: number): void;
  /** One qualifier batch's time in one of its steps (parse, resolve, dedupe, decide, write, commit). */
  qualifierStep(step: string, seconds: number): void;
  /** One statement sent to the process's database (src/platform/db.ts countStatements). */
  statement(): void;
  admission: AdmissionMetrics;
  /** The Prometheus text exposition of every metric. */
  expose(): Promise<{ contentType: string; body: string }>;
}

/** Seconds: 1 ms to a minute, finer below a second where the targets are. */
const LATENCY_BUCKETS = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60];
/** Seconds: a phase such as signing takes microseconds, a call up to the response timeout. */
const PHASE_BUCKETS = [0.00005, 0.0001, 0.0002, 0.0005, ...LATENCY_BUCKETS];
const BATCH_BUCKETS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000];
/** Seconds: 10 µs to 10 s, for steps of a batch that take from microseconds (in memory) to a database's seconds. */
const STEP_BUCKETS = [0.00001, 0.0001, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10];

/**
 * The hop a consumed message ends: a native transaction at the qualifier; a command on its scheme's topic
 * (`simulator.commands.<scheme>`) at that scheme's simulator (group `simulator-<scheme>`).
 */
function hopOfMessage(): (groupId: string, topic: string, message: BusMessage) => Hop | undefined {
  const transactions = new Set<string>(SCHEMES.map(transactionTopic));
  const commands = new Map<string, string>(SCHEMES.map((scheme) => [commandTopic(scheme), `simulator-${scheme}`]));
  return (groupId, topic) => {
    if (transactions.has(topic)) return "qualifier";
    if (commands.get(topic) === groupId) return "simulator";
    return undefined;
  };
}

/**
 * An account's label in per-account metrics: its id for the first `limit` accounts this process names, `other`
 * for the rest, so the series stay bounded however many accounts a deployment serves.
 */
export function boundedAccountLabels(limit: number): (account: string) => string {
  const named = new Set<string>();
  return (account) => {
    if (named.has(account)) return account;
    if (named.size < limit) return named.add(account), account;
    return "other";
  };
}

/** Makes a histogram in the process's registry. */
type HistogramMaker = <L extends string>(name: string, help: string, labelNames: L[], buckets: number[]) => Histogram<L>;

/**
 * A fresh registry with every Cardlink metric. `process` adds Node's own (CPU, resident memory, event-loop
 * lag, GC) under `cardlink_process_…`/`cardlink_nodejs_…`: for a process's registry, not for tests that make many.
 * `accountLabels` (METRICS_ACCOUNT_LABELS) bounds the accounts named in per-account metrics.
 */
export function createMetrics({ process: withProcess = false, accountLabels = 20 }: { process?: boolean; accountLabels?: number } = {}): Metrics {
  const registry = new Registry();
  if (withProcess) collectDefaultMetrics({ register: registry, prefix: "cardlink_" });
  const registers = [registry];
  const histogram: HistogramMaker = (name, help, labelNames, buckets) => new Histogram({ name, help, labelNames, buckets, registers });

  // Made in this order, so /metrics lists them in it.
  const hops = histogram("cardlink_hop_duration_seconds", "Time a purchase spends on each hop: api (request -> command published), simulator (command published -> native message published and committed), qualifier (native message published -> batch committed), dispatcher (outbox event created -> webhook delivered).", ["hop"], LATENCY_BUCKETS);
  const http = httpMetrics(registers, histogram);
  const consumers = streamMetrics(registers, histogram, hops);
  const dispatcher = dispatcherMetrics(registers, histogram, hops);
  const qualifierSteps = histogram("cardlink_qualifier_step_seconds", "Time one qualifier batch spent in each step: parse (normalise), resolve (the facts its decisions need), dedupe, decide, write (the set-based statements), commit.", ["step"], STEP_BUCKETS);
  const requestLog = requestLogMetrics(registers);
  const admission = admissionMetrics(registers, histogram, boundedAccountLabels(accountLabels));
  const statements = new Counter({
    name: "cardlink_db_statements_total",
    help: "Statements this process sent to its database, a transaction's begin and commit among them; over the purchases made, the statements a purchase costs.",
    registers,
  });

  return {
    registry,
    consumers,
    requestLog,
    hop: (hop, seconds) => hops.observe({ hop }, seconds),
    ...http,
    ...dispatcher,
    qualifierStep: (step, seconds) => qualifierSteps.observe({ step }, seconds),
    statement: () => statements.inc(),
    admission,
    expose: async () => ({ contentType: registry.contentType, body: await registry.metrics() }),
  };
}

/** The HTTP requests answered, by method, route template and status. */
function httpMetrics(registers: Registry[], histogram: HistogramMaker): Pick<Metrics, "request"> {
  const requests = new Counter({
    name: "cardlink_http_requests_total",
    help: "HTTP requests answered, by method, route template and status.",
    labelNames: ["method", "route", "status"],
    registers,
  });
  const requestDuration = histogram("cardlink_http_request_duration_seconds", "Time from an HTTP request's arrival to its answer, by method, route template and status.", ["method", "route", "status"], LATENCY_BUCKETS);
  return {
    request(method, route, status, seconds) {
      const labels = { method, route, status: String(status) };
      requests.inc(labels);
      requestDuration.observe(labels, seconds);
    },
  };
}

/** The bus's consumers: batch sizes, lag and message latency per group, and the hops their commits end. */
function streamMetrics(registers: Registry[], histogram: HistogramMaker, hops: Histogram<"hop">): ConsumerObserver {
  const batchSize = histogram("cardlink_bus_batch_size", "Messages per batch a consumer group handled and committed, by group and topic.", ["group", "topic"], BATCH_BUCKETS);
  const handlerBatchSize = histogram("cardlink_bus_handler_batch_size", "Messages a consumer group's handler was handed at once: one partition's batch, or several partitions' merged into one round.", ["group"], BATCH_BUCKETS);
  const batchDuration = histogram("cardlink_bus_batch_duration_seconds", "Time from a batch's receipt to its offset commit, by consumer group and topic.", ["group", "topic"], LATENCY_BUCKETS);
  const messageLatency = histogram("cardlink_bus_message_latency_seconds", "Time from a message's publication to the commit of the batch that handled it, by consumer group and topic.", ["group", "topic"], LATENCY_BUCKETS);
  const lag = new Gauge({
    name: "cardlink_bus_consumer_lag",
    help: "Messages a consumer group has still to handle on a partition, as of its last committed batch there.",
    labelNames: ["group", "topic", "partition"],
    registers,
  });
  const hopOf = hopOfMessage();
  return {
    handing(groupId, size) {
      handlerBatchSize.observe({ group: groupId }, size);
    },
    committed({ groupId, topic, partition, messages, handledMs, lag: behind }: CommittedBatch) {
      const labels = { group: groupId, topic };
      batchSize.observe(labels, messages.length);
      batchDuration.observe(labels, handledMs / 1000);
      lag.set({ ...labels, partition: String(partition) }, behind);
      const latency = messageLatency.labels(labels);
      // Real time, as the publishers stamped it (Kafka's CreateTime, the embedded log's own): not the service clock.
      // eslint-disable-next-line no-restricted-syntax
      const now = Date.now();
      for (const message of messages) {
        if (message.timestamp === undefined) continue;
        const seconds = Math.max(0, now - message.timestamp) / 1000;
        latency.observe(seconds);
        const hop = hopOf(groupId, topic, message);
        if (hop) hops.observe({ hop }, seconds);
      }
    },
  };
}

/** The webhook dispatcher: its attempts by outcome (a delivery ends the dispatcher's hop) and its phases' times. */
function dispatcherMetrics(registers: Registry[], histogram: HistogramMaker, hops: Histogram<"hop">): Pick<Metrics, "delivery" | "dispatchPhase"> {
  const deliveries = new Counter({
    name: "cardlink_webhook_deliveries_total",
    help: "Webhook delivery attempts by outcome: delivered (2xx), retried (another attempt scheduled), failed (the last attempt; given up), cancelled (cut short by a stop).",
    labelNames: ["outcome"],
    registers,
  });
  const phases = histogram("cardlink_webhook_dispatch_phase_duration_seconds", "Time each run of a webhook dispatcher's phase takes: fan_out (a batch of outbox events to deliveries), claim (a claim of due deliveries), prepare (a delivery signed), call (an HTTP attempt), record (a batch of attempts written).", ["phase"], PHASE_BUCKETS);
  // One child per phase, bound once: `prepare` and `call` are observed for every attempt.
  const phaseOf = new Map(DISPATCH_PHASES.map((phase) => [phase, phases.labels({ phase })]));
  return {
    delivery(outcome, sinceEventSeconds) {
      deliveries.inc({ outcome });
      if (sinceEventSeconds !== undefined) hops.observe({ hop: "dispatcher" }, Math.max(0, sinceEventSeconds));
    },
    dispatchPhase: (phase, seconds) => phaseOf.get(phase)!.observe(seconds),
  };
}

/** The request log's writer: records written, dropped by reason, and waiting in its buffer. */
function requestLogMetrics(registers: Registry[]): RequestLogObserver {
  const requestLogWritten = new Counter({
    name: "cardlink_request_log_written_total",
    help: "Request log records written (each /v1 request a key made, written in batches off the request path).",
    registers,
  });
  const requestLogDropped = new Counter({
    name: "cardlink_request_log_dropped_total",
    help: "Request log records dropped, by reason: overflow (the writer's buffer was full), refused (PostgreSQL refused the record), stopped (unwritten at stop with PostgreSQL away).",
    labelNames: ["reason"],
    registers,
  });
  for (const reason of REQUEST_LOG_DROPS) requestLogDropped.inc({ reason }, 0);
  const requestLogBuffered = new Gauge({
    name: "cardlink_request_log_buffered",
    help: "Request log records waiting in the writer's buffer (REQUEST_LOG_BUFFER at most).",
    registers,
  });
  return {
    written: (count) => requestLogWritten.inc(count),
    dropped: (reason, count) => requestLogDropped.inc({ reason }, count),
    buffered: (count) => requestLogBuffered.set(count),
  };
}

/** The front door's admission: decisions and waits, and each account's figures as of the gate's last look. */
function admissionMetrics(registers: Registry[], histogram: HistogramMaker, labelOf: (account: string) => string): AdmissionMetrics {
  const decisions = new Counter({
    name: "cardlink_admission_requests_total",
    help: "Test purchases (and their clear, void, refund) by account and what admission did: admitted at once, queued (started after waiting their turn), refused (429).",
    labelNames: ["account", "outcome"],
    registers,
  });
  const waits = histogram("cardlink_admission_wait_seconds", "Time a queued test purchase waited for its turn.", [], LATENCY_BUCKETS);
  const perAccount = (name: string, help: string) => new Gauge({ name, help, labelNames: ["account"], registers });
  const inFlight = perAccount("cardlink_admission_in_flight", "Test purchases of the account in flight in this api process.");
  const waiting = perAccount("cardlink_admission_waiting", "Test purchases of the account waiting for their turn in this api process.");
  const share = perAccount("cardlink_admission_share", "The account's fair share of the in-flight capacity (what it may have in flight while others wait).");
  const capacity = new Gauge({ name: "cardlink_admission_capacity", help: "Test purchases this api process lets in flight, every account together: cut while the stream is backlogged or contending accounts' latency grows.", registers });
  const backlog = new Gauge({ name: "cardlink_admission_stream_backlog", help: "The stream's backlog as the front door last read it: qualifier_lag (messages), outbox (events not yet fanned out).", labelNames: ["measure"], registers });
  return {
    decided: (account, outcome) => decisions.inc({ account: labelOf(account), outcome }),
    waited: (seconds) => waits.observe(seconds),
    state(state) {
      capacity.set(state.capacity);
      // Accounts gone idle drop their series; the labels stay bounded by labelOf.
      for (const gauge of [inFlight, waiting, share]) gauge.reset();
      for (const [account, figures] of state.accounts) {
        const label = labelOf(account);
        inFlight.inc({ account: label }, figures.inFlight);
        waiting.inc({ account: label }, figures.waiting);
        share.inc({ account: label }, figures.share);
      }
      if (state.backlog) {
        backlog.set({ measure: "qualifier_lag" }, state.backlog.qualifierLag);
        backlog.set({ measure: "outbox" }, state.backlog.outboxBacklog);
      }
    },
  };
}

/** One hop's figures as read from its histogram's buckets (quantiles are the upper bound of their bucket). */
export interface HopFigures {
  count: number;
  meanMs: number;
  p50Ms: number;
  p99Ms: number;
}

/**
 * Each hop's figures from one or more /metrics texts (several processes' are summed): what the bench prints
 * beside its own end-to-end timings. A hop nothing observed is absent.
 */
export function hopFigures(...texts: string[]): Partial<Record<Hop, HopFigures>> {
  const buckets = new Map<Hop, Map<number, number>>();
  const sums = new Map<Hop, number>();
  const counts = new Map<Hop, number>();
  const line = /^cardlink_hop_duration_seconds_(bucket|sum|count)\{([^}]*)\} (\S+)$/;
  for (const text of texts) {
    for (const row of text.split("\n")) {
      const m = line.exec(row);
      if (!m) continue;
      const labels = Object.fromEntries([...m[2]!.matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]));
      const hop = labels.hop as Hop;
      const value = Number(m[3]);
      if (m[1] === "sum") sums.set(hop, (sums.get(hop) ?? 0) + value);
      else if (m[1] === "count") counts.set(hop, (counts.get(hop) ?? 0) + value);
      else {
        const le = labels.le === "+Inf" ? Infinity : Number(labels.le);
        const byLe = buckets.get(hop) ?? new Map<number, number>();
        byLe.set(le, (byLe.get(le) ?? 0) + value);
        buckets.set(hop, byLe);
      }
    }
  }
  const figures: Partial<Record<Hop, HopFigures>> = {};
  for (const [hop, count] of counts) {
    if (count === 0) continue;
    const cumulative = [...(buckets.get(hop) ?? new Map<number, number>())].sort((a, b) => a[0] - b[0]);
    const quantile = (q: number) => (cumulative.find(([, n]) => n >= q * count)?.[0] ?? Infinity) * 1000;
    figures[hop] = { count, meanMs: ((sums.get(hop) ?? 0) / count) * 1000, p50Ms: quantile(0.5), p99Ms: quantile(0.99) };
  }
  return figures;
}
