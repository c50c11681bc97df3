// `npm run bench -- pipeline`: the stream pipeline side by side, in one run, on the same generated Visa
// auths — (a) the bus alone end to end, (b) the qualifier end to end to committed rows and outbox events,
// (c) their ratio, (d) publish→commit latency at a fixed offered rate, (e) the webhook dispatcher's
// deliveries/s to a local receiver, (f) decide() per second on one core, (g) peak RSS; beside (b), the share
// of the qualifier's time in each of its steps (its runner's timings, cardlink_qualifier_step_seconds). PGlite and the
// embedded log by default; PostgreSQL with DATABASE_URL and Kafka with KAFKA_BROKERS (then (a) is plain
// kafkajs: send in batches of 1,000 with acks=all and an eachBatch consumer committing per batch).
// Sizes (environment): PIPELINE_COUNT 100,000 messages, PIPELINE_CARDS 10,000, PIPELINE_LOCATIONS 1,000,
// PIPELINE_RATE 2,000/s for PIPELINE_RATE_SECONDS 10; two live offers per location, one of them an
// activation offer that every tenth card activated.
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Kafka, logLevel } from "kafkajs";
import { loadConfig } from "../src/platform/config/index.ts";
import { openSystem } from "../src/app/system.ts";
import { createApp } from "../src/api/app.ts";
import type { Bus } from "../src/platform/bus/bus.ts";
import type { Db } from "../src/platform/db.ts";
import { createEmbeddedLog } from "../src/platform/bus/embedded-log.ts";
import { createKafkaBus } from "../src/platform/bus/kafka.ts";
import { singleObjectCodec } from "../src/platform/bus/single-object-codec.ts";
import { loadSchema } from "../src/platform/bus/avro.ts";
import { topicSpecs } from "../src/platform/bus/topics.ts";
import { qualifierLag, startQualifier, STEPS, type StepName } from "../src/qualifier/index.ts";
import { createOfferIndex } from "../src/qualifier/offer-index.ts";
import { indexVersions } from "../src/services/transactions/index-versions.ts";
import { createDispatcher } from "../src/dispatcher/dispatcher.ts";
import { decide } from "../src/domain/qualification.ts";
import { transactionIdFor } from "../src/domain/transaction-id.ts";
import { onboarded, visaAuth } from "./visa-world.ts";
import { ownDatabase } from "./support/own-database.ts";
import { startChildReceiver } from "./support/child-receiver.ts";
import { runBounded } from "./support/heap.ts";

const COUNT = Number(process.env.PIPELINE_COUNT ?? 100_000);
const CARDS = Number(process.env.PIPELINE_CARDS ?? 10_000);
const LOCATIONS = Number(process.env.PIPELINE_LOCATIONS ?? 1_000);
const RATE = Number(process.env.PIPELINE_RATE ?? 2_000);
const RATE_SECONDS = Number(process.env.PIPELINE_RATE_SECONDS ?? 10);
const DELIVERIES = Number(process.env.PIPELINE_DELIVERIES ?? 5_000);
const ADMIN = "adm_bench_token_0123456789abcdef";
const TOPIC = "visa.transactions";
/** Purchase ids differ from every earlier run's, whose messages a PostgreSQL database may still hold. */
const RUN_ID = randomUUID().slice(0, 8);

// The qualifier (with the dispatcher and the publishers beside it) runs under the heap bound of the process
// that runs it as a service: a role's on PostgreSQL, `npm start`'s on PGlite (bench/support/heap.ts).
const relaunched = runBounded(process.env.DATABASE_URL ? "role" : "start");
if (relaunched !== undefined) process.exit(await relaunched);

// Peak RSS, sampled through the whole run.
let peakRss = 0;
/** The process's memory when its RSS peaked, and in which part of the run. */
let atPeak: NodeJS.MemoryUsage & { part: string } = { ...process.memoryUsage(), part: "start" };
let part = "set-up";
const sampleRss = () => {
  const now = process.memoryUsage();
  if (now.rss > peakRss) {
    peakRss = now.rss;
    atPeak = { ...now, part };
  }
};
const sampler = setInterval(sampleRss, 50);
const mib = (bytes: number) => Math.round(bytes / 2 ** 20);
const rate = (n: number, ms: number) => Math.round((n / ms) * 1000);
const log = (line: string) => process.stdout.write(line + "\n");

// An empty KAFKA_BROKERS is unset, as for the service itself.
const kafkaBrokers = process.env.KAFKA_BROKERS ? process.env.KAFKA_BROKERS.split(",") : undefined;
const dataDir = mkdtempSync(join(tmpdir(), "cardlink-bench-pipeline-"));
// On PostgreSQL, a database of the bench's own (dropped at the end).
const own = process.env.DATABASE_URL ? await ownDatabase(process.env.DATABASE_URL, "pipeline") : undefined;
const config = loadConfig({
  ...process.env,
  DATABASE_URL: own?.url,
  KAFKA_BROKERS: undefined,
  SCHEMA_REGISTRY_URL: undefined,
  DATA_DIR: dataDir,
  ADMIN_TOKEN: ADMIN,
  LOG_LEVEL: "warn",
  RATE_LIMIT_PER_SECOND: "1000000",
  RATE_LIMIT_BURST: "1000000",
});
const system = await openSystem(config, { command: "bench pipeline", bus: true });
const { services } = system;
const app = createApp(services, { adminToken: ADMIN });
const namespace = `bench-pipeline-${process.pid}-${randomUUID().slice(0, 6)}`;
const openBus = (name: string): Bus =>
  kafkaBrokers
    ? createKafkaBus({ brokers: kafkaBrokers, codec: singleObjectCodec(), namespace: `${namespace}-${name}`, clientId: `bench-${process.pid}`, log: services.log, now: () => new Date() })
    : createEmbeddedLog({ dir: join(dataDir, `bus-${name}`) });

async function call<T>(method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<T> {
  const res = await app.request(path, { method, headers: { ...headers, "content-type": "application/json" }, ...(body ? { body: JSON.stringify(body) } : {}) });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

// ----------------------------------------------------------------------------------- the world
const setupStarted = performance.now();
const account = await call<{ id: string; keys: { test: string } }>("POST", "/admin/accounts", { Authorization: `Bearer ${ADMIN}` }, { name: "Bench", tier: "premium" });
const key = { "Cardlink-Key": account.keys.test };
const program = await call<{ id: string }>("POST", "/v1/programs", key, { name: "Bench" });
// Two brands: one location in ten is the second brand's, whose two offers both need activation (an
// activation offer cannot run beside a plain one for one brand).
const brand = await call<{ id: string; name: string }>("POST", "/v1/brands", key, { name: "Bench Coffee" });
const teaBrand = await call<{ id: string; name: string }>("POST", "/v1/brands", key, { name: "Bench Tea" });
type Location = { id: string; brandId: string; status: { visa: { mids: { vmid: string; vsid: string; visaAcquiringMid: string; visaBin: string }[] } } };
const locations: Location[] = [];
for (let i = 0; i < LOCATIONS; i += 8) {
  const lane = Array.from({ length: Math.min(8, LOCATIONS - i) }, (_, j) =>
    call<Location>("POST", `/v1/programs/${program.id}/locations`, key, {
      brandId: (i + j) % 10 === 9 ? teaBrand.id : brand.id,
      address: `${i + j} High Street`,
      city: "London",
      postcode: "SW1A 1AA",
      countryCode: "GBR",
    }),
  );
  locations.push(...(await Promise.all(lane)));
}
locations.splice(0, locations.length, ...(await onboarded(services, locations, (id) => call<Location>("GET", `/v1/locations/${id}`, key))));
const start = new Date(services.clock.now().getTime() - 86_400_000).toISOString().slice(0, 10) + "T00:00:00";
const offer = (brandId: string, name: string, type: object, activation?: object) =>
  call<{ id: string }>("POST", "/v1/offers", key, { brandId, countryCode: "GBR", name, publisherId: account.id, startDate: start, type, ...(activation ? { activation } : {}) });
const offers = [
  await offer(brand.id, "10%", { name: "discount", value: 10 }),
  await offer(brand.id, "£3", { name: "amount", value: 3 }),
  await offer(teaBrand.id, "£3 when activated", { name: "amount", value: 3 }, { enabled: true, qualifiedTransactionsLimit: 1_000_000 }),
  await offer(teaBrand.id, "15% when activated", { name: "discount", value: 15 }, { enabled: true, qualifiedTransactionsLimit: 1_000_000 }),
];
for (const o of offers) await call("POST", `/v1/offers/${o.id}/programs/${program.id}/locations`, key);
const activationOffers = offers.slice(2);
// Cards straight into the table (the API takes only the test numbers: a thousand Visa ones).
const now0 = services.clock.now();
await services.db.query(
  `insert into cards (id, account_id, live, program_id, first_numbers, last_numbers, scheme, exp_month, exp_year, country_code,
     network_token, terms_of_use, metadata, created, updated)
   select gen_random_uuid(), $1::uuid, false, $2::uuid, '444400', lpad((i % 10000)::text, 4, '0'), 'visa', 12, 2030, 'GBR',
     'bench-' || $2::text || '-' || lpad(i::text, 6, '0'), true, null, $3::timestamptz, $3::timestamptz
   from generate_series(0, $4::int - 1) as i`,
  [account.id, program.id, now0, CARDS],
);
const cards = await services.db.query<{ id: string; first_numbers: string; last_numbers: string }>(
  "select id, first_numbers, last_numbers from cards where program_id = $1 order by network_token",
  [program.id],
);
for (const o of activationOffers) {
  await services.db.query(
    `insert into offer_activations (id, offer_id, card_id, account_id, live, state, activated, created, updated)
     select gen_random_uuid(), $1, c.id, $2, false, 'activated', $3, $3, $3 from unnest($4::uuid[]) as c(id)`,
    [o.id, account.id, now0, cards.filter((_, i) => i % 10 === 0).map((c) => c.id)],
  );
}
log(
  `pipeline: ${COUNT} Visa auths, ${CARDS} cards, ${LOCATIONS} locations with 2 live offers each ` +
    `(one location in ten has activation offers, activated by one card in ten)`,
);
log(`  on ${config.DATABASE_URL ? "PostgreSQL" : "PGlite"} and ${kafkaBrokers ? "Kafka" : "the embedded log"}; set-up ${((performance.now() - setupStarted) / 1000).toFixed(1)} s`);

// ------------------------------------------------------------------------------- the messages
const now = services.clock.now();
const local = now.toISOString().slice(0, 19);
const message = (run: string, i: number) => {
  const card = cards[i % cards.length]!;
  const location = locations[i % locations.length]!;
  return visaAuth({
    id: `${run}-${RUN_ID}-${i}`,
    card: { id: card.id, firstSix: card.first_numbers, lastFour: card.last_numbers },
    location,
    brandName: location.brandId === brand.id ? brand.name : teaBrand.name,
    merchantName: "BENCH LONDON",
    amount: 5 + (i % 50),
    now,
  });
};
// The messages are made as they are sent, never held all at once: the peak RSS (g) is the pipeline's, not
// the bench's own copy of 100,000 messages (which was most of it).
const throughput = (i: number) => message("throughput", i);

/** Publishes COUNT messages with 64 concurrent publishers, as many simulators and API requests would. */
async function publishAll(bus: Bus, topic: string, make: typeof throughput) {
  const lanes = 64;
  await Promise.all(
    Array.from({ length: lanes }, async (_, lane) => {
      for (let i = lane; i < COUNT; i += lanes) {
        const m = make(i);
        await bus.publish(topic, m.key, m.value);
      }
    }),
  );
}

// ------------------------------------------------------------------------------ (a) the bus alone
part = "(a) the bus alone";
let busRate: number;
if (kafkaBrokers) {
  // Plain kafkajs on the same broker and the same encoded bytes: the ceiling for any Kafka consumer here.
  const codec = singleObjectCodec();
  await codec.register(TOPIC, loadSchema("visa-transaction"));
  // Encoded a thousand at a time as they are sent, as the product's bus encodes its own.
  const encodeChunk = (from: number) =>
    Promise.all(
      Array.from({ length: Math.min(1_000, COUNT - from) }, async (_, j) => {
        const m = throughput(from + j);
        return { key: m.key, value: await codec.encode(TOPIC, m.value) };
      }),
    );
  const kafka = new Kafka({ brokers: kafkaBrokers, clientId: `bench-${process.pid}`, logLevel: logLevel.WARN });
  const admin = kafka.admin();
  await admin.connect();
  const topic = `${namespace}-plain`;
  await admin.createTopics({ topics: [{ topic, numPartitions: 6 }], waitForLeaders: true });
  const producer = kafka.producer();
  await producer.connect();
  const consumer = kafka.consumer({ groupId: `${namespace}-plain` });
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  let consumed = 0;
  let done!: () => void;
  const all = new Promise<void>((resolve) => (done = resolve));
  await consumer.run({
    autoCommit: false,
    partitionsConsumedConcurrently: 4,
    eachBatch: async ({ batch }) => {
      const last = batch.messages[batch.messages.length - 1];
      if (last) await consumer.commitOffsets([{ topic: batch.topic, partition: batch.partition, offset: String(Number(last.offset) + 1) }]);
      consumed += batch.messages.length;
      if (consumed >= COUNT) done();
    },
  });
  const began = performance.now();
  for (let i = 0; i < COUNT; i += 1_000) await producer.send({ topic, acks: -1, messages: await encodeChunk(i) });
  const published = performance.now();
  await all;
  busRate = rate(COUNT, performance.now() - began);
  log(`(a) bus alone, plain kafkajs (send in batches of 1,000, acks=all; eachBatch, one commit per batch): ${busRate} msg/s end to end (publish ${rate(COUNT, published - began)} msg/s)`);
  await consumer.disconnect();
  await producer.disconnect();
  await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
  await admin.disconnect();
}
{
  // The product's bus (embedded log, or the Kafka bus with its batching), the same messages, a consumer that does nothing.
  const bus = openBus("alone");
  await bus.createTopics([{ name: TOPIC, partitions: 6, schema: loadSchema("visa-transaction") }]);
  let consumed = 0;
  let done!: () => void;
  const all = new Promise<void>((resolve) => (done = resolve));
  const subscription = await bus.subscribe({
    groupId: "bench",
    topics: [TOPIC],
    batchHandler: async (batch) => {
      consumed += batch.length;
      if (consumed >= COUNT) done();
    },
  });
  const began = performance.now();
  await publishAll(bus, TOPIC, throughput);
  const published = performance.now();
  await all;
  const productRate = rate(COUNT, performance.now() - began);
  busRate ??= productRate;
  log(`(a) bus alone, Cardlink's ${kafkaBrokers ? "Kafka bus" : "embedded log (persisted)"}, 64 concurrent publishers: ${productRate} msg/s end to end (publish ${rate(COUNT, published - began)} msg/s)`);
  await subscription.stop();
  await bus.close();
}

// --------------------------------------------------------------------------- (b) the qualifier
part = "(b) the qualifier";
/** What a batch costs: the qualifier's statements timed by kind (first words of the SQL). */
const statementMs = new Map<string, { n: number; ms: number }>();
let batches = 0;
let txMs = 0;
const label = (text: string) => {
  const words = text.trim().split(/\s+/);
  return words[0] === "select" ? `select … ${words[words.indexOf("from") + 1] ?? ""}` : words.slice(0, 3).join(" ");
};
const timed = (db: Db): Db => ({
  engine: db.engine,
  exec: (text) => db.exec(text),
  close: () => db.close(),
  listen: (channel, onNotify) => db.listen(channel, onNotify),
  async tx(fn) {
    batches++; // the qualifier opens one transaction per batch
    const began = performance.now();
    try {
      return await db.tx((inner) => fn(timed(inner)));
    } finally {
      txMs += performance.now() - began;
    }
  },
  async query(text, params) {
    const began = performance.now();
    try {
      return await db.query(text, params);
    } finally {
      const entry = statementMs.get(label(text)) ?? { n: 0, ms: 0 };
      entry.n++;
      entry.ms += performance.now() - began;
      statementMs.set(label(text), entry);
    }
  },
});
const bus = openBus("qualifier");
await bus.createTopics(topicSpecs());
const sentAt = new Map<string, number>();
const latencies: number[] = [];
/** The transactions recorded in the part under way: one per message published, however often the bus delivers it. */
const recorded = new Set<string>();
let duplicates = 0;
const dropped: string[] = [];
let target = COUNT;
let reached!: () => void;
let goal = new Promise<void>((resolve) => (reached = resolve));
const qualifier = await startQualifier({
  ...services,
  db: timed(services.db),
  bus,
  onOutcome: (outcome) => {
    // The bus delivers at least once: a copy of a message (on Kafka, a producer's retry writes a send twice,
    // tens of copies in a run; or a batch whose commit did not reach the group comes again) is a duplicate,
    // which the qualifier drops. Copies are outcomes beyond the messages published, so a part is done when
    // each of its messages is recorded (each is a purchase of its own, with a transaction of its own), not
    // after as many outcomes as messages: that ended a part as many messages early as there were copies,
    // and the rows were counted without the ones whose batch had not committed yet.
    if (outcome.kind === "duplicate") duplicates++;
    else if (outcome.kind !== "recorded") dropped.push(JSON.stringify(outcome));
    else if (!recorded.has(outcome.transactionId)) {
      recorded.add(outcome.transactionId);
      const sent = sentAt.get(outcome.transactionId);
      if (sent !== undefined) latencies.push(performance.now() - sent);
    }
    if (recorded.size + dropped.length >= target) reached();
  },
});
/**
 * The part's goal: every message published recorded (or dropped, which fails the run after). Should the
 * qualifier take a new message for a duplicate, the goal never comes: once it has handled every message
 * on the topic (its lag is 0, committed after each batch's outcomes) the part fails, naming how many.
 */
async function allRecorded(): Promise<void> {
  let done = false;
  const finished = goal.then(() => (done = true));
  for (;;) {
    await Promise.race([finished, new Promise((resolve) => setTimeout(resolve, 500))]);
    if (done) return;
    if ((await qualifierLag(bus)) === 0 && !done) {
      throw new Error(`the qualifier handled every message, yet ${target - recorded.size - dropped.length} of ${target} were never recorded (${duplicates} duplicates dropped)`);
    }
  }
}
const qualifierBegan = performance.now();
const qualifierCpu = process.cpuUsage();
await publishAll(bus, TOPIC, throughput);
const qualifierPublished = performance.now();
await allRecorded();
const qualifierMs = performance.now() - qualifierBegan;
const qualifierCpuS = ((c) => (c.user + c.system) / 1e6)(process.cpuUsage(qualifierCpu));
const qualifierRate = rate(COUNT, qualifierMs);
const [written] = await services.db.query<{ transactions: number; qualified: number; events: number }>(
  `select count(*)::int as transactions, count(*) filter (where (offer->>'qualified')::boolean)::int as qualified,
     (select count(*)::int from outbox_events where account_id = $1) as events
   from transactions where account_id = $1`,
  [account.id],
);
log(
  `(b) qualifier end to end: ${qualifierRate} transactions/s (${COUNT} in ${(qualifierMs / 1000).toFixed(1)} s; published in ${((qualifierPublished - qualifierBegan) / 1000).toFixed(1)} s); ` +
    `${written!.transactions} rows, ${written!.qualified} qualified, ${written!.events} outbox events; ${duplicates} duplicates dropped`,
);
if (dropped.length > 0) throw new Error(`the qualifier dropped ${dropped.length} messages, e.g. ${dropped[0]}`);
log(
  `    this process used ${qualifierCpuS.toFixed(1)} CPU s (${(qualifierCpuS / (qualifierMs / 1000)).toFixed(2)} cores; ${rate(COUNT, qualifierCpuS * 1000)} transactions per CPU second` +
    `${config.DATABASE_URL ? ", PostgreSQL's own CPU not counted" : ", PGlite included"})`,
);
log(
  `    ${batches} batches, ${(COUNT / Math.max(1, batches)).toFixed(0)} messages each on average; ${(txMs / Math.max(1, batches)).toFixed(1)} ms a batch from begin to commit, ` +
    `of which by statement (statements sent together overlap, so these add up to more):`,
);
for (const [kind, { n, ms }] of [...statementMs].sort((a, b) => b[1].ms - a[1].ms)) {
  log(`      ${(ms / Math.max(1, batches)).toFixed(1).padStart(7)} ms  ${kind} (${n})`);
}
// The runner's own timings of (b)'s batches, from the step histogram (read before (d) adds to it).
const stepSeconds = await (async () => {
  const values = ((await services.metrics.registry.getSingleMetric("cardlink_qualifier_step_seconds")?.get())?.values ?? []) as {
    labels: Record<string, string | number>;
    value: number;
    metricName?: string;
  }[];
  const sums = new Map<StepName, { seconds: number; batches: number }>(STEPS.map((step) => [step, { seconds: 0, batches: 0 }]));
  for (const v of values) {
    const entry = sums.get(v.labels.step as StepName);
    if (entry && v.metricName?.endsWith("_sum")) entry.seconds = v.value;
    if (entry && v.metricName?.endsWith("_count")) entry.batches = v.value;
  }
  return sums;
})();
const stepsTotal = [...stepSeconds.values()].reduce((sum, s) => sum + s.seconds, 0);
const stepShare = (step: StepName) => (stepsTotal > 0 ? (stepSeconds.get(step)!.seconds / stepsTotal) * 100 : 0);
log(`    by step (the runner's timings: ${(stepsTotal * 1000 / Math.max(1, batches)).toFixed(1)} ms a batch in all), each step's share of the qualifier's time:`);
for (const step of STEPS) {
  const { seconds, batches: n } = stepSeconds.get(step)!;
  log(`      ${stepShare(step).toFixed(1).padStart(5)}%  ${((seconds * 1000) / Math.max(1, n)).toFixed(2).padStart(7)} ms a batch  ${step} (${n} batches)`);
}
log(`(c) qualifier / bus alone: ${((qualifierRate / busRate) * 100).toFixed(1)}%`);

// ---------------------------------------------------------------- (d) latency at a fixed offered rate
part = "(d) latency at a fixed rate";
const paced = Array.from({ length: RATE * RATE_SECONDS }, (_, i) => message("paced", i));
latencies.length = 0;
recorded.clear();
duplicates = 0;
target = paced.length;
goal = new Promise<void>((resolve) => (reached = resolve));
const pacedBegan = performance.now();
const publishing: Promise<unknown>[] = [];
for (let i = 0; i < paced.length; i++) {
  const due = pacedBegan + (i * 1000) / RATE;
  const wait = due - performance.now();
  if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
  const m = paced[i]!;
  sentAt.set(transactionIdFor("visa", "purchase", m.value.transactionId), performance.now());
  publishing.push(bus.publish(TOPIC, m.key, m.value));
}
const offeredMs = performance.now() - pacedBegan;
await Promise.all(publishing);
await allRecorded();
latencies.sort((a, b) => a - b);
const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!;
const p50 = at(0.5);
const p99 = at(0.99);
log(
  `(d) publish→commit at ${RATE}/s offered for ${RATE_SECONDS} s (achieved ${rate(paced.length, offeredMs)}/s): ` +
    `p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${latencies[latencies.length - 1]!.toFixed(1)} ms`,
);
await qualifier.stop();
await bus.close();

// ------------------------------------------------------------------ (e) the dispatcher's deliveries
part = "(e) the dispatcher";
// The receiver runs in a process of its own, as a real endpoint would: its work is not this process's.
const receiver = await startChildReceiver();
const dispatcher = createDispatcher({ ...services });
dispatcher.start();
// The events of (b) and (d) go to no hook: let the dispatcher fan them out first, outside the measurement.
await dispatcher.settled();
const hookProgram = await call<{ id: string }>("POST", "/v1/programs", key, { name: "Hooks" });
await call("POST", `/v1/programs/${hookProgram.id}/hooks`, key, { url: receiver.url, event: "transaction.auth" });
await services.db.query(
  `insert into outbox_events (id, account_id, live, program_id, event, data, created)
   select gen_random_uuid(), $1, false, $2, 'transaction.auth', jsonb_build_object('n', i, 'note', repeat('x', 1000)), $3
   from generate_series(1, $4) as i`,
  [account.id, hookProgram.id, services.clock.now(), DELIVERIES],
);
const dispatchBegan = performance.now();
dispatcher.kick();
// settled() does not wait for deliveries held back by an endpoint's bound: wait for the receiver's count.
const dispatchDeadline = performance.now() + 300_000;
let received = 0;
while ((received = await receiver.count()) < DELIVERIES && performance.now() < dispatchDeadline) await new Promise((resolve) => setTimeout(resolve, 20));
const dispatchMs = performance.now() - dispatchBegan;
const deliveryRate = rate(received, dispatchMs);
log(`(e) dispatcher to a local receiver (one hook, the receiver in a process of its own): ${deliveryRate} deliveries/s (${received} of ${DELIVERIES} in ${(dispatchMs / 1000).toFixed(1)} s)`);
await dispatcher.stop();
receiver.close();

// ------------------------------------------------------------------------- (f) decide() on one core
part = "(f) decide()";
const index = createOfferIndex();
const candidates = (await index.current(services.db, (await indexVersions(services.db)).offers, { now: () => now, offsetMs: 0 })).get(locations[0]!.id)!;
const facts = Array.from({ length: 1_000 }, (_, i) => throughput(i)).map((m) => ({
  amount: m.value.amount,
  currency: "GBP",
  localDateTime: local,
  scheme: "visa" as const,
  targetingTag: null,
  created: now.toISOString(),
}));
const nowIso = now.toISOString();
const activated = () => "activated" as const;
const notActivated = () => "not activated" as const;
let decisions = 0;
const decideCpu = process.cpuUsage();
const decideBegan = performance.now();
while (performance.now() - decideBegan < 2_000) {
  for (let i = 0; i < facts.length; i++) decide(candidates, facts[i]!, i % 10 === 0 ? activated : notActivated, nowIso);
  decisions += facts.length;
}
const decideRate = rate(decisions, performance.now() - decideBegan);
const decideCpuRate = ((c) => Math.round(decisions / ((c.user + c.system) / 1e6)))(process.cpuUsage(decideCpu));
log(`(f) decide(), ${candidates.length} offers, one thread: ${decideRate} decisions/s wall clock, ${decideCpuRate} per CPU second (what one whole core does)`);

// ------------------------------------------------------------------------------------- (g) and the end
sampleRss();
clearInterval(sampler);
log(
  `(g) peak RSS: ${mib(peakRss)} MiB (process maxRSS ${Math.round(process.resourceUsage().maxRSS / 1024)} MiB), during ${atPeak.part}: ` +
    `V8 heap ${mib(atPeak.heapUsed)} of ${mib(atPeak.heapTotal)} MiB, external ${mib(atPeak.external)} MiB (array buffers ${mib(atPeak.arrayBuffers)} MiB)`,
);
log(
  `ratios: qualifier/bus ${(qualifierRate / busRate).toFixed(3)}; p99 ${p99.toFixed(0)} ms at ${RATE}/s (target < 100); decide ${decideCpuRate} per CPU s (target ≥ 500,000); ` +
    `deliveries ${deliveryRate} /s (target ≥ 5,000); peak RSS ${mib(peakRss)} MiB (target < 500); qualifier ${qualifierRate} tx/s ` +
    `(steps: ${STEPS.map((step) => `${step} ${stepShare(step).toFixed(0)}%`).join(", ")})`,
);
await system.close();
await own?.drop();
rmSync(dataDir, { recursive: true, force: true });
