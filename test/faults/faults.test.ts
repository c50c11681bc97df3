// The fault suite: Cardlink in its distributed mode (api, two qualifier replicas in one consumer group,
// dispatcher, workers, the Visa simulator — each its own process) on a PRIVATE PostgreSQL cluster and
// Kafka broker run by scripts/stack (never the shared ones), test purchases at 30 a second, and one fault
// per scenario, mid-stream: PostgreSQL restarted, the broker restarted, a qualifier replica killed with
// SIGKILL, the dispatcher killed with SIGKILL. Each asserts: nothing lost, recorded twice or rewarded
// twice; every role alive without a restart (the killed one is started again, as an orchestrator would);
// no answer but 201, 202 and 503; none slower than 10 s; nothing made by a request that failed; every
// accepted purchase's webhook delivered within 20 s of the fault's end. The figures are printed
// (docs/operations.md, "Operating: health and faults").
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { haveInfra } from "../support/infra.ts";
import { canRunFaultStack, startFaultStack, type FaultStack } from "./fault-stack.ts";
import { LOGS, caughtUp, outcome, setUpWorld, sleep, startPipeline, stream, type Pipeline } from "./pipeline.ts";

const RATE = 30;
const DOWN_MS = 10_000;
const BEFORE_MS = 5_000;
const AFTER_MS = 10_000;
const CATCH_UP_MS = 20_000;

describe.skipIf(!haveInfra("kafkaBrokers") || !canRunFaultStack)("faults mid-stream (private PostgreSQL and Kafka, roles as processes)", () => {
  let stack: FaultStack;
  let p: Pipeline;

  beforeAll(async () => {
    stack = startFaultStack();
    p = await startPipeline(stack);
  }, 240_000);

  afterAll(async () => {
    await p?.close();
    stack?.remove();
  }, 120_000);

  const ready = (url: string) => fetch(url, { signal: AbortSignal.timeout(3_000) }).then((r) => r.status === 200, () => false);

  /**
   * Streams for BEFORE_MS, injects the fault, streams AFTER_MS more, then checks the outcome and that
   * everything accepted was delivered within CATCH_UP_MS of the fault's end (when `inject` returned).
   */
  async function scenario(name: string, inject: (pipeline: Pipeline) => Promise<void>, during?: (at: () => number) => Promise<() => void>) {
    const world = await setUpWorld(p, `Faults: ${name}`);
    const s = stream(p, world, RATE);
    const at = () => performance.now() - s.t0;
    const stopWatching = await during?.(at);
    await sleep(BEFORE_MS);
    const faultAt = at();
    await inject(p);
    const faultEndAt = at();
    // Caught up: what was sent up to the fault's end answered and, when accepted, delivered.
    const backlog = caughtUp(p, s, 60_000, s.sent());
    await sleep(AFTER_MS);
    await s.end();
    const streamEndAt = at();
    const caughtUpAt = await backlog;
    const allDeliveredAt = await caughtUp(p, s, 60_000);
    stopWatching?.();
    const o = await outcome(p, world, s);
    const figures = {
      purchases: o.purchases,
      statuses: o.statuses,
      slowestMs: o.slowestMs,
      faultMs: Math.round(faultEndAt - faultAt),
      // From the fault's end until purchases are answered 201 again (sent from then on).
      answered201AgainAfterMs: Math.round(Math.min(...s.answers.filter((a) => a.status === 201 && a.at >= faultEndAt).map((a) => a.at)) - faultEndAt),
      caughtUpAfterFaultEndMs: caughtUpAt === undefined ? null : Math.round(caughtUpAt - faultEndAt),
      allDeliveredAfterStreamEndMs: allDeliveredAt === undefined ? null : Math.round(allDeliveredAt - streamEndAt),
      // The slowest answers: status, how long, and when sent relative to the fault's start.
      slowest: [...s.answers].sort((a, b) => b.ms - a.ms).slice(0, 3).map((a) => ({ status: a.status, ms: Math.round(a.ms), sentAfterFaultMs: Math.round(a.at - faultAt) })),
    };
    process.stdout.write(`fault ${name} figures: ${JSON.stringify(figures)} (role logs: ${LOGS})\n`);

    expect(o.deadRoles, "every role alive").toEqual([]);
    expect(o.wrongAnswers, "only 201, 202 and 503 (no 500, no dropped connection)").toEqual([]);
    expect(o.slowestMs, "no answer over 10 s").toBeLessThanOrEqual(10_000);
    expect(o.recordedNotAccepted, "nothing made by a request that failed").toEqual([]);
    expect(o.acceptedNotRecorded, "nothing accepted lost").toEqual([]);
    expect(o.recordedTwice, "no purchase recorded twice").toBe(0);
    expect(o.acceptedWithoutWebhook, "every accepted purchase's webhook").toEqual([]);
    expect(o.rewardedTwice, "no purchase's webhook under two event ids").toEqual([]);
    expect(figures.caughtUpAfterFaultEndMs, "caught up within 20 s of the fault's end").not.toBeNull();
    expect(figures.caughtUpAfterFaultEndMs!).toBeLessThanOrEqual(CATCH_UP_MS);
    return { figures, outcome: o };
  }

  it("PostgreSQL restart: only 503s while it is down, readiness says so, workers log it once each way", { timeout: 180_000 }, async () => {
    const readiness: { at: number; api: boolean; workers: boolean }[] = [];
    let downAt = 0;
    let upAt = 0;
    const { outcome: o } = await scenario(
      "postgres-restart",
      async () => {
        downAt = performance.now();
        stack.stop("postgres");
        await sleep(DOWN_MS);
        stack.start("postgres");
        upAt = performance.now();
      },
      async () => {
        let polling = true;
        void (async () => {
          while (polling) {
            const [api, workers] = await Promise.all([ready(`${p.api}/health/ready`), ready(`http://127.0.0.1:${p.healthPort("workers")}/health/ready`)]);
            readiness.push({ at: performance.now(), api, workers });
            await sleep(250);
          }
        })();
        return () => void (polling = false);
      },
    );
    expect(o.statuses[503] ?? 0, "the outage was seen by requests").toBeGreaterThan(0);
    expect(readiness.some((r) => r.at > downAt && r.at < upAt && !r.api && !r.workers), "readiness said 503 during the outage").toBe(true);
    const workers = p.roles.get("workers")!.output.join("");
    expect(workers.match(/"msg":"postgres unavailable/g)?.length, workers).toBe(1);
    expect(workers.match(/"msg":"postgres is back"/g)?.length, workers).toBe(1);
  });

  it("broker restart: purchases accepted while Kafka is down, the consumers ride it out without a crash-and-rejoin", { timeout: 180_000 }, async () => {
    const crashes = () => [...p.roles.values()].map((r) => r.output.join("").match(/"msg":"Crash: /g)?.length ?? 0).reduce((a, b) => a + b, 0);
    const before = crashes();
    await scenario("kafka-restart", async () => {
      stack.stop("kafka");
      await sleep(DOWN_MS);
      stack.start("kafka");
    });
    expect(crashes() - before, "no consumer crashed").toBe(0);
  });

  it("kill -9 of a qualifier replica: the other takes its partitions", { timeout: 180_000 }, async () => {
    await scenario("qualifier-kill", async (pipeline) => {
      pipeline.kill("qualifier-1");
      await sleep(DOWN_MS);
      await pipeline.restart("qualifier-1");
    });
  });

  it("kill -9 of the dispatcher mid-delivery: its claims expire and a new one delivers them", { timeout: 180_000 }, async () => {
    await scenario("dispatcher-kill", async (pipeline) => {
      pipeline.kill("dispatcher");
      await sleep(DOWN_MS);
      await pipeline.restart("dispatcher");
    });
  });
});
