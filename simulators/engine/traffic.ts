// The traffic a network generates when a run asks for it: started and stopped as the run in its store
// changes, its purchases made tick by tick (paced in real time) as batches, its progress reported back.
import { PurchaseStream } from "./generator.ts";
import { purchasesOfRun } from "./store.ts";
import { loadPools } from "./population.ts";
import { SERVICE_ENVIRONMENT } from "./environments.ts";
import { latestRun, mixOf, plannedPurchases, type TrafficRun } from "./settings.ts";
import { Batch, commit, reportProgress, type Network } from "./batch.ts";
import { authorize } from "./purchases.ts";

/** How often a traffic run generates its next purchases. */
const TRAFFIC_TICK_MS = 100;
/** The most purchases one tick makes (a tick that fell behind catches up by this much at a time). */
const MAX_PER_TICK = 1000;
/** How often (real time) a generating network reports a run's progress to the service. */
const REPORT_MS = 1000;

/** A traffic run this network is generating. */
interface Traffic {
  run: TrafficRun;
  stream: PurchaseStream;
  timer: NodeJS.Timeout;
  busy: boolean;
  /** Real time the run started here: traffic is paced in purchases per real second. */
  startedMs: number;
  /** Purchases made before (a run resumed after a restart). */
  from: number;
  planned: number | null;
  /** Real time of the last progress report. */
  reportedMs: number;
}

/** What a network holds of its traffic. */
export interface TrafficState {
  traffic: Traffic | undefined;
  /** The run this network made all its planned purchases of: not started again (until restarted and found done). */
  finished: string | undefined;
  /** The traffic tick in progress, which stop() lets finish. */
  tick: Promise<void>;
}

export const noTraffic = (): TrafficState => ({ traffic: undefined, finished: undefined, tick: Promise.resolve() });

/** Starts the run the store says this network should generate, or stops the one it should not any more. */
export async function syncTraffic(net: Network, s: TrafficState): Promise<void> {
  const run = await latestRun(net.deps.db);
  const wanted = run && run.state === "running" && run.options.schemes.includes(net.scheme) ? run : undefined;
  if (s.traffic && s.traffic.run.id !== wanted?.id) stopTraffic(net, s);
  if (!wanted || s.traffic || net.stopped || s.finished === wanted.id) return;
  const options = wanted.options;
  const planned = plannedPurchases(options);
  const from = await purchasesOfRun(net.deps.db, net.scheme, wanted.id);
  if (planned !== null && from >= planned) {
    // Made all its purchases here before (this process, or one before a restart): nothing to start. Its
    // totals are reported once more, which also ends a run too short to make any purchase at all.
    s.finished = wanted.id;
    net.unreported.add(wanted.id);
    await reportProgress(net);
    return;
  }
  const pools = await loadPools(net.deps.db, net.scheme, options.programId);
  const stream = new PurchaseStream(net.adapter, options.seed, pools, mixOf(options), wanted.id);
  stream.seek(from);
  const traffic: Traffic = {
    run: wanted,
    stream,
    busy: false,
    startedMs: performance.now(),
    from,
    planned,
    reportedMs: performance.now(),
    timer: setInterval(() => {
      if (!traffic.busy) s.tick = trafficTick(net, s, traffic);
    }, TRAFFIC_TICK_MS),
  };
  s.traffic = traffic;
  net.log.info({ run: wanted.id, from }, "traffic started");
}

export function stopTraffic(net: Network, s: TrafficState): void {
  if (!s.traffic) return;
  clearInterval(s.traffic.timer);
  net.log.info({ run: s.traffic.run.id, purchases: s.traffic.stream.position }, "traffic stopped");
  s.traffic = undefined;
}

/**
 * Makes the purchases that fell due since the last tick (paced in real time) as one batch: their
 * messages handed to the bus together, their records written in one transaction. Progress goes to the
 * service at most once a second, and at the run's end.
 */
async function trafficTick(net: Network, s: TrafficState, t: Traffic): Promise<void> {
  t.busy = true;
  try {
    const rate = t.run.options.rate / t.run.options.schemes.length;
    const due = t.from + Math.floor(((performance.now() - t.startedMs) / 1000) * rate);
    const target = Math.min(due, t.planned ?? Infinity, t.stream.position + MAX_PER_TICK);
    const b = new Batch();
    const before = t.stream.position;
    while (t.stream.position < target && s.traffic === t) {
      const now = net.deps.clock.now();
      const { purchase, plan } = t.stream.next(now);
      authorize(net, b, purchase, plan, t.run.id, SERVICE_ENVIRONMENT, now);
    }
    try {
      await commit(net, b);
    } catch (err) {
      // Made again, under the same ids, at the next tick: a run skips none of its purchases.
      t.stream.seek(before);
      throw err;
    }
    const complete = t.planned !== null && t.stream.position >= t.planned;
    if (complete || performance.now() - t.reportedMs >= REPORT_MS) {
      t.reportedMs = performance.now();
      await reportProgress(net);
    }
    if (complete && s.traffic === t) {
      clearInterval(t.timer);
      s.traffic = undefined;
      s.finished = t.run.id;
      const seconds = (performance.now() - t.startedMs) / 1000;
      net.log.info({ run: t.run.id, purchases: t.stream.position, perSecond: Math.round((t.stream.position - t.from) / seconds) }, "traffic run complete");
    }
  } catch (err) {
    net.log.error({ err }, "traffic tick failed");
  } finally {
    t.busy = false;
  }
}
