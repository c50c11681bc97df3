// The bus on Kafka: kafkajs for the broker, values Avro-encoded by a value codec (through a
// Confluent-compatible schema registry, or single-object encoded from the schema files), keys as
// UTF-8 strings hashed by the Java-compatible partitioner. Consumers take batches (eachBatch) and commit
// once per batch; concurrent publishes are coalesced into one sendBatch (acks=all) per linger.
import { Kafka, Partitioners, logLevel, type Consumer, type ConsumerConfig, type EachBatchPayload, type LogEntry, type Message } from "kafkajs";
import { COMPATIBILITY, SchemaRegistry, SchemaType } from "@kafkajs/confluent-schema-registry";
import type { Logger } from "pino";
import { handOver } from "./hand-over.ts";
import { normalize } from "./avro.ts";
import type { AvroSchema } from "./bus.ts";
import { BusError, DEFAULT_MAX_BATCH, batchHandlerOf, type Bus, type BusMessage, type ConsumerObserver, type Published, type SubscribeOptions, type Subscription, type TopicSpec } from "./bus.ts";
import { partitionFor } from "./partitioner.ts";
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

/** How long a publish waits for others to share its broker round trip, and the most per round trip. */
const LINGER_MS = 2;
const MAX_SEND_BATCH = 1_000;

/**
 * How a consumer rides out a broker that is gone: its fetch loop and its connection retry with backoff
 * (0.3 s doubling to 2 s) for about two and a half minutes, keeping its member id and partitions, and
 * resume where they stopped when the broker is back. Only past that does kafkajs crash the consumer and
 * restart it, which rejoins the group. (kafkajs gave up at once when no broker was available;
 * patches/kafkajs+2.2.4.patch makes that retried too.)
 */
const CONSUMER_RETRY = { initialRetryTime: 300, maxRetryTime: 2_000, retries: 75 };

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
  /** Producer coalescing: how long a publish waits for company (ms, default 2) and the most per send. */
  linger?: { ms?: number; maxMessages?: number };
  /** Service time, for the timestamps of dead letters. */
  now: () => Date;
  /** Told of every batch a consumer commits (metrics). */
  observer?: ConsumerObserver;
}

// kafkajs logs a group rebalance and every failed connection attempt as an error. A rebalance is the
// group working as designed (a replica joined or left): info. A broker that cannot be reached is reported
// once, as a warning, by the bus's health watch (src/health), and again when it is back; kafkajs's own
// line per attempt is kept at debug. A consumer crash stays an error, whatever caused it, and its restart
// a warning.
const REBALANCE = /rebalanc|re-joining|group coordinator|not coordinator|member id|generation/i;
const CONNECTION = /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|connection (error|timeout|closed|refused)|broker not connected|closed connection|disconnected|leadership election|not (the )?leader|there is no leader/i;

/** The pino level of one kafkajs log entry. */
export function kafkaLogLevel(entry: Pick<LogEntry, "level" | "log">): "error" | "warn" | "info" | "debug" {
  const text = `${entry.log.message} ${String(entry.log.error ?? "")} ${String(entry.log.stack ?? "")}`;
  // A consumer that crashed (and is restarted, rejoining its group) is always worth a line, whatever the cause.
  if (entry.log.message.startsWith("Crash:")) return "error";
  if (entry.log.message.startsWith("Restarting the consumer")) return "warn";
  // Creating topics that exist already (every start after the first) is answered with per-topic errors.
  if (entry.log.message.startsWith("Response CreateTopics") && entry.log.error === "Topic creation errors") return "debug";
  if (REBALANCE.test(text)) return "info";
  if (CONNECTION.test(text)) return "debug";
  return entry.level <= logLevel.ERROR ? "error" : "warn";
}

/** Group errors that a member answers by joining the group again (kafkajs's runner does, given one). */
const REJOIN = new Set(["UNKNOWN_MEMBER_ID", "REBALANCE_IN_PROGRESS", "ILLEGAL_GENERATION", "NOT_COORDINATOR", "COORDINATOR_NOT_AVAILABLE"]);

/**
 * A commit refused because the group moved on (a rebalance, or this member's session lapsed while the
 * broker was away) comes back from kafkajs wrapped as non-retriable, which would crash the consumer for
 * good. Its cause makes the runner join the group again instead; the uncommitted batch goes to whichever
 * member gets the partition, and the handlers are idempotent.
 */
function groupCause(err: unknown): unknown {
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    if (REJOIN.has(String((e as { type?: unknown }).type))) return e;
  }
  return err;
}

export function createKafkaBus(options: KafkaBusOptions): Bus {
  const log = options.log;
  const client = {
    clientId: options.clientId ?? "cardlink",
    brokers: options.brokers,
    logLevel: logLevel.WARN,
    logCreator: () => (entry: LogEntry) => log?.[kafkaLogLevel(entry)]({ kafka: entry.namespace, ...entry.log }, entry.log.message),
  };
  // The producer and admin keep kafkajs's retries (a publish the broker does not take fails within
  // seconds, and its caller decides); the consumers get a client of their own that outlasts a restart.
  const kafka = new Kafka(client);
  const consumerKafka = new Kafka({ ...client, retry: CONSUMER_RETRY });
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

  // Publishes waiting for the next send: one sendBatch at a time (so per-key order holds), collecting
  // what arrives during the linger and while the previous send is in flight, at most maxMessages each.
  interface Pending {
    topic: string;
    partition: number;
    message: Message;
    resolve: (p: Published) => void;
    reject: (err: unknown) => void;
  }
  const lingerMs = options.linger?.ms ?? LINGER_MS;
  const maxSend = options.linger?.maxMessages ?? MAX_SEND_BATCH;
  const pending: Pending[] = [];
  let sending = false;
  let timer: NodeJS.Timeout | undefined;
  const partitionCounts = new Map<string, number>();

  function schedule() {
    if (sending || timer) return;
    if (pending.length >= maxSend) void flush();
    else timer = setTimeout(() => void flush(), lingerMs);
  }

  async function flush() {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (sending || pending.length === 0) return;
    sending = true;
    const batch = pending.splice(0, maxSend);
    try {
      const byTopic = new Map<string, Message[]>();
      for (const p of batch) {
        const list = byTopic.get(p.topic) ?? [];
        list.push(p.message);
        byTopic.set(p.topic, list);
      }
      await connect();
      const meta = await producer.sendBatch({ acks: -1, topicMessages: [...byTopic].map(([topic, messages]) => ({ topic: onBroker(topic), messages })) });
      // A partition's messages of one request get consecutive offsets from its base offset, in request order.
      const next = new Map(meta.map((m) => [`${fromBroker(m.topicName)}\u0000${m.partition}`, Number(m.baseOffset)]));
      for (const p of batch) {
        const k = `${p.topic}\u0000${p.partition}`;
        const offset = next.get(k);
        if (offset === undefined) {
          p.reject(new BusError(`${p.topic}: the broker did not acknowledge the message`));
          continue;
        }
        next.set(k, offset + 1);
        p.resolve({ topic: p.topic, partition: p.partition, offset });
      }
    } catch (err) {
      for (const p of batch) p.reject(err);
    } finally {
      sending = false;
      if (pending.length > 0) schedule();
    }
  }

  async function publish(topic: string, key: string, value: unknown): Promise<Published> {
    const encoded = await codec.encode(topic, normalize(topic, schemaOf(topic), value));
    const partition = partitionFor(key, partitionCounts.get(topic)!);
    return new Promise<Published>((resolve, reject) => {
      pending.push({ topic, partition, message: { key, value: encoded, partition }, resolve, reject });
      schedule();
    });
  }

  async function subscribe(subscribeOptions: SubscribeOptions): Promise<Subscription> {
    const { groupId, topics } = subscribeOptions;
    const handler = batchHandlerOf(subscribeOptions, options.observer);
    const maxBatch = subscribeOptions.maxBatchSize ?? DEFAULT_MAX_BATCH;
    if (topics.length === 0) throw new BusError("subscribe: give at least one topic");
    for (const topic of topics) schemaOf(topic);
    const consumer: Consumer = consumerKafka.consumer({ ...options.consumer, groupId: onBroker(groupId), allowAutoTopicCreation: false, retry: CONSUMER_RETRY });
    const stopping = new AbortController();
    const inFlight = new Set<Promise<void>>();
    await consumer.connect();
    await consumer.subscribe({ topics: topics.map(onBroker), fromBeginning: true });
    // kafkajs restarts a consumer that crashed on a retriable error; one it will not restart has stopped
    // for good while the process lives on, so that is fatal (the role exits 1 and its supervisor restarts it).
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      if (payload.restart || stopping.signal.aborted) return;
      const err = new BusError(`the ${groupId} consumer stopped and kafkajs will not restart it: ${payload.error.message}`, { cause: payload.error });
      setImmediate(() => {
        throw err;
      });
    });
    const joined = new Promise<void>((resolve) => {
      const off = consumer.on(consumer.events.GROUP_JOIN, () => {
        off();
        resolve();
      });
    });

    /** Decodes a fetched message; bytes no schema can read are dead-lettered (null), never retried. */
    async function decoded(topic: string, partition: number, raw: EachBatchPayload["batch"]["messages"][number]): Promise<BusMessage | null> {
      const offset = Number(raw.offset);
      const key = raw.key?.toString("utf8") ?? "";
      try {
        // The message's CreateTime: the producer's real clock when it was sent (metrics).
        const timestamp = Number(raw.timestamp);
        const value = await codec.decode(topic, raw.value ?? Buffer.alloc(0));
        return { topic, partition, offset, key, value, ...(timestamp > 0 ? { timestamp } : {}) };
      } catch (err) {
        const reason = `undecodable value: ${err instanceof Error ? err.message : String(err)}`;
        log?.error({ groupId, topic, partition, offset, reason }, "dead-lettering a message");
        if (registered.has(deadLetterTopic(topic))) {
          await deadLetter(bus, { message: { topic, partition, offset, key }, payload: raw.value, reason, groupId, at: options.now() });
        }
        return null;
      }
    }

    async function handleBatch({ batch, resolveOffset, heartbeat, isRunning, isStale }: EachBatchPayload): Promise<void> {
      const brokerTopic = batch.topic;
      const topic = fromBroker(brokerTopic);
      const partition = batch.partition;
      const commit = async (offset: number) => {
        resolveOffset(String(offset));
        try {
          await consumer.commitOffsets([{ topic: brokerTopic, partition, offset: String(offset + 1) }]);
        } catch (err) {
          throw groupCause(err);
        }
      };
      for (let start = 0; start < batch.messages.length; start += maxBatch) {
        if (stopping.signal.aborted || !isRunning() || isStale()) return;
        const raws = batch.messages.slice(start, start + maxBatch);
        const lastOffset = Number(raws[raws.length - 1]!.offset);
        const receivedMs = performance.now();
        const received = (await Promise.all(raws.map((raw) => decoded(topic, partition, raw)))).filter((m): m is BusMessage => m !== null);
        const handed = await handOver(received, {
          handler,
          commitThrough: commit,
          signal: stopping.signal,
          onFailure: (err, offset, attempt) => log?.warn({ err, groupId, topic, partition, offset, attempt }, "handler failed; the batch will be delivered again"),
          beforeRetry: heartbeat,
        });
        if (!handed.taken) throw handed.error; // stopped: the rest is left uncommitted for the next member
        await commit(lastOffset);
        options.observer?.committed({ groupId, topic, partition, messages: received, handledMs: performance.now() - receivedMs, lag: Math.max(0, Number(batch.highWatermark) - lastOffset - 1) });
        await heartbeat();
      }
    }
    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: options.partitionConcurrency ?? 4,
      eachBatch: (payload) => {
        // stop() waits for the batches in hand, so their commits are not lost to the disconnect.
        const handled = handleBatch(payload);
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
        if (found.length === topics.length && found.every((t) => t.partitions.length > 0 && t.partitions.every((p) => p.leader >= 0))) {
          for (const t of found) partitionCounts.set(fromBroker(t.name), t.partitions.length);
          return;
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
      await admin.createTopics({
        topics: specs.map((s, i) => ({
          topic: names[i]!,
          numPartitions: s.partitions,
          ...(s.compacted ? { configEntries: [{ name: "cleanup.policy", value: "compact" }] } : {}),
        })),
        waitForLeaders: false,
      });
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
      while (sending || pending.length > 0) await flush().then(() => new Promise((resolve) => setTimeout(resolve, 1)));
      if (connected) {
        await connected.catch(() => undefined);
        await Promise.all([producer.disconnect(), admin.disconnect()]);
      }
    },
  };
  return bus;
}
