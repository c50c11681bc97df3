// A consumer group member on Kafka. kafkajs fetches batches (eachBatch) of the partitions the group
// assigns the member; each partition's fetch goes through the shared batch runner in slices of at most
// maxBatchSize, committed once a slice. The member rides out a broker restart, and on stop finishes the
// slice in hand, commits it and leaves the group.
import type { Consumer, ConsumerConfig, EachBatchPayload, Kafka, KafkaMessage } from "kafkajs";
import { Malformed, runBatch, type Decoded, type Subscriber } from "./batch-runner.ts";
import { BusError, DEFAULT_MAX_BATCH, type BatchHandler, type SubscribeOptions, type Subscription } from "./bus.ts";
import type { BrokerNames } from "./kafka-names.ts";

/**
 * How a consumer rides out a broker that is gone: its fetch loop and its connection retry with backoff
 * (0.3 s doubling to 2 s) for about two and a half minutes, keeping its member id and partitions, and
 * resume where they stopped when the broker is back. Only past that does kafkajs crash the consumer and
 * restart it, which rejoins the group. (patches/kafkajs+2.2.4.patch makes kafkajs retry when no broker
 * is available too, instead of giving up at once.)
 */
export const CONSUMER_RETRY = { initialRetryTime: 300, maxRetryTime: 2_000, retries: 75 };

/** What every member of a Kafka bus shares. */
export interface KafkaMembers {
  /** The consumers' client, built with CONSUMER_RETRY. */
  kafka: Kafka;
  names: BrokerNames;
  /** Consumer group timings (kafkajs defaults otherwise). */
  timings: Pick<ConsumerConfig, "sessionTimeout" | "rebalanceTimeout" | "heartbeatInterval" | "maxWaitTimeInMs"> | undefined;
  /** How many partitions a member handles at once. */
  partitionConcurrency: number;
  decode(topic: string, bytes: Buffer): Promise<unknown>;
  /** The runner's view of a member, but for its group and handler. */
  subscriber: Omit<Subscriber, "groupId" | "handler">;
  /** The bus's members that have not stopped: it stops them on close. */
  subscriptions: Set<Subscription>;
}

/** One member: its kafkajs consumer, its runner's view, and the slices in hand that stop() waits for. */
interface Member {
  consumer: Consumer;
  subscriber: Subscriber;
  maxBatch: number;
  stopping: AbortController;
  inFlight: Set<Promise<void>>;
  stopped?: Promise<void>;
}

/** Joins `options.groupId` on `options.topics` (checked by the bus); resolves once the member is in the group. */
export async function joinGroup(members: KafkaMembers, options: SubscribeOptions, handler: BatchHandler): Promise<Subscription> {
  const { groupId, topics } = options;
  const consumer = members.kafka.consumer({ ...members.timings, groupId: members.names.onBroker(groupId), allowAutoTopicCreation: false, retry: CONSUMER_RETRY });
  const member: Member = {
    consumer,
    subscriber: { ...members.subscriber, groupId, handler },
    maxBatch: options.maxBatchSize ?? DEFAULT_MAX_BATCH,
    stopping: new AbortController(),
    inFlight: new Set(),
  };
  await consumer.connect();
  await consumer.subscribe({ topics: topics.map(members.names.onBroker), fromBeginning: true });
  failOnFinalCrash(member, groupId);
  const joined = joinedOnce(consumer);
  await consumer.run({
    autoCommit: false,
    eachBatchAutoResolve: false,
    partitionsConsumedConcurrently: members.partitionConcurrency,
    eachBatch: (payload) => tracked(member, consumeFetch(members, member, payload)),
  });
  await joined;
  const subscription: Subscription = { groupId, stop: () => (member.stopped ??= leave(members, member, subscription)) };
  members.subscriptions.add(subscription);
  return subscription;
}

/**
 * kafkajs restarts a consumer that crashed on a retriable error; one it will not restart has stopped for
 * good while the process lives on, so that is fatal (the role exits 1 and its supervisor restarts it).
 */
function failOnFinalCrash({ consumer, stopping }: Member, groupId: string) {
  consumer.on(consumer.events.CRASH, ({ payload }) => {
    if (payload.restart || stopping.signal.aborted) return;
    const err = new BusError(`the ${groupId} consumer stopped and kafkajs will not restart it: ${payload.error.message}`, { cause: payload.error });
    setImmediate(() => {
      throw err;
    });
  });
}

function joinedOnce(consumer: Consumer): Promise<void> {
  return new Promise<void>((resolve) => {
    const off = consumer.on(consumer.events.GROUP_JOIN, () => {
      off();
      resolve();
    });
  });
}

/** stop() waits for the fetches in hand, so their commits are not lost to the disconnect. */
function tracked(member: Member, handled: Promise<void>): Promise<void> {
  const settled = handled.catch(() => undefined).finally(() => member.inFlight.delete(settled));
  member.inFlight.add(settled);
  return handled;
}

async function leave(members: KafkaMembers, member: Member, subscription: Subscription): Promise<void> {
  member.stopping.abort();
  await Promise.all(member.inFlight);
  members.subscriptions.delete(subscription);
  await member.consumer.disconnect();
}

/** One partition's fetch, slice by slice through the runner, until it is done or the member lets go. */
async function consumeFetch(members: KafkaMembers, member: Member, payload: EachBatchPayload): Promise<void> {
  const { batch, heartbeat, isRunning, isStale } = payload;
  const topic = members.names.fromBroker(batch.topic);
  const { partition } = batch;
  const signal = member.stopping.signal;
  const commitThrough = committer(member.consumer, payload);
  for (let start = 0; start < batch.messages.length; start += member.maxBatch) {
    if (signal.aborted || !isRunning() || isStale()) return;
    const records = batch.messages.slice(start, start + member.maxBatch);
    const outcome = await runBatch(member.subscriber, {
      topic,
      partition,
      records,
      decode: (record: KafkaMessage) => decodeRecord(members.decode, topic, partition, record),
      lastOffset: Number(records[records.length - 1]!.offset),
      highWatermark: () => Number(batch.highWatermark),
      commitThrough,
      signal,
      beforeRetry: heartbeat,
    });
    // Stopped: the rest is left uncommitted for the next member, and kafkajs goes no further in this fetch.
    if (!outcome.committed) throw outcome.error;
    await heartbeat();
  }
}

/** A fetched record as a message; bytes no schema the codec knows can read are malformed. */
async function decodeRecord(decode: KafkaMembers["decode"], topic: string, partition: number, record: KafkaMessage): Promise<Decoded> {
  const offset = Number(record.offset);
  const key = record.key?.toString("utf8") ?? "";
  try {
    const value = await decode(topic, record.value ?? Buffer.alloc(0));
    // The message's CreateTime: the producer's real clock when it was sent (metrics).
    const timestamp = Number(record.timestamp);
    return { topic, partition, offset, key, value, ...(timestamp > 0 ? { timestamp } : {}) };
  } catch (err) {
    return new Malformed({ topic, partition, offset, key }, record.value, `undecodable value: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** Commits the fetch's partition through an offset: resolved for kafkajs, the next offset committed to the group. */
function committer(consumer: Consumer, { batch, resolveOffset }: EachBatchPayload) {
  return async (offset: number): Promise<void> => {
    resolveOffset(String(offset));
    try {
      await consumer.commitOffsets([{ topic: batch.topic, partition: batch.partition, offset: String(offset + 1) }]);
    } catch (err) {
      throw groupCause(err);
    }
  };
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
