// The bus interface both implementations keep: keyed topics with partitions, consumer groups with
// committed offsets, at-least-once delivery, values checked against the topic's Avro schema.

/** An Avro schema as JSON (`src/platform/bus/schemas/*.avsc`). */
export type AvroSchema = Record<string, unknown>;

export interface TopicSpec {
  name: string;
  partitions: number;
  /** The Avro schema every value on the topic must match (registered as `<name>-value` on Kafka). */
  schema: AvroSchema;
  /** Kafka keeps only each key's latest value (cleanup.policy=compact); the embedded log keeps all. */
  compacted?: boolean;
}

export interface BusMessage<T = unknown> {
  topic: string;
  partition: number;
  offset: number;
  key: string;
  value: T;
  /** Real time the message was published (ms since the epoch), when the bus keeps it: for metrics only. */
  timestamp?: number;
}

export interface Published {
  topic: string;
  partition: number;
  offset: number;
}

/**
 * Handles one message. Resolving marks the message handled; throwing leaves it uncommitted and the
 * same message is delivered again after a backoff, before anything behind it on its partition.
 * A handler that wants to give up on a message dead-letters it itself and resolves.
 * (A thin adapter over the batch handler: offsets are still committed once per batch.)
 */
export type Handler = (message: BusMessage) => Promise<void>;

/**
 * Handles a batch: messages of one or more partitions, each partition's in offset order (so in order per
 * key). Resolving commits the whole batch with one offset commit per partition; throwing commits the messages passed to `handled` (if any)
 * and delivers the rest again after a backoff. A handler that gives up on a message dead-letters it
 * itself and resolves: the rest of its batch is not lost.
 */
export type BatchHandler = (batch: BusMessage[], handled: (message: BusMessage) => void) => Promise<void>;

/** A batch a consumer's runner committed, as it reports it to its observer (metrics). */
export interface CommittedBatch {
  groupId: string;
  topic: string;
  partition: number;
  /** The batch's messages, in offset order. */
  messages: readonly BusMessage[];
  /** Real milliseconds from the batch's receipt to its commit. */
  handledMs: number;
  /** Messages on the partition after the batch's: its end offset minus the offset just committed. */
  lag: number;
}

/** Told of every batch a consumer committed; it must not throw or take long (it runs in the runner). */
export interface ConsumerObserver {
  committed(batch: CommittedBatch): void;
  /** A group's handler is handed `size` messages: one partition's batch, or several merged into one round. */
  handing?(groupId: string, size: number): void;
}

export interface SubscribeOptions {
  groupId: string;
  topics: string[];
  /** Exactly one of `handler` and `batchHandler`. */
  handler?: Handler;
  batchHandler?: BatchHandler;
  /** The most messages per batch (default 500). */
  maxBatchSize?: number;
}

export const DEFAULT_MAX_BATCH = 500;

export interface Subscription {
  readonly groupId: string;
  /**
   * Finishes the batch in hand, commits it, then leaves the group; what was not committed goes to the
   * next member.
   */
  stop(): Promise<void>;
}

export interface Bus {
  readonly kind: "embedded" | "kafka";
  /** Creates the topics that do not exist yet and registers their schemas (idempotent). */
  createTopics(specs: TopicSpec[]): Promise<void>;
  /** Appends `value` to the partition `key` hashes to; resolves once the bus has it. */
  publish(topic: string, key: string, value: unknown): Promise<Published>;
  subscribe(options: SubscribeOptions): Promise<Subscription>;
  /**
   * Messages `groupId` has still to handle on `topics`: each partition's end offset minus the group's committed
   * one (from the partition's start where it committed none). A few reads of offsets, not of messages: for
   * backpressure, read now and then, not per message.
   */
  lag(groupId: string, topics: string[]): Promise<number>;
  close(): Promise<void>;
}

export class BusError extends Error {
  override name = "BusError";
}

/** A value that does not match its topic's schema; the message names every offending field. */
export class BusValidationError extends BusError {
  override name = "BusValidationError";
}

