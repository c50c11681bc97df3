// One partition of the embedded log: an append-only file of JSON lines (one a message, with its offset,
// key, value and publish time) under an in-memory window of the newest messages, and the waits of the
// consumers for new messages and of the publishers for room.
import { closeSync, existsSync, fstatSync, ftruncateSync, openSync, readFileSync, readSync, renameSync, writeFileSync, writeSync } from "node:fs";
import { BusError, type BusMessage } from "./bus.ts";

/** A partition file is rewritten at start-up only when at least this much of it is fully consumed. */
const COMPACT_MIN_BYTES = 1 << 20;

interface Stored {
  k: string;
  v: unknown;
  /** Real publish time, ms since the epoch (absent in lines that do not carry it). */
  t?: number;
}

/** One partition: an in-memory window of the newest messages over (optionally) the whole file on disk. */
export class Partition {
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

  /** The message at `offset`, as its consumers get it. */
  message(offset: number): BusMessage {
    const stored = this.read(offset);
    return { topic: this.topic, partition: this.index, offset, key: stored.k, value: stored.v, ...(stored.t !== undefined ? { timestamp: stored.t } : {}) };
  }

  private read(offset: number): Stored {
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
