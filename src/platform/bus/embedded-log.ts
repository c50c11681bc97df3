// The embedded log: the bus inside one process, with Kafka's semantics — partitions by key hash, order
// per partition, consumer groups with committed offsets, redelivery of what was not committed — and
// bounded memory. With a folder it persists: an append-only file per partition and an append-only
// offsets file, so messages published and not yet committed survive a restart.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "pino";
import { normalize } from "./avro.ts";
import { batchHandlerOf, runBatch, type Subscriber } from "./batch-runner.ts";
import { BusError, DEFAULT_MAX_BATCH, type AvroSchema, type Bus, type ConsumerObserver, type Published, type SubscribeOptions, type Subscription, type TopicSpec } from "./bus.ts";
import { readTopicCounts, releaseLock, saveTopicCounts, takeLock } from "./embedded-folder.ts";
import { CommittedOffsets } from "./embedded-offsets.ts";
import { Partition } from "./embedded-partition.ts";
import { partitionFor } from "./partitioner.ts";

export interface EmbeddedLogOptions {
  /** Persist under this folder (DATA_DIR/bus); without it every message stays in memory (tests). */
  dir?: string;
  /**
   * Per partition: the most messages published and not yet committed by every active consumer group.
   * A publish beyond it waits until consumers commit. Also the most messages a partition keeps in memory.
   */
  maxBacklog?: number;
  log?: Logger;
  /** Told of every batch a consumer commits (metrics). */
  observer?: ConsumerObserver;
  /** Service time, for the timestamps of dead letters (the real clock unless given). */
  now?: () => Date;
}

const DEFAULT_MAX_BACKLOG = 10_000;

interface Topic {
  name: string;
  /** Absent for a topic read back from the folder until createTopics gives it its schema again. */
  schema: AvroSchema | undefined;
  partitions: Partition[];
}

/** One subscribe() call: a member of its group, consuming the partitions the group assigns it. */
interface Member {
  topics: string[];
  subscriber: Subscriber;
  maxBatch: number;
  loops: Loop[];
}

/** A member consuming one partition, until the next rebalance or stop. */
interface Loop {
  abort: AbortController;
  done: Promise<void>;
}

interface Group {
  members: Member[];
  /** Rebalances run one at a time. */
  chain: Promise<void>;
}

/** The embedded log's state: its topics, groups and committed offsets, and what every member's runner shares. */
interface LogState {
  dir: string | undefined;
  maxBacklog: number;
  topics: Map<string, Topic>;
  groups: Map<string, Group>;
  offsets: CommittedOffsets;
  /** The runner's view of a member, but for its group and handler. */
  subscriber: Omit<Subscriber, "groupId" | "handler">;
  closed: boolean;
}

export function createEmbeddedLog(options: EmbeddedLogOptions = {}): Bus {
  const bus: Bus = {
    kind: "embedded",
    createTopics: async (specs) => createTopics(state, specs),
    publish: (topic, key, value) => publish(state, topic, key, value),
    subscribe: (subscribeOptions) => subscribe(state, subscribeOptions),
    lag: async (groupId, topics) => lag(state, groupId, topics),
    close: () => close(state),
  };
  const topics = new Map<string, Topic>();
  const state: LogState = {
    dir: options.dir,
    maxBacklog: options.maxBacklog ?? DEFAULT_MAX_BACKLOG,
    topics,
    groups: new Map(),
    offsets: new CommittedOffsets(),
    subscriber: {
      bus,
      hasTopic: (name) => topics.get(name)?.schema !== undefined,
      now: options.now ?? (() => new Date()),
      log: options.log,
      observer: options.observer,
    },
    closed: false,
  };
  if (state.dir) openFolder(state, state.dir);
  return bus;
}

function openFolder(state: LogState, dir: string): void {
  mkdirSync(dir, { recursive: true });
  takeLock(dir);
  state.offsets.open(join(dir, "offsets.log"));
  for (const [name, partitions] of Object.entries(readTopicCounts(dir))) openTopic(state, name, partitions, undefined);
}

function openTopic(state: LogState, name: string, count: number, schema: AvroSchema | undefined): Topic {
  const { dir } = state;
  if (dir) mkdirSync(join(dir, "topics", name), { recursive: true });
  const partitions = Array.from({ length: count }, (_, i) => {
    // What every group that ever consumed the partition has committed stays on disk only.
    const keepFrom = state.offsets.lowest(name, i, () => true) ?? 0;
    return new Partition(name, i, dir ? join(dir, "topics", name, `${i}.log`) : undefined, keepFrom, state.maxBacklog);
  });
  const topic = { name, schema, partitions };
  state.topics.set(name, topic);
  return topic;
}

function createTopics(state: LogState, specs: TopicSpec[]): void {
  for (const spec of specs) {
    if (!Number.isInteger(spec.partitions) || spec.partitions < 1) {
      throw new BusError(`${spec.name}: partitions must be a whole number of at least 1`);
    }
    const existing = state.topics.get(spec.name);
    if (existing) existing.schema = spec.schema;
    else openTopic(state, spec.name, spec.partitions, spec.schema);
  }
  if (state.dir) saveTopicCounts(state.dir, Object.fromEntries([...state.topics.values()].map((t) => [t.name, t.partitions.length])));
}

function topicOf(state: LogState, name: string): Topic & { schema: AvroSchema } {
  const topic = state.topics.get(name);
  if (!topic?.schema) throw new BusError(`unknown topic ${name}: create it (with its schema) first`);
  return topic as Topic & { schema: AvroSchema };
}

/** A group with a member on the topic: its committed offset holds publishers back and memory in. */
function isActiveOn(state: LogState, groupId: string, topic: string): boolean {
  return state.groups.get(groupId)?.members.some((m) => m.topics.includes(topic)) ?? false;
}

/** The lowest offset the active groups committed; a group that has not started counts from the partition's earliest. */
function lowestActive(state: LogState, topic: string, partition: Partition): number | undefined {
  return state.offsets.lowest(topic, partition.index, (groupId) => isActiveOn(state, groupId, topic), partition.earliest);
}

/** Messages waiting for the slowest active group; memory mode also keeps what idle groups still need. */
function backlog(state: LogState, topic: string, partition: Partition): number {
  const low = lowestActive(state, topic, partition);
  return low === undefined ? 0 : partition.high - low;
}

function lag(state: LogState, groupId: string, topics: string[]): number {
  let behind = 0;
  for (const name of topics) {
    for (const partition of topicOf(state, name).partitions) {
      behind += partition.high - (state.offsets.get(groupId, name, partition.index) ?? partition.earliest);
    }
  }
  return behind;
}

function commit(state: LogState, groupId: string, topic: string, partition: Partition, offset: number): void {
  if (!state.offsets.commit(groupId, topic, partition.index, offset)) return;
  releaseMemory(state, topic, partition);
  partition.wakeRoomWaiters();
}

function releaseMemory(state: LogState, topic: string, partition: Partition): void {
  // With a folder, memory keeps at most maxBacklog messages and none that every active group has
  // committed: the file has them all. Without one (tests), memory is the log and keeps everything.
  if (!state.dir) return;
  const low = lowestActive(state, topic, partition);
  if (low !== undefined) partition.trimCache(low);
  partition.trimCache(partition.high - state.maxBacklog);
}

async function publish(state: LogState, name: string, key: string, value: unknown): Promise<Published> {
  if (state.closed) throw new BusError("the bus is closed");
  const topic = topicOf(state, name);
  const normalized = normalize(name, topic.schema, value);
  const partition = topic.partitions[partitionFor(key, topic.partitions.length)]!;
  // Publishes to one partition are applied in call order, each once there is room.
  const run = partition.tail.then(async () => {
    while (backlog(state, name, partition) >= state.maxBacklog) await partition.waitForRoom();
    const offset = partition.append(key, normalized);
    releaseMemory(state, name, partition);
    return { topic: name, partition: partition.index, offset };
  });
  partition.tail = run.catch(() => undefined);
  return run;
}

async function subscribe(state: LogState, options: SubscribeOptions): Promise<Subscription> {
  const { groupId, topics } = options;
  const handler = batchHandlerOf(options, state.subscriber.observer);
  if (state.closed) throw new BusError("the bus is closed");
  if (topics.length === 0) throw new BusError("subscribe: give at least one topic");
  for (const name of topics) topicOf(state, name);
  let group = state.groups.get(groupId);
  if (!group) state.groups.set(groupId, (group = { members: [], chain: Promise.resolve() }));
  const member: Member = { topics: [...topics], subscriber: { ...state.subscriber, groupId, handler }, maxBatch: options.maxBatchSize ?? DEFAULT_MAX_BATCH, loops: [] };
  group.members.push(member);
  await rebalance(state, group);
  return { groupId, stop: () => leave(state, group, member) };
}

/** Takes the member out of its group; what it did not commit goes to the members left. */
function leave(state: LogState, group: Group, member: Member): Promise<void> {
  if (!group.members.includes(member)) return group.chain;
  group.members = group.members.filter((m) => m !== member);
  return rebalance(state, group, [member]);
}

/** Hands the group's partitions out again over its members, after the old owners let go. */
function rebalance(state: LogState, group: Group, leaving: Member[] = []): Promise<void> {
  group.chain = group.chain.then(async () => {
    const old = [...group.members, ...leaving].flatMap((m) => m.loops.splice(0));
    for (const loop of old) loop.abort.abort();
    await Promise.all(old.map((l) => l.done));
    assign(state, group);
    // Active groups changed, so the backlog that publishers wait on did too.
    for (const topic of state.topics.values()) for (const p of topic.partitions) p.wakeRoomWaiters();
  });
  return group.chain;
}

/** Each topic's partitions dealt round the group's members on it. */
function assign(state: LogState, group: Group): void {
  for (const topic of new Set(group.members.flatMap((m) => m.topics))) {
    const members = group.members.filter((m) => m.topics.includes(topic));
    for (const partition of topicOf(state, topic).partitions) {
      const member = members[partition.index % members.length]!;
      const abort = new AbortController();
      member.loops.push({ abort, done: consume(state, member, topic, partition, abort.signal) });
    }
  }
}

/** One member's loop over one partition: batches from the group's committed offset through the runner, until aborted. */
async function consume(state: LogState, member: Member, topic: string, partition: Partition, signal: AbortSignal): Promise<void> {
  const { groupId } = member.subscriber;
  let offset = state.offsets.get(groupId, topic, partition.index);
  if (offset === undefined) {
    offset = partition.earliest;
    commit(state, groupId, topic, partition, offset);
  }
  while (!signal.aborted) {
    if (offset >= partition.high) {
      await partition.waitForAppend(signal);
      continue;
    }
    const from = Math.max(offset, partition.earliest);
    const end = Math.min(partition.high, from + member.maxBatch);
    const outcome = await runBatch(member.subscriber, {
      topic,
      partition: partition.index,
      records: Array.from({ length: end - from }, (_, i) => from + i),
      decode: (o: number) => partition.message(o),
      lastOffset: end - 1,
      highWatermark: () => partition.high,
      commitThrough: (through) => commit(state, groupId, topic, partition, through + 1),
      signal,
    });
    if (!outcome.committed) return;
    offset = end;
  }
}

async function close(state: LogState): Promise<void> {
  if (state.closed) return;
  state.closed = true;
  for (const group of state.groups.values()) await rebalance(state, group, group.members.splice(0));
  for (const topic of state.topics.values()) for (const p of topic.partitions) p.close();
  state.offsets.close();
  if (state.dir) releaseLock(state.dir);
}
