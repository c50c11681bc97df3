// What only the embedded log has to prove: it persists in its folder (committed offsets, uncommitted
// messages, a torn last line), holds publishers back at its bound, and belongs to one process.
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Bus, BusMessage } from "../../../src/platform/bus/bus.ts";
import { BusError } from "../../../src/platform/bus/bus.ts";
import { createEmbeddedLog } from "../../../src/platform/bus/embedded-log.ts";
import { partitionFor } from "../../../src/platform/bus/partitioner.ts";

const schema = {
  type: "record",
  name: "LogEvent",
  namespace: "dev.cardlink.test",
  fields: [
    { name: "id", type: "string" },
    { name: "body", type: "string", default: "" },
  ],
};
const topic = { name: "events", partitions: 2, schema };

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "cardlink-log-"));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function open(dir: string, maxBacklog?: number): Promise<Bus> {
  const bus = createEmbeddedLog({ dir, ...(maxBacklog ? { maxBacklog } : {}) });
  await bus.createTopics([topic]);
  return bus;
}

function collect(bus: Bus, groupId: string, handler?: (m: BusMessage) => Promise<void>) {
  const ids: string[] = [];
  const subscription = bus.subscribe({
    groupId,
    topics: [topic.name],
    handler: async (m) => {
      await handler?.(m);
      ids.push((m.value as { id: string }).id);
    },
  });
  return { ids, subscription };
}

async function waitFor(condition: () => boolean, ms = 5_000) {
  const until = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > until) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe("embedded log in a folder", () => {
  it("keeps messages and committed offsets across a restart: a group resumes where it committed", async () => {
    const dir = tempDir();
    const before = await open(dir);
    for (let i = 0; i < 5; i++) await before.publish(topic.name, "card-1", { id: `m${i}` });
    const first = collect(before, "qualifier", async (m) => {
      if ((m.value as { id: string }).id === "m2") throw new Error("stop here");
    });
    await first.subscription;
    await waitFor(() => first.ids.length === 2);
    await before.close();

    const after = await open(dir);
    const second = collect(after, "qualifier");
    await second.subscription;
    await waitFor(() => second.ids.length === 3);
    expect(second.ids).toEqual(["m2", "m3", "m4"]);
    await after.close();
  });

  it("redelivers the batch a crashed process was handling: the next process on the folder gets it first, whole", async () => {
    const dir = tempDir();
    const crashed = await open(dir);
    await crashed.publish(topic.name, "card-1", { id: "done" });
    await crashed.publish(topic.name, "card-1", { id: "in-flight" });
    let release!: (err: Error) => void;
    const stuck = collect(crashed, "qualifier", (m) =>
      (m.value as { id: string }).id === "in-flight" ? new Promise((_, reject) => (release = reject)) : Promise.resolve(),
    );
    await stuck.subscription;
    await waitFor(() => release !== undefined);

    // The first process never finishes that message nor closes: as if it had been killed.
    const restarted = await open(dir);
    const next = collect(restarted, "qualifier");
    await next.subscription;
    // "done" was handled in the same batch, which was never committed: offsets are committed per batch.
    await waitFor(() => next.ids.length === 2);
    expect(next.ids).toEqual(["done", "in-flight"]);
    release(new Error("killed"));
    await restarted.close();
    await crashed.close();
  });

  it("drops a line cut short by a crash and goes on numbering after the last whole message", async () => {
    const dir = tempDir();
    const bus = await open(dir);
    const { partition } = await bus.publish(topic.name, "card-9", { id: "whole" });
    await bus.close();
    appendFileSync(join(dir, "topics", topic.name, `${partition}.log`), '{"o":1,"k":"card-9","v":{"id":"tor');

    const reopened = await open(dir);
    const published = await reopened.publish(topic.name, "card-9", { id: "next" });
    expect(published).toMatchObject({ partition, offset: 1 });
    const seen = collect(reopened, "reader");
    await seen.subscription;
    await waitFor(() => seen.ids.length === 2);
    expect(seen.ids).toEqual(["whole", "next"]);
    await reopened.close();
  });

  it("makes a publisher wait while a partition's backlog is at the bound, until the consumer commits", async () => {
    const dir = tempDir();
    const bus = await open(dir, 3);
    const gates: (() => void)[] = [];
    const slow = collect(bus, "slow", () => new Promise<void>((resolve) => gates.push(resolve)));
    await slow.subscription;
    const key = "card-7";
    for (let i = 0; i < 3; i++) await bus.publish(topic.name, key, { id: `m${i}` });
    let fourthDone = false;
    const fourth = bus.publish(topic.name, key, { id: "m3" }).then(() => (fourthDone = true));
    await new Promise((r) => setTimeout(r, 100));
    expect(fourthDone).toBe(false);
    await waitFor(() => gates.length === 1);
    gates.shift()!();
    await fourth;
    expect(fourthDone).toBe(true);
    const release = setInterval(() => gates.shift()?.(), 5);
    await waitFor(() => slow.ids.length === 4);
    clearInterval(release);
    expect(slow.ids).toEqual(["m0", "m1", "m2", "m3"]);
    await bus.close();
  });

  it("publishes without bound while no group consumes, and a late group still reads it all from the file", async () => {
    const dir = tempDir();
    const bus = await open(dir, 5);
    for (let i = 0; i < 40; i++) await bus.publish(topic.name, "card-3", { id: `m${i}` });
    const late = collect(bus, "late");
    await late.subscription;
    await waitFor(() => late.ids.length === 40);
    expect(late.ids).toEqual(Array.from({ length: 40 }, (_, i) => `m${i}`));
    await bus.close();
  });

  it("starts a partition file at what every group has committed once most of it is consumed", async () => {
    const dir = tempDir();
    const key = "card-5";
    const body = "x".repeat(300);
    const bus = await open(dir);
    for (let i = 0; i < 4000; i++) await bus.publish(topic.name, key, { id: `m${i}`, body });
    const reader = collect(bus, "reader");
    await reader.subscription;
    await waitFor(() => reader.ids.length === 4000, 20_000);
    await (await reader.subscription).stop();
    await bus.publish(topic.name, key, { id: "last", body });
    await bus.close();
    const file = join(dir, "topics", topic.name, `${partitionFor(key, topic.partitions)}.log`);
    const sizeBefore = statSync(file).size;

    const reopened = await open(dir);
    expect(statSync(file).size).toBeLessThan(sizeBefore / 100);
    const resumed = collect(reopened, "reader");
    const fresh = collect(reopened, "new-group");
    await Promise.all([resumed.subscription, fresh.subscription]);
    await waitFor(() => resumed.ids.length === 1 && fresh.ids.length === 1);
    expect(resumed.ids).toEqual(["last"]);
    expect(fresh.ids).toEqual(["last"]);
    await reopened.close();
  });

  it("refuses a folder another live process holds, and takes over one whose process is gone", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "LOCK"), String(process.ppid));
    expect(() => createEmbeddedLog({ dir })).toThrow(BusError);
    writeFileSync(join(dir, "LOCK"), "999999999");
    const bus = createEmbeddedLog({ dir });
    expect(readFileSync(join(dir, "LOCK"), "utf8")).toBe(String(process.pid));
    await bus.close();
  });
});
