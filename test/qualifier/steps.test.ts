// The qualifier's runner times each named step of every batch: a test purchase through the Visa simulator,
// the bus and the qualifier leaves its batch's time in each step in the step histogram of the registry the
// role was given, and in the debug line the role logs for the batch. And what a batch sends the database: a
// purchase's batch is five statements, its write one of them, and a sandbox card's batch reads its clock.
import { expect, it } from "vitest";
import { pino } from "pino";
import { expectStatus, type Client, type Harness } from "../support/harness.ts";
import { useQualifierWorld } from "./world.ts";
import { localIn, world } from "../support/offers-world.ts";
import { CARD_NUMBERS } from "../support/fixtures.ts";
import type { Db } from "../../src/platform/db.ts";
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

/** `db`, with every statement sent through it (or a transaction of it) kept in `sent`. */
function counting(db: Db, sent: string[]): Db {
  return {
    ...db,
    engine: db.engine,
    exec: (text) => db.exec(text),
    close: () => db.close(),
    query: (text, params) => (sent.push(text), db.query(text, params)),
    tx: (fn) => db.tx((tx) => fn(counting(tx, sent))),
  };
}

it("sends a purchase's batch in five statements, its write one of them; a sandbox card's batch reads its clock once", async () => {
  const sent: string[] = [];
  await qualifier.start({ ...h.services, db: counting(h.services.db, sent) });
  /** The statements of the batch of a second purchase at the place (the first one's batch loads the indexes). */
  const batchOf = async (client: Client, cardId: string, locationId: string) => {
    for (let n = 0; n < 2; n++) {
      sent.length = 0;
      await expectStatus(await client.post("/v1/transactions/test", { cardId, locationId, amount: 10 + n }), 201);
    }
    return [...sent];
  };
  const has = (statements: string[], ...texts: string[]) => statements.filter((s) => texts.every((t) => s.includes(t)));

  const w = await world(h);
  const own = await batchOf(w.client, w.cardId, w.locationId);
  // The recorded messages with the index versions, the cards, the transactions the batch names, the MIDs; the write.
  expect(own).toHaveLength(5);
  expect(has(own, "offer_index_version", "transaction_messages")).toHaveLength(1);
  expect(has(own, "insert into transactions", "insert into outbox_events", "insert into transaction_messages")).toHaveLength(1);
  expect(has(own, "clock_offset_ms")).toHaveLength(0);

  const sandbox = await expectStatus<{ keys: { test: string } }>(await w.client.post("/v1/sandboxes", { name: "steps" }), 201);
  const client = h.clientWithKey(sandbox.keys.test);
  const programId = (await expectStatus<{ id: string }>(await client.post("/v1/programs", { name: "Steps" }), 201)).id;
  const brandId = (await expectStatus<{ id: string }>(await client.post("/v1/brands", { name: "Steps Coffee" }), 201)).id;
  const place = { brandId, address: "1 High Street", city: "London", postcode: "SW1A 1AA", countryCode: "GBR" };
  const locationId = (await expectStatus<{ id: string }>(await client.post(`/v1/programs/${programId}/locations`, place), 201)).id;
  const card = { number: CARD_NUMBERS.test, expMonth: 12, expYear: 2030, countryCode: "GBR", termsOfUse: true };
  const cardId = (await expectStatus<{ id: string }>(await client.post(`/v1/programs/${programId}/cards`, card), 201)).id;
  const inSandbox = await batchOf(client, cardId, locationId);
  expect(inSandbox).toHaveLength(6);
  expect(has(inSandbox, "clock_offset_ms")).toHaveLength(1);
});
