// `npm run bench -- bus`: throughput of the bus with real Visa messages (from the dry-run generator):
// publish rate, end-to-end rate through one consumer group, and the embedded log's memory with its
// bound. The embedded log always; Kafka too when KAFKA_BROKERS is set, with the values single-object
// encoded from the schema files and, when SCHEMA_REGISTRY_URL is set too, again through the registry
// (Confluent wire format), so the registry's cost shows beside Kafka without it in the same run.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Bus } from "../src/platform/bus/bus.ts";
import { createEmbeddedLog } from "../src/platform/bus/embedded-log.ts";
import { createKafkaBus, registryCodec } from "../src/platform/bus/kafka.ts";
import { singleObjectCodec } from "../src/platform/bus/single-object-codec.ts";
import type { VisaTransaction } from "../src/platform/bus/messages.ts";
import { loadSchema } from "../src/platform/bus/avro.ts";
import { DRY_RUN_DEFAULTS, dryRun } from "../simulators/engine/dry-run.ts";
import { ADAPTERS } from "../simulators/schemes/index.ts";

const COUNT = Number(process.env.BENCH_BUS_COUNT ?? 20_000);
const messages = dryRun(ADAPTERS.visa, { ...DRY_RUN_DEFAULTS, seed: 1, count: COUNT, cards: 500 })
  .trimEnd()
  .split("\n")
  .slice(0, COUNT)
  .map((l) => JSON.parse(l) as { key: string; value: VisaTransaction });

async function measure(name: string, bus: Bus) {
  const topic = `bench-${process.pid}-${name.replace(/\W/g, "")}`;
  await bus.createTopics([{ name: topic, partitions: 6, schema: loadSchema("visa-transaction") }]);
  let consumed = 0;
  let done!: () => void;
  const all = new Promise<void>((r) => (done = r));
  const started = performance.now();
  const subscription = await bus.subscribe({
    groupId: topic,
    topics: [topic],
    handler: async () => {
      if (++consumed === COUNT) done();
    },
  });
  const publishStart = performance.now();
  // Publishers run concurrently, as several simulators and API requests would.
  const lanes = 16;
  await Promise.all(
    Array.from({ length: lanes }, async (_, lane) => {
      for (let i = lane; i < COUNT; i += lanes) await bus.publish(topic, messages[i]!.key, messages[i]!.value);
    }),
  );
  const published = performance.now();
  await all;
  const finished = performance.now();
  await subscription.stop();
  const rate = (n: number, ms: number) => Math.round((n / ms) * 1000);
  process.stdout.write(
    `${name}: ${COUNT} Visa messages, 6 partitions, 500 card keys, 16 concurrent publishers\n` +
      `  publish:     ${rate(COUNT, published - publishStart)} msg/s (${(published - publishStart).toFixed(0)} ms)\n` +
      `  end to end:  ${rate(COUNT, finished - publishStart)} msg/s through one consumer group (${(finished - started).toFixed(0)} ms)\n` +
      `  rss after:   ${Math.round(process.memoryUsage().rss / 2 ** 20)} MiB\n`,
  );
}

const dir = mkdtempSync(join(tmpdir(), "cardlink-bench-bus-"));
try {
  const log = createEmbeddedLog({ dir });
  await measure("embedded log (persisted)", log);
  await log.close();
  if (process.env.KAFKA_BROKERS) {
    const brokers = process.env.KAFKA_BROKERS.split(",");
    const registry = process.env.SCHEMA_REGISTRY_URL;
    const variants = [
      { name: "kafka (Avro single-object encoding, no registry)", codec: singleObjectCodec() },
      ...(registry ? [{ name: "kafka (schema registry)", codec: registryCodec(registry) }] : []),
    ];
    for (const { name, codec } of variants) {
      const kafka = createKafkaBus({ brokers, codec, now: () => new Date() });
      await measure(name, kafka);
      await kafka.close();
    }
    if (!registry) process.stdout.write("kafka (schema registry): skipped (set SCHEMA_REGISTRY_URL)\n");
  } else {
    process.stdout.write("kafka: skipped (set KAFKA_BROKERS, and SCHEMA_REGISTRY_URL for the registry's encoding too)\n");
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
