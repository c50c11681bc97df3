// The bus on Kafka: kafkajs for the broker, values Avro-encoded by a value codec (through a
// Confluent-compatible schema registry, or single-object encoded from the schema files), keys as
// UTF-8 strings hashed by the Java-compatible partitioner. Consumers take batches (eachBatch) and commit
// once per batch; concurrent publishes are coalesced into one sendBatch (acks=all) per linger.
import { Kafka, Partitioners, logLevel, type Admin, type ConsumerConfig, type Producer } from "kafkajs";
import { COMPATIBILITY, SchemaRegistry, SchemaType } from "@kafkajs/confluent-schema-registry";
import type { Logger } from "pino";
import { normalize } from "./avro.ts";
import { batchHandlerOf } from "./batch-runner.ts";
import { BusError, type AvroSchema, type Bus, type ConsumerObserver, type Published, type SubscribeOptions, type Subscription, type TopicSpec } from "./bus.ts";
import { CONSUMER_RETRY, joinGroup, type KafkaMembers } from "./kafka-consumer.ts";
import { kafkaLogCreator } from "./kafka-log.ts";
import { brokerNames, type BrokerNames } from "./kafka-names.ts";
import { PublishQueue } from "./kafka-producer.ts";
import { partitionFor } from "./partitioner.ts";
import { backoffMs } from "../backoff.ts";

/** How values become bytes on a topic and back. */
export interface ValueCodec {
  /** Makes `schema` the one new values of `topic` are written with. */
  register(topic: string, schema: AvroSchema): Promise<void>;
  encode(topic: string, value: unknown): Promise<Buffer>;
  /** Reads bytes written with any schema the codec knows for the topic. */
  decode(topic: string, bytes: Buffer): Promise<unknown>;
}

const subjectOf = (topic: string) => `${topic}-value`;

/** How long a publish waits for others to share its broker round trip, and the most per round trip. */
const LINGER_MS = 2;
const MAX_SEND_BATCH = 1_000;

/** How long createTopics waits for every partition of its topics to have a leader. */
const LEADER_WAIT_MS = 30_000;

/**
 * Several processes starting at once register a new subject's first version together. Confluent's registry
 * gives each the id; Apicurio 2.6 answers all but one 409 ("artifact … already exists"), and until the
 * winner has set BACKWARD on the subject it reports the default NONE, which the client refuses as a
 * compatibility mismatch. Registering again settles both, so these are retried a few times (~3 s in
 * all); an incompatible schema or a subject really set to another level still fails, after the retries.
 */
const REGISTER_ATTEMPTS = 6;
// The client's entry point does not export its error classes; their names are set from the class.
const lostFirstRegistrationRace = (err: unknown) =>
  err instanceof Error && (err.name === "ConfluentSchemaRegistryCompatibilityError" || (err as { status?: unknown }).status === 409);

/** Avro through a Confluent-compatible schema registry: the schema id travels in each message's header. */
export function registryCodec(url: string): ValueCodec {
  const registry = new SchemaRegistry({ host: url });
  const ids = new Map<string, number>();
  return {
    async register(topic, schema) {
      for (let attempt = 1; ; attempt++) {
        try {
          const { id } = await registry.register(
            { type: SchemaType.AVRO, schema: JSON.stringify(schema) },
            { subject: subjectOf(topic), compatibility: COMPATIBILITY.BACKWARD },
          );
          ids.set(topic, id);
          return;
        } catch (err) {
          if (attempt >= REGISTER_ATTEMPTS || !lostFirstRegistrationRace(err)) throw err;
          await new Promise((resolve) => setTimeout(resolve, backoffMs(attempt - 1, { capMs: Infinity })));
        }
      }
    },
    async encode(topic, value) {
      const id = ids.get(topic);
      if (id === undefined) throw new BusError(`${topic}: no schema registered`);
      return registry.encode(id, value);
    },
    decode: (_topic, bytes) => registry.decode(bytes),
  };
}

export interface KafkaBusOptions {
  brokers: string[];
  /** registryCodec(SCHEMA_REGISTRY_URL), else singleObjectCodec() — the same in every role. */
  codec: ValueCodec;
  /**
   * Prefixes every topic and consumer group on the broker (`<namespace>.<name>`), so several
   * deployments or test runs can share a cluster; the bus's users still see the plain topic names.
   */
  namespace?: string;
  /** Consumer group timings (kafkajs defaults otherwise). */
  consumer?: Pick<ConsumerConfig, "sessionTimeout" | "rebalanceTimeout" | "heartbeatInterval" | "maxWaitTimeInMs">;
  clientId?: string;
  /**
   * How many partitions a consumer handles at once (default 4). Order is kept within a partition —
   * and so per key — whatever this is; it only lets different keys proceed side by side.
   */
  partitionConcurrency?: number;
  log?: Logger;
  /** Producer coalescing: how long a publish waits for company (ms, default 2) and the most per send. */
  linger?: { ms?: number; maxMessages?: number };
  /** Service time, for the timestamps of dead letters. */
  now: () => Date;
  /** Told of every batch a consumer commits (metrics). */
  observer?: ConsumerObserver;
}

/** A topic the bus created and registered the schema of: what its publishes are checked and hashed with. */
interface KnownTopic {
  schema: AvroSchema;
  partitions: number;
}

/** What the Kafka bus's parts share: the broker names, the topics it knows, its clients and its members. */
interface KafkaState {
  options: KafkaBusOptions;
  names: BrokerNames;
  known: Map<string, KnownTopic>;
  producer: Producer;
  admin: Admin;
  /** The producer's and the admin client's connection, made on first use. */
  connected?: Promise<void>;
  sends: PublishQueue;
  members: KafkaMembers;
}

export function createKafkaBus(options: KafkaBusOptions): Bus {
  const client = { clientId: options.clientId ?? "cardlink", brokers: options.brokers, logLevel: logLevel.WARN, logCreator: kafkaLogCreator(options.log) };
  // The producer and admin keep kafkajs's retries (a publish the broker does not take fails within
  // seconds, and its caller decides); the consumers get a client of their own that outlasts a restart.
  const kafka = new Kafka(client);
  const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner, allowAutoTopicCreation: false });
  const names = brokerNames(options.namespace);
  const known = new Map<string, KnownTopic>();
  const bus: Bus = {
    kind: "kafka",
    createTopics: (specs) => createTopics(state, specs),
    publish: (topic, key, value) => publish(state, topic, key, value),
    subscribe: (subscribeOptions) => subscribe(state, subscribeOptions),
    lag: (groupId, topics) => lag(state, groupId, topics),
    close: () => close(state),
  };
  const state: KafkaState = {
    options,
    names,
    known,
    producer,
    admin: kafka.admin(),
    sends: new PublishQueue({ connect: () => connect(state), producer, names, lingerMs: options.linger?.ms ?? LINGER_MS, maxSend: options.linger?.maxMessages ?? MAX_SEND_BATCH }),
    members: {
      kafka: new Kafka({ ...client, retry: CONSUMER_RETRY }),
      names,
      timings: options.consumer,
      partitionConcurrency: options.partitionConcurrency ?? 4,
      decode: (topic, bytes) => options.codec.decode(topic, bytes),
      subscriber: { bus, hasTopic: (name) => known.has(name), now: options.now, log: options.log, observer: options.observer },
      subscriptions: new Set(),
    },
  };
  return bus;
}

function connect(state: KafkaState): Promise<void> {
  return (state.connected ??= Promise.all([state.producer.connect(), state.admin.connect()]).then(() => undefined));
}

function knownTopic({ known }: KafkaState, topic: string): KnownTopic {
  const entry = known.get(topic);
  if (!entry) throw new BusError(`unknown topic ${topic}: create it (with its schema) first`);
  return entry;
}

async function publish(state: KafkaState, topic: string, key: string, value: unknown): Promise<Published> {
  const { schema, partitions } = knownTopic(state, topic);
  const encoded = await state.options.codec.encode(topic, normalize(topic, schema, value));
  return state.sends.enqueue(topic, partitionFor(key, partitions), key, encoded);
}

async function subscribe(state: KafkaState, options: SubscribeOptions): Promise<Subscription> {
  const handler = batchHandlerOf(options, state.options.observer);
  if (options.topics.length === 0) throw new BusError("subscribe: give at least one topic");
  for (const topic of options.topics) knownTopic(state, topic);
  return joinGroup(state.members, options, handler);
}

/** Two reads of the admin client: the group's committed offsets and the topics' end offsets. */
async function lag(state: KafkaState, groupId: string, topics: string[]): Promise<number> {
  await connect(state);
  const { admin, names } = state;
  const [committed, ends] = await Promise.all([
    admin.fetchOffsets({ groupId: names.onBroker(groupId), topics: topics.map((t) => names.onBroker(t)) }),
    Promise.all(topics.map((t) => admin.fetchTopicOffsets(names.onBroker(t)))),
  ]);
  let behind = 0;
  topics.forEach((topic, i) => {
    const done = new Map((committed.find((c) => c.topic === names.onBroker(topic))?.partitions ?? []).map((p) => [p.partition, Number(p.offset)]));
    for (const end of ends[i]!) {
      const from = done.get(end.partition) ?? -1;
      behind += Number(end.high) - (from >= 0 ? from : Number(end.low));
    }
  });
  return behind;
}

async function createTopics(state: KafkaState, specs: TopicSpec[]): Promise<void> {
  for (const spec of specs) {
    if (!Number.isInteger(spec.partitions) || spec.partitions < 1) {
      throw new BusError(`${spec.name}: partitions must be a whole number of at least 1`);
    }
  }
  await connect(state);
  const names = specs.map((s) => state.names.onBroker(s.name));
  // kafkajs's own waitForLeaders gives up when the metadata of a topic just created says it does not
  // exist yet (UNKNOWN_TOPIC_OR_PARTITION); waiting here for leaders rides that out.
  await state.admin.createTopics({
    topics: specs.map((s, i) => ({
      topic: names[i]!,
      numPartitions: s.partitions,
      ...(s.compacted ? { configEntries: [{ name: "cleanup.policy", value: "compact" }] } : {}),
    })),
    waitForLeaders: false,
  });
  const partitions = await waitForLeaders(state, names);
  for (const spec of specs) {
    await state.options.codec.register(spec.name, spec.schema);
    state.known.set(spec.name, { schema: spec.schema, partitions: partitions.get(spec.name)! });
  }
}

/** Waits until every partition of the topics has a leader; resolves with each topic's partition count. */
async function waitForLeaders({ admin, names }: KafkaState, topics: string[]): Promise<Map<string, number>> {
  const deadline = performance.now() + LEADER_WAIT_MS;
  for (;;) {
    let problem: unknown;
    try {
      const { topics: found } = await admin.fetchTopicMetadata({ topics });
      if (found.length === topics.length && found.every((t) => t.partitions.length > 0 && t.partitions.every((p) => p.leader >= 0))) {
        return new Map(found.map((t) => [names.fromBroker(t.name), t.partitions.length]));
      }
    } catch (err) {
      problem = err;
    }
    if (performance.now() > deadline) {
      const reason = problem instanceof Error ? `: ${problem.message}` : "";
      throw new BusError(`topics ${topics.join(", ")} have no partition leaders after ${LEADER_WAIT_MS / 1000} s${reason}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Stops every member (each commits the batch in hand), sends what is waiting, then disconnects. */
async function close(state: KafkaState): Promise<void> {
  await Promise.all([...state.members.subscriptions].map((s) => s.stop()));
  await state.sends.drain();
  if (state.connected) {
    await state.connected.catch(() => undefined);
    await Promise.all([state.producer.disconnect(), state.admin.disconnect()]);
  }
}
