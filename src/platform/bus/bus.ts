// The bus interface both implementations keep: keyed topics with partitions, consumer groups with
// committed offsets, at-least-once delivery, values checked against the topic's Avro schema.
import { groupCommit } from "../group-commit.ts";

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

/**
 * The batch handler a subscription runs: the given one, its partitions' batches merged while it is busy,
 * or the per-message adapter over `handler`.
 */
export function batchHandlerOf(options: SubscribeOptions, observer?: ConsumerObserver): BatchHandler {
  if (options.batchHandler && options.handler) throw new BusError("subscribe: give a handler or a batchHandler, not both");
  const told = (run: BatchHandler): BatchHandler => {
    const handing = observer?.handing?.bind(observer);
    if (!handing) return run;
    return (batch, handled) => {
      handing(options.groupId, batch.length);
      return run(batch, handled);
    };
  };
  if (options.batchHandler) return mergingPartitions(told(options.batchHandler));
  const handler = options.handler;
  if (!handler) throw new BusError("subscribe: give a handler or a batchHandler");
  return told(async (batch, handled) => {
    for (const message of batch) {
      await handler(message);
      handled(message);
    }
  });
}

/**
 * A member consumes its partitions side by side; the batches they bring while the handler is busy are
 * handed to it as one (each partition's messages still in offset order, so in order per key), so a
 * consumer pays one round (one database transaction) for all of them instead of one per partition. When
 * the handler throws, every partition in the round commits what was marked handled of its own messages
 * and gets the rest again.
 */
function mergingPartitions(handler: BatchHandler): BatchHandler {
  interface Part {
    batch: BusMessage[];
    handled: (message: BusMessage) => void;
  }
  const round = groupCommit<Part, void>(async (parts) => {
    if (parts.length === 1) {
      await handler(parts[0]!.batch, parts[0]!.handled);
      return [{ ok: undefined }];
    }
    const partOf = new Map<BusMessage, Part>();
    for (const part of parts) for (const message of part.batch) partOf.set(message, part);
    try {
      await handler(
        parts.flatMap((p) => p.batch),
        (message) => partOf.get(message)?.handled(message),
      );
      return parts.map(() => ({ ok: undefined }));
    } catch (error) {
      return parts.map(() => ({ error }));
    }
  });
  return (batch, handled) => round({ batch, handled });
}

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
  close(): Promise<void>;
}

export class BusError extends Error {
  override name = "BusError";
}

/** A value that does not match its topic's schema; the message names every offending field. */
export class BusValidationError extends BusError {
  override name = "BusValidationError";
}

