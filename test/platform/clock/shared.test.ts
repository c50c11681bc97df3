// One service clock across processes and restarts, through the database.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClock } from "../../../src/platform/clock/index.ts";
import { shareClock } from "../../../src/platform/clock/shared.ts";
import { clockOffsetStore } from "../../../src/platform/clock/offset-store.ts";
import type { Db } from "../../../src/platform/db.ts";
import { openTestDb } from "../../support/harness.ts";

let db: Db;
beforeAll(async () => {
  db = await openTestDb();
});
afterAll(() => db.close());

const start = new Date("2026-01-05T12:00:00Z");
const DAY = 86_400_000;

describe("shared service clock", () => {
  it("moves every process's clock when one advances, runs their due work, and survives a restart", async () => {
    const store = clockOffsetStore(db);
    const api = createClock({ speed: 0, start, offsetMs: await store.read() });
    const qualifier = createClock({ speed: 0, start, offsetMs: await store.read() });
    const dueInQualifier: Date[] = [];
    qualifier.onAdvance((now) => void dueInQualifier.push(now));
    const stops = [shareClock(api, store, (e) => { throw e; }, { intervalMs: 20 }), shareClock(qualifier, store, (e) => { throw e; }, { intervalMs: 20 })];

    await api.advance(2 * DAY);
    await expect.poll(() => qualifier.now().getTime(), { timeout: 2000 }).toBe(start.getTime() + 2 * DAY);
    expect(dueInQualifier).toEqual([new Date(start.getTime() + 2 * DAY)]);
    // An advance the other process already saw is not applied twice.
    await new Promise((r) => setTimeout(r, 100));
    expect(api.now().getTime()).toBe(start.getTime() + 2 * DAY);
    stops.forEach((stop) => stop());

    const restarted = createClock({ speed: 0, start, offsetMs: await store.read() });
    expect(restarted.now()).toEqual(new Date(start.getTime() + 2 * DAY));
  });

  it("records a local advance made while an advance taken over from another process runs its due work", async () => {
    const store = clockOffsetStore(db);
    const base = await store.read();
    const clock = createClock({ speed: 0, start, offsetMs: base });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let syncing = false;
    clock.onAdvance(async () => {
      if (syncing) return;
      syncing = true;
      await gate;
    });
    const stop = shareClock(clock, store, (e) => { throw e; }, { intervalMs: 20 });
    await store.write(base + DAY);
    await expect.poll(() => syncing, { timeout: 2000 }).toBe(true);
    await clock.advance(DAY);
    release();
    await expect.poll(() => store.read(), { timeout: 2000 }).toBe(base + 2 * DAY);
    stop();
  });

  it("keeps the larger total when two writes race", async () => {
    const store = clockOffsetStore(db);
    await Promise.all([store.write(5 * DAY), store.write(3 * DAY)]);
    expect(await store.read()).toBe(5 * DAY);
  });
});
