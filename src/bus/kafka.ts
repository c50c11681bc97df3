// The bus on Kafka: kafkajs for the broker, values Avro-encoded by a value codec (through a
// Confluent-compatible schema registry, or single-object encoded from the schema files), keys as
// UTF-8 strings hashed by the Java-compatible partitioner, offsets committed after each handled message.
import { Kafka, Partitioners, logLevel, type Consumer, type ConsumerConfig, type EachMessagePayload, type LogEntry } from "kafkajs";
import { COMPATIBILITY, SchemaRegistry, SchemaType } from "@kafkajs/confluent-schema-registry";
import type { Logger } from "pino";
import { abortableSleep } from "./abortable-sleep.ts";
import { normalize, type AvroSchema } from "./avro.ts";
import { BusError, retryDelayMs, type Bus, type BusMessage, type Published, type SubscribeOptions, type Subscription, type TopicSpec } from "./bus.ts";
import { deadLetter, deadLetterTopic } from "./dead-letter.ts";

/** How values become bytes on a topic and back. */
export interface ValueCodec {
  /** Makes `schema` the one new values of `topic` are written with. */
  register(topic: string, schema: AvroSchema): Promise<void>;
  encode(topic: string, value: unknown): Promise<Buffer>;
  /** Reads bytes written with any schema the codec knows for the topic. */
  decode(topic: string, bytes: Buffer): Promise<unknown>;
}

const subjectOf = (topic: string) => `${topic}-value`;

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
          await new Promise((resolve) => setTimeout(resolve, 100 * 2 ** (attempt - 1)));
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
  /** Service time, for the timestamps of dead letters. */
  now: () => Date;
}

export function createKafkaBus(options: KafkaBusOptions): Bus {
  const log = options.log;
  const kafka = new Kafka({
    clientId: options.clientId ?? "cardlink",
    brokers: options.brokers,
    logLevel: logLevel.WARN,
    logCreator: () => (entry: LogEntry) => {
      const level = entry.level <= logLevel.ERROR ? "error" : "warn";
      log?.[level]({ kafka: entry.namespace, ...entry.log }, entry.log.message);
    },
  });
  const codec = options.codec;
  const prefix = options.namespace ? `${options.namespace}.` : "";
  const onBroker = (name: string) => prefix + name;
  const fromBroker = (topic: string) => topic.slice(prefix.length);
  const registered = new Map<string, AvroSchema>();
  const subscriptions = new Set<Subscription>();
  const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner, allowAutoTopicCreation: false });
  const admin = kafka.admin();
  let connected: Promise<void> | undefined;
  const connect = () => (connected ??= Promise.all([producer.connect(), admin.connect()]).then(() => undefined));

  const schemaOf = (topic: string) => {
    const entry = registered.get(topic);
    if (!entry) throw new BusError(`unknown topic ${topic}: create it (with its schema) first`);
    return entry;
  };

  async function publish(topic: string, key: string, value: unknown): Promise<Published> {
    const encoded = await codec.encode(topic, normalize(topic, schemaOf(topic), value));
    await connect();
    const [meta] = await producer.send({ topic: onBroker(topic), acks: -1, messages: [{ key, value: encoded }] });
    if (!meta) throw new BusError(`${topic}: the broker did not acknowledge the message`);
    return { topic, partition: meta.partition, offset: Number(meta.baseOffset) };
  }

  async function subscribe({ groupId, topics, handler }: SubscribeOptions): Promise<Subscription> {
    if (topics.length === 0) throw new BusError("subscribe: give at least one topic");
    for (const topic of topics) schemaOf(topic);
    const consumer: Consumer = kafka.consumer({ ...options.consumer, groupId: onBroker(groupId), allowAutoTopicCreation: false });
    const stopping = new AbortController();
    const inFlight = new Set<Promise<void>>();
    await consumer.connect();
    await consumer.subscribe({ topics: topics.map(onBroker), fromBeginning: true });
    const joined = new Promise<void>((resolve) => {
      const off = consumer.on(consumer.events.GROUP_JOIN, () => {
        off();
        resolve();
      });
    });
    async function handle({ topic: brokerTopic, partition, message, heartbeat }: EachMessagePayload): Promise<void> {
      const topic = fromBroker(brokerTopic);
      const offset = Number(message.offset);
      const key = message.key?.toString("utf8") ?? "";
      let value: unknown;
      try {
        value = await codec.decode(topic, message.value ?? Buffer.alloc(0));
      } catch (err) {
        // Bytes no schema can read will never succeed: set them aside and go on.
        const reason = `undecodable value: ${err instanceof Error ? err.message : String(err)}`;
        log?.error({ groupId, topic, partition, offset, reason }, "dead-lettering a message");
        if (registered.has(deadLetterTopic(topic))) {
          await deadLetter(bus, { message: { topic, partition, offset, key }, payload: message.value, reason, groupId, at: options.now() });
        }
        await consumer.commitOffsets([{ topic: brokerTopic, partition, offset: String(offset + 1) }]);
        return;
      }
      const delivered: BusMessage = { topic, partition, offset, key, value };
      for (let attempt = 0; ; attempt++) {
        try {
          await handler(delivered);
          break;
        } catch (err) {
          if (stopping.signal.aborted) throw err; // left uncommitted for the next member
          log?.warn({ err, groupId, topic, partition, offset, attempt }, "handler failed; the message will be delivered again");
          await abortableSleep(retryDelayMs(attempt), stopping.signal);
          if (stopping.signal.aborted) throw err;
          await heartbeat();
        }
      }
      await consumer.commitOffsets([{ topic: brokerTopic, partition, offset: String(offset + 1) }]);
    }
    await consumer.run({
      autoCommit: false,
      partitionsConsumedConcurrently: options.partitionConcurrency ?? 4,
      eachMessage: (payload) => {
        // stop() waits for the messages in hand, so their commits are not lost to the disconnect.
        const handled = handle(payload);
        const settled = handled.catch(() => undefined).finally(() => inFlight.delete(settled));
        inFlight.add(settled);
        return handled;
      },
    });
    await joined;
    let stopped: Promise<void> | undefined;
    const subscription: Subscription = {
      groupId,
      stop() {
        stopped ??= (async () => {
          stopping.abort();
          await Promise.all(inFlight);
          subscriptions.delete(subscription);
          await consumer.disconnect();
        })();
        return stopped;
      },
    };
    subscriptions.add(subscription);
    return subscription;
  }

  async function waitForLeaders(topics: string[]): Promise<void> {
    const deadline = performance.now() + LEADER_WAIT_MS;
    for (;;) {
      let problem: unknown;
      try {
        const { topics: found } = await admin.fetchTopicMetadata({ topics });
        if (found.length === topics.length && found.every((t) => t.partitions.length > 0 && t.partitions.every((p) => p.leader >= 0))) return;
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

  const bus: Bus = {
    kind: "kafka",
    async createTopics(specs: TopicSpec[]) {
      for (const spec of specs) {
        if (!Number.isInteger(spec.partitions) || spec.partitions < 1) {
          throw new BusError(`${spec.name}: partitions must be a whole number of at least 1`);
        }
      }
      await connect();
      const names = specs.map((s) => onBroker(s.name));
      // kafkajs's own waitForLeaders gives up when the metadata of a topic just created says it does not
      // exist yet (UNKNOWN_TOPIC_OR_PARTITION); waiting here for leaders rides that out.
      await admin.createTopics({ topics: specs.map((s, i) => ({ topic: names[i]!, numPartitions: s.partitions })), waitForLeaders: false });
      await waitForLeaders(names);
      for (const spec of specs) {
        await codec.register(spec.name, spec.schema);
        registered.set(spec.name, spec.schema);
      }
    },
    publish,
    subscribe,
    async close() {
      await Promise.all([...subscriptions].map((s) => s.stop()));
      if (connected) {
        await connected.catch(() => undefined);
        await Promise.all([producer.disconnect(), admin.disconnect()]);
      }
    },
  };
  return bus;
}
