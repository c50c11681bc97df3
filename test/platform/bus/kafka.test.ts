// What only the Kafka bus has to prove, on the real broker with each value codec (the schema registry,
// and single-object encoding without one): schemas evolve compatibly (a new optional field registers, a
// new required one is refused; processes starting together register a new schema together), bytes no schema can decode are dead-lettered by the bus instead of
// stopping the consumer, and a namespace keeps topics and groups apart on a shared cluster.
import { randomUUID } from "node:crypto";
import { Kafka, logLevel } from "kafkajs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Bus, BusMessage } from "../../../src/platform/bus/bus.ts";
import { deadLetterTopic } from "../../../src/platform/bus/dead-letter.ts";
import type { DeadLetter } from "../../../src/platform/bus/messages.ts";
import { loadSchema } from "../../../src/platform/bus/avro.ts";
import { createKafkaBus, registryCodec, type ValueCodec } from "../../../src/platform/bus/kafka.ts";
import { singleObjectCodec } from "../../../src/platform/bus/single-object-codec.ts";
import { haveInfra, infra } from "../../support/infra.ts";
import { TEST_CONSUMER } from "../../support/kafka.ts";

const v1 = {
  type: "record",
  name: "EvolvingEvent",
  namespace: "dev.cardlink.test",
  fields: [
    { name: "id", type: "string" },
    { name: "amount", type: "double" },
  ],
};
const v2 = { ...v1, fields: [...v1.fields, { name: "channel", type: ["null", "string"], default: null }] };
const v3 = { ...v2, fields: [...v2.fields, { name: "required", type: "string" }] };

const codecs: { name: string; available: () => boolean; codec: () => ValueCodec; v1Read: Record<string, unknown> }[] = [
  // The registry hands the reader the schema each value was written with.
  {
    name: "schema registry",
    available: () => haveInfra("kafkaBrokers", "schemaRegistryUrl"),
    codec: () => registryCodec(infra.schemaRegistryUrl!),
    v1Read: { id: "old", amount: 1 },
  },
  // Single-object encoding resolves every value to the topic's current schema.
  { name: "single-object encoding", available: () => haveInfra("kafkaBrokers"), codec: () => singleObjectCodec(), v1Read: { id: "old", amount: 1, channel: null } },
];

for (const { name, available, codec, v1Read } of codecs) describe.skipIf(!available())(`Kafka bus (real broker, ${name})`, () => {
  const run = randomUUID().slice(0, 8);
  const topic = `kafka-bus-${run}`;
  const kafka = new Kafka({ brokers: (infra.kafkaBrokers ?? "").split(","), logLevel: logLevel.NOTHING });
  let bus: Bus;

  beforeAll(() => {
    bus = createKafkaBus({ brokers: infra.kafkaBrokers!.split(","), codec: codec(), clientId: "cardlink-kafka-test", consumer: TEST_CONSUMER, now: () => new Date() });
  });
  afterAll(async () => {
    await bus?.close();
    const admin = kafka.admin();
    await admin.connect();
    await admin.deleteTopics({ topics: [topic, deadLetterTopic(topic)] }).catch(() => undefined);
    await admin.disconnect();
  });

  it("registers a v2 with a new optional field, and refuses a new required field", async () => {
    await bus.createTopics([{ name: topic, partitions: 2, schema: v1 }]);
    await bus.createTopics([{ name: deadLetterTopic(topic), partitions: 1, schema: loadSchema("dead-letter") }]);
    await bus.publish(topic, "k1", { id: "old", amount: 1 });
    await bus.createTopics([{ name: topic, partitions: 2, schema: v2 }]);
    await bus.publish(topic, "k1", { id: "new", amount: 2, channel: "online" });
    await expect(bus.createTopics([{ name: topic, partitions: 2, schema: v3 }])).rejects.toThrow();

    const seen: BusMessage[] = [];
    const s = await bus.subscribe({ groupId: `evolve-${run}`, topics: [topic], handler: async (m) => void seen.push(m) });
    await waitFor(() => seen.length === 2);
    await s.stop();
    // Both versions decode: the older one found by its schema id or fingerprint.
    expect(seen.map((m) => m.value)).toEqual([
      v1Read,
      { id: "new", amount: 2, channel: "online" },
    ]);
  });

  it("lets several processes starting at once register a new topic's schema together", async () => {
    // One codec per process, each with its own registry client, as the roles have at start-up.
    const subject = `concurrent-${run}`;
    const processes = Array.from({ length: 6 }, () => codec());
    await Promise.all(processes.map((c) => c.register(subject, v1)));
    const encoded = await Promise.all(processes.map((c) => c.encode(subject, { id: "same", amount: 5 })));
    expect(new Set(encoded.map((b) => b.toString("hex"))).size).toBe(1);
    expect(await processes[0]!.decode(subject, encoded[5]!)).toEqual({ id: "same", amount: 5 });
  });

  it("dead-letters bytes no schema can decode and goes on with the next message", async () => {
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic, messages: [{ key: "k2", value: Buffer.from("not avro at all") }] });
    await producer.disconnect();
    await bus.publish(topic, "k2", { id: "after", amount: 3, channel: null });

    const seen: BusMessage[] = [];
    const dead: DeadLetter[] = [];
    const consumer = await bus.subscribe({ groupId: `garbage-${run}`, topics: [topic], handler: async (m) => void seen.push(m) });
    const letters = await bus.subscribe({ groupId: `letters-${run}`, topics: [deadLetterTopic(topic)], handler: async (m) => void dead.push(m.value as DeadLetter) });
    await waitFor(() => dead.length === 1 && seen.some((m) => (m.value as { id: string }).id === "after"));
    await Promise.all([consumer.stop(), letters.stop()]);
    expect(dead[0]).toMatchObject({ topic, key: "k2", failedBy: `garbage-${run}`, payload: `base64:${Buffer.from("not avro at all").toString("base64")}` });
    expect(dead[0]!.reason).toMatch(/^undecodable value: /);
  });
});

describe.skipIf(!haveInfra("kafkaBrokers"))("Kafka bus namespaces (real broker)", () => {
  const run = randomUUID().slice(0, 8);
  const namespaces = [`ns-a-${run}`, `ns-b-${run}`];
  const schema = { type: "record", name: "NamespacedEvent", namespace: "dev.cardlink.test", fields: [{ name: "from", type: "string" }] };
  const buses = namespaces.map((namespace) =>
    createKafkaBus({ brokers: (infra.kafkaBrokers ?? "").split(","), codec: singleObjectCodec(), namespace, clientId: "cardlink-kafka-test", consumer: TEST_CONSUMER, now: () => new Date() }),
  );
  const admin = new Kafka({ brokers: (infra.kafkaBrokers ?? "").split(","), logLevel: logLevel.NOTHING }).admin();

  afterAll(async () => {
    await Promise.all(buses.map((b) => b.close()));
    await admin.connect();
    await admin.deleteTopics({ topics: namespaces.map((ns) => `${ns}.events`) }).catch(() => undefined);
    await admin.disconnect();
  });

  it("keeps the same topic and group names of two namespaces apart, and hands out the plain topic name", async () => {
    for (const [i, bus] of buses.entries()) {
      await bus.createTopics([{ name: "events", partitions: 1, schema }]);
      await bus.publish("events", "k", { from: namespaces[i]! });
    }
    await admin.connect();
    expect((await admin.listTopics()).filter((t) => t.endsWith(`-${run}.events`)).sort()).toEqual(namespaces.map((ns) => `${ns}.events`));
    const seen: BusMessage[][] = [[], []];
    const subscriptions = await Promise.all(buses.map((bus, i) => bus.subscribe({ groupId: "same-group", topics: ["events"], handler: async (m) => void seen[i]!.push(m) })));
    await waitFor(() => seen.every((s) => s.length === 1));
    await Promise.all(subscriptions.map((s) => s.stop()));
    const groups = (await admin.listGroups()).groups.map((g) => g.groupId);
    expect(groups).toEqual(expect.arrayContaining(namespaces.map((ns) => `${ns}.same-group`)));
    expect(seen.map((s) => [s[0]!.topic, s[0]!.value])).toEqual(namespaces.map((ns) => ["events", { from: ns }]));
  });
});

async function waitFor(condition: () => boolean, ms = 30_000) {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 50));
  }
}
