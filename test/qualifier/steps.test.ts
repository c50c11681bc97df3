// The qualifier's runner times each named step of every batch: a test purchase through the Visa simulator,
// the bus and the qualifier leaves its batch's time in each step in the step histogram of the registry the
// role was given, and in the debug line the role logs for the batch.
import { expect, it } from "vitest";
import { pino } from "pino";
import { expectStatus, type Harness } from "../support/harness.ts";
import { useQualifierWorld } from "./world.ts";
import { localIn, world } from "../support/offers-world.ts";
import { STEPS } from "../../src/qualifier/index.ts";
import { createMetrics, type Metrics } from "../../src/platform/metrics/index.ts";

let h: Harness;
const qualifier = useQualifierWorld((opened) => (h = opened));

/** Each step's count and sum of seconds, as the registry holds them. */
async function stepHistogram(metrics: Metrics): Promise<Record<string, { count: number; sum: number }>> {
  const metric = metrics.registry.getSingleMetric("cardlink_qualifier_step_seconds");
  const steps: Record<string, { count: number; sum: number }> = {};
  // A histogram's values carry the name of the series each is (…_bucket, …_sum, …_count).
  const values = ((await metric?.get())?.values ?? []) as { labels: Record<string, string | number>; value: number; metricName?: string }[];
  for (const v of values) {
    const step = String(v.labels.step);
    steps[step] ??= { count: 0, sum: 0 };
    if (v.metricName?.endsWith("_count")) steps[step].count = v.value;
    if (v.metricName?.endsWith("_sum")) steps[step].sum = v.value;
  }
  return steps;
}

it("records each batch's time in each step in the step histogram and a debug line", { timeout: 60_000 }, async () => {
  const metrics = createMetrics();
  const lines: { msg?: string; messages?: number; stepsMs?: Record<string, number> }[] = [];
  const log = pino({ level: "debug" }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  await qualifier.start({ ...h.services, log, metrics });
  expect(await stepHistogram(metrics)).toEqual({});

  const w = await world(h);
  const offer = await w.offer({ startDate: localIn(h, -1), type: { name: "amount", value: 5 } });
  await expectStatus(await w.client.post(`/v1/offers/${offer.id}/locations/${w.locationId}`), 201);
  const tx = await expectStatus<{ offer: { qualified: boolean } }>(
    await w.client.post("/v1/transactions/test", { cardId: w.cardId, locationId: w.locationId, amount: 40 }),
    201,
  );
  expect(tx.offer.qualified).toBe(true);

  // Every step of the purchase's batch, in the order the runner runs them; the database's steps took time.
  await expect.poll(async () => Object.keys(await stepHistogram(metrics)).sort(), { timeout: 10_000 }).toEqual([...STEPS].sort());
  const steps = await stepHistogram(metrics);
  for (const step of STEPS) expect(steps[step]!.count, step).toBeGreaterThanOrEqual(1);
  for (const step of ["resolve", "write", "commit"]) expect(steps[step]!.sum, step).toBeGreaterThan(0);

  const batches = lines.filter((l) => l.msg === "qualifier batch");
  expect(batches.length).toBeGreaterThanOrEqual(1);
  expect(Object.keys(batches[0]!.stepsMs!)).toEqual([...STEPS]);
  expect(batches[0]!.messages).toBeGreaterThanOrEqual(1);
});
