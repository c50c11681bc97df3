// The batch runner both buses share, driven directly: a batch of records whose decoding the test decides,
// the embedded log as the bus its dead letters go to.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Malformed, runBatch, type Decoded, type PartitionBatch, type Subscriber } from "../../../src/platform/bus/batch-runner.ts";
import type { Bus, BusMessage, CommittedBatch } from "../../../src/platform/bus/bus.ts";
import { deadLetterTopic } from "../../../src/platform/bus/dead-letter.ts";
import { createEmbeddedLog } from "../../../src/platform/bus/embedded-log.ts";
import type { DeadLetter } from "../../../src/platform/bus/messages.ts";
import { loadSchema } from "../../../src/platform/bus/avro.ts";

const TOPIC = "runner.events";
const at = new Date("2026-03-01T12:00:00Z");

/** A record as a test bus fetches it: an offset and a value, or bytes no schema reads. */
type Record = { offset: number; value: string } | { offset: number; garbage: string };

const decode = (record: Record): Decoded =>
  "garbage" in record
    ? new Malformed({ topic: TOPIC, partition: 0, offset: record.offset, key: "k" }, Buffer.from(record.garbage), "undecodable value: not avro")
    : { topic: TOPIC, partition: 0, offset: record.offset, key: "k", value: record.value };

describe("batch runner", () => {
  let bus: Bus;
  let commits: number[];
  let reported: CommittedBatch[];

  beforeEach(async () => {
    bus = createEmbeddedLog();
    await bus.createTopics([{ name: deadLetterTopic(TOPIC), partitions: 1, schema: loadSchema("dead-letter") }]);
    commits = [];
    reported = [];
  });
  afterEach(() => bus.close());

  const subscriber = (handler: Subscriber["handler"]): Subscriber => ({
    groupId: "runner-test",
    handler,
    bus,
    hasTopic: (name) => name === deadLetterTopic(TOPIC),
    now: () => at,
    observer: { committed: (b) => void reported.push(b) },
  });

  const batchOf = (records: Record[], signal = new AbortController().signal): PartitionBatch<Record> => ({
    topic: TOPIC,
    partition: 0,
    records,
    decode,
    lastOffset: records.at(-1)!.offset,
    highWatermark: () => 20,
    commitThrough: (offset) => void commits.push(offset),
    signal,
  });

  /** Waits for the first `n` dead letters of the topic. */
  async function deadLetters(n: number): Promise<DeadLetter[]> {
    const letters: DeadLetter[] = [];
    let resolve = () => {};
    const arrived = new Promise<void>((r) => (resolve = r));
    const s = await bus.subscribe({
      groupId: "letters",
      topics: [deadLetterTopic(TOPIC)],
      handler: async (m) => {
        letters.push(m.value as DeadLetter);
        if (letters.length >= n) resolve();
      },
    });
    await arrived;
    await s.stop();
    return letters;
  }

  it("dead-letters a record that does not decode, hands over the rest and commits through the batch's last offset once", async () => {
    const handed: BusMessage[][] = [];
    const outcome = await runBatch(
      subscriber(async (batch) => void handed.push(batch)),
      batchOf([
        { offset: 10, value: "a" },
        { offset: 11, garbage: "\u0000\u0001" },
        { offset: 12, value: "b" },
      ]),
    );
    expect(outcome).toEqual({ committed: true });
    expect(handed.map((b) => b.map((m) => m.value))).toEqual([["a", "b"]]);
    expect(commits).toEqual([12]);
    expect(await deadLetters(1)).toEqual([
      { topic: TOPIC, partition: 0, offset: 11, key: "k", reason: "undecodable value: not avro", payload: `base64:${Buffer.from("\u0000\u0001").toString("base64")}`, failedBy: "runner-test", failedAt: at.toISOString() },
    ]);
    expect(reported).toMatchObject([{ groupId: "runner-test", topic: TOPIC, partition: 0, lag: 7 }]);
    expect(reported[0]!.messages.map((m) => m.offset)).toEqual([10, 12]);
  });

  it("commits what a failed call marked handled and hands over only the rest, after a backoff", async () => {
    const handed: number[][] = [];
    const outcome = await runBatch(
      subscriber(async (batch, handled) => {
        handed.push(batch.map((m) => m.offset));
        if (handed.length > 1) return;
        handled(batch[0]!);
        throw new Error("database away");
      }),
      batchOf([0, 1, 2].map((offset) => ({ offset, value: `v${offset}` }))),
    );
    expect(outcome).toEqual({ committed: true });
    expect(handed).toEqual([
      [0, 1, 2],
      [1, 2],
    ]);
    expect(commits).toEqual([0, 2]);
  });

  it("ends at once when the member lets go during the backoff: the last failure comes back and the rest stays uncommitted", async () => {
    const stop = new AbortController();
    const failure = new Error("database away");
    let calls = 0;
    const outcome = await runBatch(
      subscriber(async (batch, handled) => {
        calls++;
        handled(batch[0]!);
        setImmediate(() => stop.abort());
        throw failure;
      }),
      batchOf([0, 1, 2].map((offset) => ({ offset, value: `v${offset}` })), stop.signal),
    );
    expect(outcome).toEqual({ committed: false, error: failure });
    expect(calls).toBe(1);
    expect(commits).toEqual([0]);
    expect(reported).toEqual([]);
  });
});
