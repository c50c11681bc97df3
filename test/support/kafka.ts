// The real Kafka bus for tests: single-object encoded values (or the codec given), a namespace of its own (so test files
// running side by side never share a topic or a consumer group, the qualifier's included), short fetch
// waits (a consumer leaves its group only after its fetch in flight returns), and its topics deleted
// from the broker when it is dropped.
import { randomUUID } from "node:crypto";
import { Kafka, logLevel } from "kafkajs";
import type { Bus, ConsumerObserver } from "../../src/platform/bus/bus.ts";
import { createKafkaBus, type KafkaBusOptions, type ValueCodec } from "../../src/platform/bus/kafka.ts";
import { singleObjectCodec } from "../../src/platform/bus/single-object-codec.ts";
import { infra } from "./infra.ts";

/** Fetches return at once when a message arrives; when none does, this bounds how long a stop waits. */
export const TEST_CONSUMER: KafkaBusOptions["consumer"] = { maxWaitTimeInMs: 200 };

export interface TestKafkaBus {
  bus: Bus;
  namespace: string;
  /** Closes the bus and deletes its namespace's topics. */
  drop(): Promise<void>;
}

/** `label` starts the namespace's name; `codec` is single-object encoding unless given. */
export function createTestKafkaBus(
  now: () => Date,
  { label = "test", codec, observer }: { label?: string; codec?: ValueCodec; observer?: ConsumerObserver } = {},
): TestKafkaBus {
  const brokers = infra.kafkaBrokers!.split(",");
  const namespace = `${label}-${randomUUID().slice(0, 8)}`;
  const bus = createKafkaBus({
    brokers,
    codec: codec ?? singleObjectCodec(),
    namespace,
    consumer: TEST_CONSUMER,
    clientId: `cardlink-${namespace}`,
    now,
    ...(observer ? { observer } : {}),
  });
  return {
    bus,
    namespace,
    async drop() {
      await bus.close();
      await deleteNamespace(namespace);
    },
  };
}

/** Deletes the namespace's topics from the broker (a bus of its own, or roles run with KAFKA_NAMESPACE). */
export async function deleteNamespace(namespace: string): Promise<void> {
  const admin = new Kafka({ brokers: infra.kafkaBrokers!.split(","), logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const topics = (await admin.listTopics()).filter((t) => t.startsWith(`${namespace}.`));
    if (topics.length) await admin.deleteTopics({ topics });
  } finally {
    await admin.disconnect();
  }
}
