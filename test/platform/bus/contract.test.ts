// The bus contract, run against both implementations: the embedded log, and Kafka on the real broker
// with each value codec — single-object encoding from the schema files (KAFKA_BROKERS; required under
// CI) and the schema registry (when SCHEMA_REGISTRY_URL is set too).
import { randomUUID } from "node:crypto";
import { Kafka, logLevel } from "kafkajs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Bus, BusMessage, CommittedBatch, ConsumerObserver, Subscription, TopicSpec } from "../../../src/platform/bus/bus.ts";
import { BusError, BusValidationError } from "../../../src/platform/bus/bus.ts";
import { createEmbeddedLog } from "../../../src/platform/bus/embedded-log.ts";
import { createKafkaBus, registryCodec } from "../../../src/platform/bus/kafka.ts";
import { singleObjectCodec } from "../../../src/platform/bus/single-object-codec.ts";
import { partitionFor } from "../../../src/platform/bus/partitioner.ts";
import { deadLetter } from "../../../src/platform/bus/dead-letter.ts";
import { loadSchema } from "../../../src/platform/bus/avro.ts";
import { haveInfra, infra } from "../../support/infra.ts";
import { TEST_CONSUMER } from "../../support/kafka.ts";

const eventSchema = {
  type: "record",
  name: "ContractEvent",
  namespace: "dev.cardlink.test",
  fields: [
    { name: "id", type: "string" },
    { name: "n", type: "int" },
    { name: "note", type: ["null", "string"], default: null },
  ],
};

interface Event {
  id: string;
  n: number;
  note: string | null;
}

const PARTITIONS = 4;

interface Implementation {
  name: string;
  available: () => boolean;
  open: (observer: ConsumerObserver) => Bus;
  cleanup: (topics: string[]) => Promise<void>;
}

const implementations: Implementation[] = [
  {
    name: "embedded log",
    available: () => true,
    open: (observer) => createEmbeddedLog({ observer }),
    cleanup: async () => {},
  },
  {
    name: "Kafka, values single-object encoded",
    available: () => haveInfra("kafkaBrokers"),
    open: (observer) =>
      createKafkaBus({
        brokers: infra.kafkaBrokers!.split(","),
        codec: singleObjectCodec(),
        clientId: "cardlink-contract-test", consumer: TEST_CONSUMER,
        now: () => new Date(),
        observer,
      }),
    cleanup: deleteKafkaTopics,
  },
  {
    name: "Kafka with the schema registry",
    available: () => haveInfra("kafkaBrokers", "schemaRegistryUrl"),
    open: (observer) =>
      createKafkaBus({
        brokers: infra.kafkaBrokers!.split(","),
        codec: registryCodec(infra.schemaRegistryUrl!),
        clientId: "cardlink-contract-test", consumer: TEST_CONSUMER,
        now: () => new Date(),
        observer,
      }),
    cleanup: deleteKafkaTopics,
  },
];

async function deleteKafkaTopics(topics: string[]) {
  const admin = new Kafka({ brokers: infra.kafkaBrokers!.split(","), logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  await admin.deleteTopics({ topics }).catch(() => undefined);
  await admin.disconnect();
}

/** Collects what a handler handled; `until(n)` waits for the n-th. `onMessage` sees each delivery first. */
function recorder(onMessage?: (m: BusMessage<Event>, delivery: number) => Promise<void> | void) {
  const received: BusMessage<Event>[] = [];
  const deliveries = new Map<string, number>();
  const waiters: { n: number; resolve: () => void }[] = [];
  return {
    received,
    handler: async (message: BusMessage) => {
      const m = message as BusMessage<Event>;
      const delivery = deliveries.get(m.value.id) ?? 0;
      deliveries.set(m.value.id, delivery + 1);
      await onMessage?.(m, delivery);
      received.push(m);
      for (const w of waiters.filter((w) => received.length >= w.n)) w.resolve();
    },
    until(n: number, ms = 20_000): Promise<void> {
      if (received.length >= n) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`saw ${received.length} of ${n} messages`)), ms);
        waiters.push({ n, resolve: () => (clearTimeout(timer), resolve()) });
      });
    },
  };
}

for (const impl of implementations) {
  describe.skipIf(!impl.available())(`bus contract: ${impl.name}`, () => {
    const run = randomUUID().slice(0, 8);
    const created: string[] = [];
    let bus: Bus;
    const subscriptions: Subscription[] = [];
    /** Every batch the bus's consumers committed, as they reported it. */
    const committed: CommittedBatch[] = [];
    /** Every batch a group's handler was handed: its size. */
    const handed: { groupId: string; size: number }[] = [];

    async function topic(label: string): Promise<string> {
      const name = `contract-${run}-${label}`;
      const spec: TopicSpec = { name, partitions: PARTITIONS, schema: eventSchema };
      await bus.createTopics([spec]);
      created.push(name);
      return name;
    }

    async function subscribe(groupId: string, topics: string[], handler: (m: BusMessage) => Promise<void>) {
      const s = await bus.subscribe({ groupId: `${run}-${groupId}`, topics, handler });
      subscriptions.push(s);
      return s;
    }

    const event = (id: string, n: number): Event => ({ id, n, note: null });

    beforeAll(() => {
      bus = impl.open({ committed: (batch) => void committed.push(batch), handing: (groupId, size) => void handed.push({ groupId, size }) });
    });

    afterAll(async () => {
      await Promise.all(subscriptions.map((s) => s.stop()));
      await bus?.close();
      await impl.cleanup(created);
    });

    it("puts a key on the partition murmur2 gives it and keeps that key's messages in order", async () => {
      const name = await topic("order");
      const keys = ["card-a", "card-b", "card-c", "card-d", "card-e"];
      for (let n = 0; n < 4; n++) {
        for (const key of keys) {
          const published = await bus.publish(name, key, event(key, n));
          expect(published.partition).toBe(partitionFor(key, PARTITIONS));
        }
      }
      const r = recorder();
      await subscribe("order", [name], r.handler);
      await r.until(20);
      for (const key of keys) {
        const mine = r.received.filter((m) => m.key === key);
        expect(mine.map((m) => m.value.n)).toEqual([0, 1, 2, 3]);
        expect(new Set(mine.map((m) => m.partition))).toEqual(new Set([partitionFor(key, PARTITIONS)]));
        const offsets = mine.map((m) => m.offset);
        expect([...offsets].sort((a, b) => a - b)).toEqual(offsets);
      }
    });

    it("shares a group's partitions among its members: each message reaches exactly one", async () => {
      const name = await topic("share");
      const a = recorder();
      const b = recorder();
      await subscribe("share", [name], a.handler);
      await subscribe("share", [name], b.handler);
      for (let n = 0; n < 24; n++) await bus.publish(name, `key-${n}`, event(`key-${n}`, n));
      await waitFor(() => a.received.length + b.received.length >= 24);
      const ids = [...a.received, ...b.received].map((m) => m.value.id).sort();
      expect(ids).toEqual(Array.from({ length: 24 }, (_, n) => `key-${n}`).sort());
      expect(a.received.length).toBeGreaterThan(0);
      expect(b.received.length).toBeGreaterThan(0);
      const partitionsOf = (r: typeof a) => new Set(r.received.map((m) => m.partition));
      for (const p of partitionsOf(a)) expect(partitionsOf(b).has(p)).toBe(false);
    });

    it("gives every group every message", async () => {
      const name = await topic("groups");
      for (let n = 0; n < 6; n++) await bus.publish(name, `k${n}`, event(`k${n}`, n));
      const first = recorder();
      const second = recorder();
      await subscribe("groups-1", [name], first.handler);
      await subscribe("groups-2", [name], second.handler);
      await first.until(6);
      await second.until(6);
      expect(first.received.map((m) => m.value.id).sort()).toEqual(second.received.map((m) => m.value.id).sort());
    });

    it("delivers a message again when its handler fails, before the ones behind it", async () => {
      const name = await topic("retry");
      const r = recorder((m, delivery) => {
        if (m.value.n === 1 && delivery === 0) throw new Error("database down");
      });
      await subscribe("retry", [name], r.handler);
      for (let n = 0; n < 3; n++) await bus.publish(name, "one-card", event(`purchase-${n}`, n));
      await r.until(3);
      expect(r.received.map((m) => m.value.n)).toEqual([0, 1, 2]);
      expect(r.received[1]!.offset).toBe(r.received[0]!.offset + 1);
    });

    it("resumes a group from its committed offset", async () => {
      const name = await topic("resume");
      for (let n = 0; n < 3; n++) await bus.publish(name, "k", event(`before-${n}`, n));
      const first = recorder();
      const s = await subscribe("resume", [name], first.handler);
      await first.until(3);
      await s.stop();
      for (let n = 3; n < 5; n++) await bus.publish(name, "k", event(`after-${n}`, n));
      const second = recorder();
      await subscribe("resume", [name], second.handler);
      await second.until(2);
      await settle();
      expect(second.received.map((m) => m.value.id)).toEqual(["after-3", "after-4"]);
    });

    it("counts a group's lag: every message before it consumes, none once it committed, what came after it stopped", async () => {
      const name = await topic("lag");
      for (let n = 0; n < 5; n++) await bus.publish(name, `k${n}`, event(`k${n}`, n));
      expect(await bus.lag(`${run}-lag`, [name])).toBe(5);
      const r = recorder();
      const s = await subscribe("lag", [name], r.handler);
      await r.until(5);
      await expect.poll(() => bus.lag(`${run}-lag`, [name]), { timeout: 20_000, interval: 50 }).toBe(0);
      await s.stop();
      for (let n = 5; n < 7; n++) await bus.publish(name, `k${n}`, event(`k${n}`, n));
      expect(await bus.lag(`${run}-lag`, [name])).toBe(2);
    });

    it("hands a message its failed member did not commit to the next member of the group", async () => {
      const name = await topic("failover");
      let attempts = 0;
      const failing = await subscribe("failover", [name], async () => {
        attempts++;
        throw new Error("this consumer is broken");
      });
      await bus.publish(name, "k", event("stuck", 0));
      await waitFor(() => attempts >= 2);
      await failing.stop();
      const next = recorder();
      await subscribe("failover", [name], next.handler);
      await next.until(1);
      expect(next.received[0]!.value).toMatchObject({ id: "stuck", n: 0 });
    });

    it("delivers each partition's messages in offset order, per key in publish order, and commits once per batch", async () => {
      const name = await topic("batches");
      const keys = ["card-a", "card-b", "card-c"];
      for (let n = 0; n < 30; n++) await bus.publish(name, keys[n % 3]!, event(keys[n % 3]!, n));
      const batches: BusMessage<Event>[][] = [];
      const s = await bus.subscribe({
        groupId: `${run}-batches`,
        topics: [name],
        maxBatchSize: 7,
        batchHandler: async (batch) => void batches.push(batch as BusMessage<Event>[]),
      });
      subscriptions.push(s);
      await waitFor(() => batches.flat().length >= 30);
      for (const batch of batches) {
        for (const partition of new Set(batch.map((m) => m.partition))) {
          const own = batch.filter((m) => m.partition === partition);
          expect(own.length).toBeLessThanOrEqual(7);
          expect(own.map((m) => m.offset)).toEqual(own.map((_, i) => own[0]!.offset + i));
        }
      }
      expect(batches.some((b) => b.length > 1)).toBe(true);
      for (const key of keys) {
        const ns = batches.flat().filter((m) => m.key === key).map((m) => m.value.n);
        expect(ns).toEqual([...ns].sort((a, b) => a - b));
        expect(ns).toHaveLength(10);
      }
      // Committed: the group's next member gets nothing of it.
      await s.stop();
      const after = recorder();
      await subscribe("batches", [name], after.handler);
      await settle();
      expect(after.received).toEqual([]);
    });

    it("reports each batch handed to a handler and each committed to its observer: group, topic, partition, messages with their publish times, time taken and lag", async () => {
      const name = await topic("observed");
      const before = Date.now();
      for (let n = 0; n < 10; n++) await bus.publish(name, "card-a", event("card-a", n));
      const after = Date.now();
      const groupId = `${run}-observed`;
      const s = await bus.subscribe({ groupId, topics: [name], maxBatchSize: 4, batchHandler: async () => {} });
      subscriptions.push(s);
      const mine = () => committed.filter((b) => b.groupId === groupId);
      await waitFor(() => mine().reduce((n, b) => n + b.messages.length, 0) >= 10);
      const batches = mine();
      expect(batches.every((b) => b.messages.length <= 4)).toBe(true);
      expect(batches.flatMap((b) => b.messages.map((m) => (m.value as Event).n))).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
      const end = batches[0]!.messages[0]!.offset + 10;
      for (const batch of batches) {
        expect(batch).toMatchObject({ topic: name, partition: partitionFor("card-a", PARTITIONS) });
        expect(batch.handledMs).toBeGreaterThanOrEqual(0);
        // The partition's end offset minus the offset just committed.
        expect(batch.lag).toBe(end - (batch.messages.at(-1)!.offset + 1));
        for (const m of batch.messages) {
          expect(m.timestamp).toBeGreaterThanOrEqual(before);
          expect(m.timestamp).toBeLessThanOrEqual(after);
        }
      }
      expect(batches.at(-1)!.lag).toBe(0);
      expect(handed.filter((h) => h.groupId === groupId).map((h) => h.size)).toEqual(batches.map((b) => b.messages.length));
    });

    it("hands the batches its partitions bring while the handler is busy to it as one", async () => {
      const name = await topic("merged");
      const keys = Array.from({ length: 12 }, (_, i) => `card-${i}`);
      expect(new Set(keys.map((k) => partitionFor(k, PARTITIONS))).size).toBeGreaterThan(1);
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const batches: BusMessage<Event>[][] = [];
      const s = await bus.subscribe({
        groupId: `${run}-merged`,
        topics: [name],
        batchHandler: async (batch) => {
          batches.push(batch as BusMessage<Event>[]);
          if (batches.length === 1) await held;
        },
      });
      subscriptions.push(s);
      await bus.publish(name, keys[0]!, event(keys[0]!, 0));
      await waitFor(() => batches.length === 1);
      // While the first batch is in hand, every partition brings one of its own.
      for (let n = 1; n <= 24; n++) await bus.publish(name, keys[n % keys.length]!, event(keys[n % keys.length]!, n));
      release();
      await waitFor(() => batches.flat().length >= 25);
      expect(batches.some((b) => new Set(b.map((m) => m.partition)).size > 1)).toBe(true);
      // The observer is told of each round as its handler got it, merged.
      expect(handed.filter((h) => h.groupId === `${run}-merged`).map((h) => h.size)).toEqual(batches.map((b) => b.length));
      for (const key of keys) {
        const ns = batches.flat().filter((m) => m.key === key).map((m) => m.value.n);
        expect(ns).toEqual([...ns].sort((a, b) => a - b));
      }
    });

    it("delivers an uncommitted batch again, whole, before anything behind it", async () => {
      const name = await topic("batch-retry");
      for (let n = 0; n < 5; n++) await bus.publish(name, "one-card", event(`p-${n}`, n));
      const deliveries: number[][] = [];
      let failed = false;
      await bus
        .subscribe({
          groupId: `${run}-batch-retry`,
          topics: [name],
          batchHandler: async (batch) => {
            deliveries.push(batch.map((m) => (m.value as Event).n));
            if (!failed && batch.some((m) => (m.value as Event).n === 3)) {
              failed = true;
              throw new Error("database down in the middle of the batch");
            }
          },
        })
        .then((s) => subscriptions.push(s));
      await waitFor(() => deliveries.flat().filter((n) => n === 3).length === 2);
      const failedBatch = deliveries.find((d) => d.includes(3))!;
      const redelivered = deliveries[deliveries.indexOf(failedBatch) + 1]!;
      expect(redelivered[0]).toBe(failedBatch[0]);
      expect(redelivered).toEqual(expect.arrayContaining(failedBatch));
    });

    it("commits what a failed batch marked handled and delivers again only the rest", async () => {
      const name = await topic("partial-retry");
      for (let n = 0; n < 5; n++) await bus.publish(name, "one-card", event(`p-${n}`, n));
      const deliveries: number[][] = [];
      let failed = false;
      await bus
        .subscribe({
          groupId: `${run}-partial-retry`,
          topics: [name],
          batchHandler: async (batch, handled) => {
            deliveries.push(batch.map((m) => (m.value as Event).n));
            if (failed) return;
            for (const m of batch) {
              if ((m.value as Event).n === 3) {
                failed = true;
                throw new Error("database down at the fourth message");
              }
              handled(m);
            }
          },
        })
        .then((s) => subscriptions.push(s));
      await waitFor(() => deliveries.flat().filter((n) => n === 3).length === 2);
      const failedBatch = deliveries.find((d) => d.includes(3))!;
      const redelivered = deliveries[deliveries.indexOf(failedBatch) + 1]!;
      // The messages before the failure were committed: the next delivery starts at the one that failed.
      expect(redelivered[0]).toBe(3);
      expect(deliveries.flat().filter((n) => n < 3)).toEqual([0, 1, 2]);
    });

    it("dead-letters a poison message and commits the rest of its batch", async () => {
      const name = await topic("poison");
      await bus.createTopics([{ name: `${name}.dead-letter`, partitions: 1, schema: loadSchema("dead-letter") }]);
      created.push(`${name}.dead-letter`);
      for (let n = 0; n < 6; n++) await bus.publish(name, "one-card", event(`p-${n}`, n));
      const handled: number[] = [];
      const batches: number[] = [];
      const s = await bus.subscribe({
        groupId: `${run}-poison`,
        topics: [name],
        batchHandler: async (batch) => {
          batches.push(batch.length);
          for (const m of batch) {
            const e = m.value as Event;
            if (e.n === 2) await deadLetter(bus, { message: m, payload: e, reason: "n: 2 is poison", groupId: "poison", at: new Date() });
            else handled.push(e.n);
          }
        },
      });
      subscriptions.push(s);
      const letters = recorder();
      await subscribe("poison-letters", [`${name}.dead-letter`], letters.handler);
      await letters.until(1);
      await waitFor(() => handled.length >= 5);
      expect(handled).toEqual([0, 1, 3, 4, 5]);
      expect(letters.received[0]!.value).toMatchObject({ reason: "n: 2 is poison", offset: expect.any(Number) });
      await s.stop();
      const after = recorder();
      await subscribe("poison", [name], after.handler);
      await settle();
      expect(after.received).toEqual([]);
    });

    it("refuses a value that does not match the topic's schema, naming the fields", async () => {
      const name = await topic("schema");
      const err = await bus.publish(name, "k", { id: 7 }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BusValidationError);
      expect((err as Error).message).toMatch(/\bid: does not match/);
      expect((err as Error).message).toMatch(/\bn: does not match/);
    });

    it("fills a field's default and refuses topics it was not given", async () => {
      const name = await topic("defaults");
      const r = recorder();
      await subscribe("defaults", [name], r.handler);
      await bus.publish(name, "k", { id: "no-note", n: 1 });
      await r.until(1);
      expect(r.received[0]!.value).toEqual({ id: "no-note", n: 1, note: null });
      await expect(bus.publish(`contract-${run}-never-created`, "k", event("x", 1))).rejects.toBeInstanceOf(BusError);
    });
  });
}

async function waitFor(condition: () => boolean, ms = 20_000) {
  const until = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > until) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A moment for anything undelivered-but-wrong to show up before asserting on what arrived. */
const settle = () => new Promise((r) => setTimeout(r, 300));
