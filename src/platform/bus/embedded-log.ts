// The embedded log: the bus inside one process, with Kafka's semantics — partitions by key hash, order
// per partition, consumer groups with committed offsets, redelivery of what was not committed — and
// bounded memory. With a folder it persists: an append-only file per partition and an append-only
// offsets file, so messages published and not yet committed survive a restart.
import { closeSync, existsSync, fstatSync, ftruncateSync, mkdirSync, openSync, readFileSync, readSync, renameSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "pino";
import { handOver } from "./hand-over.ts";
import { normalize } from "./avro.ts";
import { BusError, DEFAULT_MAX_BATCH, batchHandlerOf, type BatchHandler, type Bus, type BusMessage, type ConsumerObserver, type Published, type SubscribeOptions, type Subscription, type TopicSpec, type AvroSchema } from "./bus.ts";
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
}

const DEFAULT_MAX_BACKLOG = 10_000;
/** A partition file is rewritten at start-up only when at least this much of it is fully consumed. */
const COMPACT_MIN_BYTES = 1 << 20;

interface Stored {
  k: string;
  v: unknown;
  /** Real publish time, ms since the epoch (absent in lines written before it was kept). */
  t?: number;
}

/** One partition: an in-memory window of the newest messages over (optionally) the whole file on disk. */
class Partition {
  /** The next offset to be written. */
  high = 0;
  /** Offsets [cacheBase, high) are in `cache`, as their JSON lines. */
  private cacheBase = 0;
  private cache: string[] = [];
  /** Byte position in the file of offset `fileBase + i`; the file holds [fileBase, high). */
  private positions: number[] = [];
  private fileBase = 0;
  private fileSize = 0;
  private fd: number | undefined;
  private appendWaiters = new Set<() => void>();
  private roomWaiters: (() => void)[] = [];
  /** Publishes to one partition are applied in call order, each after there is room. */
  tail: Promise<unknown> = Promise.resolve();

  constructor(
    readonly topic: string,
    readonly index: number,
    private readonly path: string | undefined,
    keepFrom: number,
    private readonly maxInMemory: number,
  ) {
    if (path) this.load(path, keepFrom);
  }

  /** Reads the file back; offsets below `keepFrom` (committed by every group) are left on disk only. */
  private load(path: string, keepFrom: number) {
    const data = existsSync(path) ? readFileSync(path) : Buffer.alloc(0);
    let start = 0;
    let first = true;
    while (start < data.length) {
      const end = data.indexOf(0x0a, start);
      if (end < 0) break; // a line cut short by a crash: dropped below
      const line = data.toString("utf8", start, end);
      const offset = (JSON.parse(line) as { o: number }).o;
      if (first) {
        this.fileBase = offset;
        this.cacheBase = offset;
        first = false;
      }
      this.positions.push(start);
      this.high = offset + 1;
      if (offset >= keepFrom) this.cache.push(line);
      else this.cacheBase = offset + 1;
      start = end + 1;
    }
    if (first) {
      this.fileBase = keepFrom;
      this.cacheBase = keepFrom;
      this.high = keepFrom;
    }
    // Retention: when most of the file is what every group has committed, start the file at `keepFrom`.
    const cut = keepFrom >= this.high ? start : this.positions[keepFrom - this.fileBase];
    if (cut !== undefined && cut >= COMPACT_MIN_BYTES && cut * 2 >= start) {
      writeFileSync(path + ".tmp", data.subarray(cut, start));
      renameSync(path + ".tmp", path);
      this.positions = this.positions.slice(keepFrom - this.fileBase).map((p) => p - cut);
      this.fileBase = Math.min(keepFrom, this.high);
      start -= cut;
    }
    this.fd = openSync(path, existsSync(path) ? "r+" : "w+");
    if (fstatSync(this.fd).size > start) ftruncateSync(this.fd, start);
    this.fileSize = start;
    this.trimCache(this.high - this.maxInMemory);
  }

  get earliest() {
    return this.path ? this.fileBase : this.cacheBase;
  }

  append(key: string, value: unknown): number {
    const offset = this.high;
    // Real time, not the service clock's: it measures how long a message waited (metrics), as Kafka's CreateTime does.
    // eslint-disable-next-line no-restricted-syntax
    const line = JSON.stringify({ o: offset, k: key, v: value, t: Date.now() });
    if (this.fd !== undefined) {
      const bytes = Buffer.from(line + "\n", "utf8");
      writeSync(this.fd, bytes, 0, bytes.length, this.fileSize);
      this.positions.push(this.fileSize);
      this.fileSize += bytes.length;
    }
    this.cache.push(line);
    this.high = offset + 1;
    for (const wake of this.appendWaiters) wake();
    this.appendWaiters.clear();
    return offset;
  }

  read(offset: number): Stored {
    const line = offset >= this.cacheBase ? this.cache[offset - this.cacheBase] : this.readFromDisk(offset);
    if (line === undefined) throw new BusError(`${this.topic}/${this.index}: offset ${offset} is not stored`);
    return JSON.parse(line) as Stored;
  }

  private readFromDisk(offset: number): string | undefined {
    const i = offset - this.fileBase;
    const from = this.positions[i];
    if (this.fd === undefined || from === undefined) return undefined;
    const to = this.positions[i + 1] ?? this.fileSize;
    const buffer = Buffer.alloc(to - from);
    readSync(this.fd, buffer, 0, buffer.length, from);
    return buffer.toString("utf8").trimEnd();
  }

  /** Drops offsets below `offset` from memory; on disk they stay, in memory mode they are gone. */
  trimCache(offset: number) {
    const drop = Math.min(offset, this.high) - this.cacheBase;
    if (drop <= 0) return;
    this.cache.splice(0, drop);
    this.cacheBase += drop;
  }

  waitForAppend(signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal.aborted) return resolve();
      const wake = () => {
        this.appendWaiters.delete(wake);
        signal.removeEventListener("abort", wake);
        resolve();
      };
      this.appendWaiters.add(wake);
      signal.addEventListener("abort", wake, { once: true });
    });
  }

  waitForRoom(): Promise<void> {
    return new Promise((resolve) => this.roomWaiters.push(resolve));
  }

  wakeRoomWaiters() {
    const waiters = this.roomWaiters;
    this.roomWaiters = [];
    for (const wake of waiters) wake();
  }

  close() {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}

interface Topic {
  name: string;
  schema: AvroSchema | undefined;
  partitions: Partition[];
}

/** One subscribe() call: a member of its group, consuming the partitions the group assigns it. */
class Member {
  loops: Loop[] = [];
  constructor(
    readonly group: Group,
    readonly topics: string[],
    readonly handler: BatchHandler,
    readonly maxBatch: number,
  ) {}
}

/** A member consuming one partition, until the next rebalance or stop. */
interface Loop {
  abort: AbortController;
  done: Promise<void>;
}

class Group {
  members: Member[] = [];
  /** Rebalances run one at a time. */
  chain: Promise<void> = Promise.resolve();
  constructor(readonly id: string) {}
}

const tpKey = (topic: string, partition: number) => `${topic}\u0000${partition}`;

export function createEmbeddedLog(options: EmbeddedLogOptions = {}): Bus {
  const maxBacklog = options.maxBacklog ?? DEFAULT_MAX_BACKLOG;
  const dir = options.dir;
  const log = options.log;
  const observer = options.observer;
  const topics = new Map<string, Topic>();
  const groups = new Map<string, Group>();
  /** Committed offsets: group -> topic/partition -> next offset to consume. */
  const committed = new Map<string, Map<string, number>>();
  let offsetsFd: number | undefined;
  let closed = false;

  function openDir(path: string) {
    mkdirSync(path, { recursive: true });
    takeLock(path);
    const offsetsPath = join(path, "offsets.log");
    if (existsSync(offsetsPath)) {
      for (const line of readFileSync(offsetsPath, "utf8").split("\n")) {
        if (!line) continue;
        let entry: { g: string; t: string; p: number; o: number };
        try {
          entry = JSON.parse(line) as typeof entry;
        } catch {
          continue; // a line cut short by a crash: the commit before it stands
        }
        offsetsOf(entry.g).set(tpKey(entry.t, entry.p), entry.o);
      }
    }
    // Rewrite the offsets file with the latest offset of each group and partition only.
    const compacted = [...committed].flatMap(([g, offsets]) =>
      [...offsets].map(([tp, o]) => {
        const [t, p] = tp.split("\u0000");
        return JSON.stringify({ g, t, p: Number(p), o }) + "\n";
      }),
    );
    writeFileSync(offsetsPath + ".tmp", compacted.join(""));
    renameSync(offsetsPath + ".tmp", offsetsPath);
    offsetsFd = openSync(offsetsPath, "a");
    const metaPath = join(path, "topics.json");
    if (existsSync(metaPath)) {
      const meta = JSON.parse(readFileSync(metaPath, "utf8")) as Record<string, number>;
      for (const [name, partitions] of Object.entries(meta)) openTopic(name, partitions, undefined);
    }
  }

  function takeLock(path: string) {
    const lock = join(path, "LOCK");
    if (existsSync(lock)) {
      const pid = Number(readFileSync(lock, "utf8"));
      if (pid !== process.pid && isAlive(pid)) {
        throw new BusError(`${path} is in use by process ${pid}: the embedded log belongs to one process`);
      }
    }
    writeFileSync(lock, String(process.pid));
  }

  const offsetsOf = (group: string) => {
    let map = committed.get(group);
    if (!map) committed.set(group, (map = new Map()));
    return map;
  };

  /** The lowest committed offset over the groups that have ever consumed this partition. */
  function lowestCommitted(topic: string, partition: number, activeOnly: boolean): number | undefined {
    let low: number | undefined;
    for (const [groupId, offsets] of committed) {
      if (activeOnly && !(groups.get(groupId)?.members.some((m) => m.topics.includes(topic)) ?? false)) continue;
      const o = offsets.get(tpKey(topic, partition));
      if (o !== undefined) low = low === undefined ? o : Math.min(low, o);
      else if (activeOnly) return topics.get(topic)?.partitions[partition]?.earliest ?? 0;
    }
    return low;
  }

  function openTopic(name: string, count: number, schema: AvroSchema | undefined): Topic {
    if (dir) mkdirSync(join(dir, "topics", name), { recursive: true });
    const partitions = Array.from({ length: count }, (_, i) => {
      const keepFrom = lowestCommitted(name, i, false) ?? 0;
      return new Partition(name, i, dir ? join(dir, "topics", name, `${i}.log`) : undefined, keepFrom, maxBacklog);
    });
    const topic = { name, schema, partitions };
    topics.set(name, topic);
    return topic;
  }

  function saveTopics() {
    if (!dir) return;
    const meta = Object.fromEntries([...topics.values()].map((t) => [t.name, t.partitions.length]));
    writeFileSync(join(dir, "topics.json.tmp"), JSON.stringify(meta, null, 2));
    renameSync(join(dir, "topics.json.tmp"), join(dir, "topics.json"));
  }

  const topicOf = (name: string) => {
    const topic = topics.get(name);
    if (!topic?.schema) throw new BusError(`unknown topic ${name}: create it (with its schema) first`);
    return topic;
  };

  /** Messages waiting for the slowest active group; memory mode also keeps what idle groups still need. */
  function backlog(topic: string, partition: Partition): number {
    const low = lowestCommitted(topic, partition.index, true);
    return low === undefined ? 0 : partition.high - low;
  }

  function commit(group: string, topic: string, partition: Partition, offset: number) {
    const offsets = offsetsOf(group);
    const key = tpKey(topic, partition.index);
    if ((offsets.get(key) ?? -1) >= offset) return;
    offsets.set(key, offset);
    if (offsetsFd !== undefined) writeSync(offsetsFd, JSON.stringify({ g: group, t: topic, p: partition.index, o: offset }) + "\n");
    releaseMemory(topic, partition);
    partition.wakeRoomWaiters();
  }

  function releaseMemory(topic: string, partition: Partition) {
    // With a folder, memory keeps at most maxBacklog messages and none that every active group has
    // committed: the file has them all. Without one (tests), memory is the log and keeps everything.
    if (!dir) return;
    const low = lowestCommitted(topic, partition.index, true);
    if (low !== undefined) partition.trimCache(low);
    partition.trimCache(partition.high - maxBacklog);
  }

  async function publish(name: string, key: string, value: unknown): Promise<Published> {
    if (closed) throw new BusError("the bus is closed");
    const topic = topicOf(name);
    const normalized = normalize(name, topic.schema!, value);
    const partition = topic.partitions[partitionFor(key, topic.partitions.length)]!;
    const run = partition.tail.then(async () => {
      while (backlog(name, partition) >= maxBacklog) await partition.waitForRoom();
      const offset = partition.append(key, normalized);
      releaseMemory(name, partition);
      return { topic: name, partition: partition.index, offset };
    });
    partition.tail = run.catch(() => undefined);
    return run;
  }

  /** Hands the group's partitions out again over its members, after the old owners let go. */
  function rebalance(group: Group, leaving: Member[] = []): Promise<void> {
    group.chain = group.chain.then(async () => {
      const old = [...group.members, ...leaving].flatMap((m) => m.loops.splice(0));
      for (const loop of old) loop.abort.abort();
      await Promise.all(old.map((l) => l.done));
      for (const topic of new Set(group.members.flatMap((m) => m.topics))) {
        const members = group.members.filter((m) => m.topics.includes(topic));
        const partitions = topicOf(topic).partitions;
        for (const partition of partitions) {
          const member = members[partition.index % members.length]!;
          member.loops.push(consume(member, topic, partition));
        }
      }
      // Active groups changed, so the backlog that publishers wait on did too.
      for (const topic of topics.values()) for (const p of topic.partitions) p.wakeRoomWaiters();
    });
    return group.chain;
  }

  function consume(member: Member, topic: string, partition: Partition): Loop {
    const abort = new AbortController();
    const groupId = member.group.id;
    const done = (async () => {
      const offsets = offsetsOf(groupId);
      let offset = offsets.get(tpKey(topic, partition.index)) ?? partition.earliest;
      if (!offsets.has(tpKey(topic, partition.index))) commit(groupId, topic, partition, offset);
      while (!abort.signal.aborted) {
        if (offset >= partition.high) {
          await partition.waitForAppend(abort.signal);
          continue;
        }
        offset = Math.max(offset, partition.earliest);
        const end = Math.min(partition.high, offset + member.maxBatch);
        const batch: BusMessage[] = [];
        for (let o = offset; o < end; o++) {
          const stored = partition.read(o);
          batch.push({ topic, partition: partition.index, offset: o, key: stored.k, value: stored.v, ...(stored.t !== undefined ? { timestamp: stored.t } : {}) });
        }
        const receivedMs = performance.now();
        // One offset commit per batch (hand-over.ts: what a failed call marked handled is committed first).
        const handed = await handOver(batch, {
          handler: member.handler,
          commitThrough: (through) => {
            offset = through + 1;
            commit(groupId, topic, partition, offset);
          },
          signal: abort.signal,
          onFailure: (err, from, attempt) =>
            log?.warn({ err, groupId, topic, partition: partition.index, offset: from, attempt }, "handler failed; the batch will be delivered again"),
        });
        if (!handed.taken) return;
        offset = batch[batch.length - 1]!.offset + 1;
        commit(groupId, topic, partition, offset);
        observer?.committed({ groupId, topic, partition: partition.index, messages: batch, handledMs: performance.now() - receivedMs, lag: partition.high - offset });
      }
    })();
    return { abort, done };
  }

  if (dir) openDir(dir);

  return {
    kind: "embedded",
    async createTopics(specs: TopicSpec[]) {
      for (const spec of specs) {
        if (!Number.isInteger(spec.partitions) || spec.partitions < 1) {
          throw new BusError(`${spec.name}: partitions must be a whole number of at least 1`);
        }
        const existing = topics.get(spec.name);
        if (existing) existing.schema = spec.schema;
        else openTopic(spec.name, spec.partitions, spec.schema);
      }
      saveTopics();
    },
    publish,
    async subscribe(options: SubscribeOptions): Promise<Subscription> {
      const { groupId, topics: names } = options;
      const handler = batchHandlerOf(options, observer);
      if (closed) throw new BusError("the bus is closed");
      if (names.length === 0) throw new BusError("subscribe: give at least one topic");
      for (const name of names) topicOf(name);
      let group = groups.get(groupId);
      if (!group) groups.set(groupId, (group = new Group(groupId)));
      const member = new Member(group, [...names], handler, options.maxBatchSize ?? DEFAULT_MAX_BATCH);
      group.members.push(member);
      await rebalance(group);
      let stopped: Promise<void> | undefined;
      return {
        groupId,
        stop() {
          stopped ??= (async () => {
            group.members = group.members.filter((m) => m !== member);
            await rebalance(group, [member]);
          })();
          return stopped;
        },
      };
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const group of groups.values()) await rebalance(group, group.members.splice(0));
      for (const topic of topics.values()) for (const p of topic.partitions) p.close();
      if (offsetsFd !== undefined) closeSync(offsetsFd);
      if (dir) rmSync(join(dir, "LOCK"), { force: true });
    },
  };
}

function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
