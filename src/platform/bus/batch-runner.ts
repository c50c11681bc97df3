// The batch runner both buses share. A subscription's handler merges the batches its partitions bring
// while it is busy; each partition's batch goes through the same phases: decode the fetched records,
// dead-letter the malformed, hand the rest to the handler (on a failure commit what it marked handled
// and hand the rest over again after a backoff), commit the batch once, tell the observer.
import type { Logger } from "pino";
import { backoffMs } from "../backoff.ts";
import { groupCommit, ROUND_TICK_MS } from "../group-commit.ts";
import { abortableSleep } from "./abortable-sleep.ts";
import { BusError, type BatchHandler, type Bus, type BusMessage, type ConsumerObserver, type SubscribeOptions } from "./bus.ts";
import { deadLetter, deadLetterTopic } from "./dead-letter.ts";

/** A fetched record no schema can read: dead-lettered with the reason, never retried. */
export class Malformed {
  constructor(
    readonly message: Pick<BusMessage, "topic" | "partition" | "offset" | "key">,
    /** What was received: the raw bytes. */
    readonly payload: unknown,
    readonly reason: string,
  ) {}
}

export type Decoded = BusMessage | Malformed;

/** One member of a consumer group, as the runner needs it: the same for all its partitions. */
export interface Subscriber {
  groupId: string;
  handler: BatchHandler;
  /** Dead letters go to `<topic>.dead-letter` on this bus, when it has that topic. */
  bus: Bus;
  hasTopic(name: string): boolean;
  /** Service time, for the timestamps of dead letters. */
  now(): Date;
  log?: Logger | undefined;
  observer?: ConsumerObserver | undefined;
}

/** One partition's batch as fetched, with how its bus reads, commits and keeps its session. */
export interface PartitionBatch<Raw> {
  topic: string;
  partition: number;
  records: readonly Raw[];
  decode(record: Raw): Decoded | Promise<Decoded>;
  /** The offset of the batch's last record: committing through it commits the batch, malformed records included. */
  lastOffset: number;
  /** The partition's end offset, for the lag reported with the commit. */
  highWatermark(): number;
  /** Commits the partition through this offset. */
  commitThrough(offset: number): Promise<void> | void;
  /** Aborted when this member lets go of the partition (stop, rebalance): no further attempt then. */
  signal: AbortSignal;
  /** After each backoff, before the next attempt (Kafka's heartbeat). */
  beforeRetry?(): Promise<void>;
}

/** Committed: the handler took the batch and it is committed. Stopped: the member let go first, with the last failure. */
export type BatchOutcome = { committed: true } | { committed: false; error: unknown };

/** Runs one partition's batch through the phases: decode, dead-letter the malformed, hand over, commit, report. */
export async function runBatch<Raw>(subscriber: Subscriber, batch: PartitionBatch<Raw>): Promise<BatchOutcome> {
  const receivedMs = performance.now();
  const { messages, malformed } = await decodeBatch(batch);
  await Promise.all(malformed.map((m) => deadLetterMalformed(subscriber, m)));
  const handed = await handOver(subscriber, batch, messages);
  if (!handed.taken) return { committed: false, error: handed.error };
  await batch.commitThrough(batch.lastOffset);
  subscriber.observer?.committed({
    groupId: subscriber.groupId,
    topic: batch.topic,
    partition: batch.partition,
    messages,
    handledMs: performance.now() - receivedMs,
    lag: Math.max(0, batch.highWatermark() - batch.lastOffset - 1),
  });
  return { committed: true };
}

async function decodeBatch<Raw>({ records, decode }: PartitionBatch<Raw>): Promise<{ messages: BusMessage[]; malformed: Malformed[] }> {
  const pending = records.map((record) => decode(record));
  // A bus whose records decode synchronously (the embedded log) waits for nothing here.
  const decoded = pending.some((d) => d instanceof Promise) ? await Promise.all(pending) : (pending as Decoded[]);
  const messages: BusMessage[] = [];
  const malformed: Malformed[] = [];
  for (const d of decoded) {
    if (d instanceof Malformed) malformed.push(d);
    else messages.push(d);
  }
  return { messages, malformed };
}

async function deadLetterMalformed({ bus, hasTopic, now, groupId, log }: Subscriber, { message, payload, reason }: Malformed): Promise<void> {
  log?.error({ groupId, ...message, reason }, "dead-lettering a message");
  if (hasTopic(deadLetterTopic(message.topic))) await deadLetter(bus, { message, payload, reason, groupId, at: now() });
}

/** Taken: the handler took every message. Stopped: the member let go first, with the last failure. */
type HandOverResult = { taken: true } | { taken: false; error: unknown };

/**
 * Hands the batch's messages to the handler until it takes them all or the member lets go: on a failure,
 * what the handler marked handled is committed and the rest handed over again after a backoff.
 */
async function handOver<Raw>(subscriber: Subscriber, batch: PartitionBatch<Raw>, messages: BusMessage[]): Promise<HandOverResult> {
  const { handler, groupId, log } = subscriber;
  const { signal, topic, partition } = batch;
  let rest = messages;
  for (let attempt = 0; rest.length > 0; attempt++) {
    let through = -1;
    try {
      await handler(rest, (m) => (through = Math.max(through, m.offset)));
      return { taken: true };
    } catch (error) {
      if (through >= 0) {
        await batch.commitThrough(through);
        rest = rest.filter((m) => m.offset > through);
      }
      if (signal.aborted) return { taken: false, error };
      log?.warn({ err: error, groupId, topic, partition, offset: rest[0]?.offset, attempt }, "handler failed; the batch will be delivered again");
      // A failing handler waits 100 ms, doubling up to 5 s, before the same messages are delivered again.
      await abortableSleep(backoffMs(attempt), signal);
      if (signal.aborted) return { taken: false, error };
      await batch.beforeRetry?.();
    }
  }
  return { taken: true };
}

/**
 * The batch handler a subscription runs: the given one, its partitions' batches merged while it is busy,
 * or the per-message adapter over `handler`; the observer told of what each call is handed.
 */
export function batchHandlerOf(options: SubscribeOptions, observer?: ConsumerObserver): BatchHandler {
  if (options.batchHandler && options.handler) throw new BusError("subscribe: give a handler or a batchHandler, not both");
  if (options.batchHandler) return mergingPartitions(toldOfHanding(options.groupId, options.batchHandler, observer));
  const handler = options.handler;
  if (!handler) throw new BusError("subscribe: give a handler or a batchHandler");
  return toldOfHanding(options.groupId, async (batch, handled) => {
    for (const message of batch) {
      await handler(message);
      handled(message);
    }
  }, observer);
}

function toldOfHanding(groupId: string, run: BatchHandler, observer: ConsumerObserver | undefined): BatchHandler {
  const handing = observer?.handing?.bind(observer);
  if (!handing) return run;
  return (batch, handled) => {
    handing(groupId, batch.length);
    return run(batch, handled);
  };
}

/**
 * A member consumes its partitions side by side; the batches they bring while the handler is busy are
 * handed to it as one (each partition's messages still in offset order, so in order per key), so a
 * consumer pays one round (one database transaction) for all of them instead of one per partition. When
 * the handler throws, every partition in the round commits what was marked handled of its own messages
 * and gets the rest again. A busy member's rounds are a tick apart (ROUND_TICK_MS): what arrives meanwhile
 * waits for the next round, whose batch is the larger.
 */
/**
 * The most messages the partitions' batches bring to one round (a partition's batch is never split): a round's
 * rows, events and statements are held in memory at once, and PGlite's memory grows to its largest statement.
 */
const MERGED_MAX = 1_000;

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
  }, { size: { sizeOf: (part) => part.batch.length, maxSize: MERGED_MAX }, tickMs: ROUND_TICK_MS });
  return (batch, handled) => round({ batch, handled });
}
