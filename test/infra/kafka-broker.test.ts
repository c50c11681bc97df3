// Proves the real Kafka broker behaves as the bus relies on: keyed messages keep their partition and
// order, and a consumer group resumes from the offsets it committed.
import { randomUUID } from "node:crypto";
import { Kafka, Partitioners, logLevel } from "kafkajs";
import type { Admin, Consumer, EachMessagePayload } from "kafkajs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { haveInfra, infra } from "../support/infra.ts";

describe.skipIf(!haveInfra("kafkaBrokers"))("Kafka broker (real server)", () => {
  const run = randomUUID();
  const topic = `cardlink-it-broker-${run}`;
  const groupId = `cardlink-it-${run}`;
  const kafka = new Kafka({
    clientId: "cardlink-integration-test",
    brokers: (infra.kafkaBrokers ?? "").split(","),
    logLevel: logLevel.ERROR,
  });
  let admin: Admin;
  const consumers: Consumer[] = [];

  /** Consume until `count` messages arrived (or fail after a minute), then stop and disconnect. */
  async function consume(count: number): Promise<EachMessagePayload[]> {
    const consumer = kafka.consumer({ groupId });
    consumers.push(consumer);
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    const got: EachMessagePayload[] = [];
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`received ${got.length} of ${count}`)), 60_000);
      void consumer.run({
        eachMessage: async (payload) => {
          got.push(payload);
          if (got.length === count) {
            clearTimeout(timer);
            resolve();
          }
        },
      });
    });
    await consumer.disconnect(); // commits the offsets of everything handed to eachMessage
    return got;
  }

  beforeAll(async () => {
    admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic, numPartitions: 3 }], waitForLeaders: true });
  });

  afterAll(async () => {
    for (const c of consumers) await c.disconnect().catch(() => undefined);
    await admin?.deleteTopics({ topics: [topic] }).catch(() => undefined);
    await admin?.disconnect();
  });

  it("keeps each key on one partition, in order, and resumes a group from its committed offsets", async () => {
    const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
    const cards = ["card-a", "card-b", "card-c", "card-d"];
    const first = cards.flatMap((card) => [1, 2, 3].map((n) => ({ key: card, value: `${card}:${n}` })));
    await producer.send({ topic, messages: first });

    const batch1 = await consume(first.length);
    expect(batch1.map((m) => m.message.value!.toString()).sort()).toEqual(first.map((m) => m.value).sort());
    for (const card of cards) {
      const mine = batch1.filter((m) => m.message.key!.toString() === card);
      expect(new Set(mine.map((m) => m.partition)).size).toBe(1);
      expect(mine.map((m) => m.message.value!.toString())).toEqual([1, 2, 3].map((n) => `${card}:${n}`));
    }

    // The group committed its offsets: a new member of the same group sees only what came after.
    const second = [{ key: "card-a", value: "card-a:4" }, { key: "card-e", value: "card-e:1" }];
    await producer.send({ topic, messages: second });
    await producer.disconnect();
    const batch2 = await consume(second.length);
    expect(batch2.map((m) => m.message.value!.toString()).sort()).toEqual(["card-a:4", "card-e:1"]);

    const offsets = await admin.fetchOffsets({ groupId, topics: [topic] });
    // A partition the group never read from reports offset -1.
    const committed = offsets[0]!.partitions.reduce((sum, p) => sum + Math.max(0, Number(p.offset)), 0);
    expect(committed).toBe(first.length + second.length);
  }, 120_000);
});
