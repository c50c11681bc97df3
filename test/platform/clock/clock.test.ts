import { describe, expect, it } from "vitest";
import { createClock, durationMs } from "../../../src/platform/clock/index.ts";

/** A wall clock the test moves by hand. */
const wall = (startMs = 1_000_000) => {
  let now = startMs;
  return { read: () => now, tick: (ms: number) => void (now += ms) };
};

const START = new Date("2026-01-05T12:00:00Z");

describe("service clock", () => {
  it("frozen: stands still while the wall clock moves", () => {
    const w = wall();
    const clock = createClock({ speed: 0, start: START, wall: w.read });
    expect(clock.mode).toBe("frozen");
    w.tick(60_000);
    expect(clock.now()).toEqual(START);
  });

  it("real: follows the wall clock from the start instant", () => {
    const w = wall();
    const clock = createClock({ speed: 1, start: START, wall: w.read });
    expect(clock.mode).toBe("real");
    w.tick(1500);
    expect(clock.now().getTime()).toBe(START.getTime() + 1500);
  });

  it("real without a start instant: is the wall clock", () => {
    const w = wall(1_767_614_400_000);
    const clock = createClock({ speed: 1, wall: w.read });
    expect(clock.now().getTime()).toBe(1_767_614_400_000);
  });

  it("scaled: runs CLOCK_SPEED service seconds per wall second", () => {
    const w = wall();
    const clock = createClock({ speed: 86_400, start: START, wall: w.read });
    expect(clock.mode).toBe("scaled");
    w.tick(1000);
    expect(clock.now().toISOString()).toBe("2026-01-06T12:00:00.000Z");
  });

  it("advance moves time forward in every mode and runs the due-listeners before it resolves", async () => {
    for (const speed of [0, 1, 3600]) {
      const w = wall();
      const clock = createClock({ speed, start: START, wall: w.read });
      const seen: string[] = [];
      clock.onAdvance(async (now) => {
        await new Promise((r) => setTimeout(r, 1));
        seen.push(now.toISOString());
      });
      const after = await clock.advance(durationMs({ days: 4 }));
      expect(after.toISOString(), `speed ${speed}`).toBe("2026-01-09T12:00:00.000Z");
      expect(seen).toEqual(["2026-01-09T12:00:00.000Z"]);
      w.tick(1000);
      expect(clock.now().getTime() - after.getTime(), `speed ${speed}`).toBe(1000 * speed);
    }
  });

  it("stops calling a listener once it is removed", async () => {
    const clock = createClock({ speed: 0, start: START });
    let calls = 0;
    const off = clock.onAdvance(() => {
      calls++;
    });
    await clock.advance(1000);
    off();
    await clock.advance(1000);
    expect(calls).toBe(1);
  });

  it("never goes backwards", async () => {
    const clock = createClock({ speed: 0, start: START });
    await expect(clock.advance(-1)).rejects.toThrow(RangeError);
    await expect(clock.advance(Number.NaN)).rejects.toThrow(RangeError);
    expect(clock.now()).toEqual(START);
  });

  it("converts the advance units to milliseconds", () => {
    expect(durationMs({ days: 1, hours: 2, minutes: 3, seconds: 4 })).toBe(((24 + 2) * 60 + 3) * 60_000 + 4000);
    expect(durationMs({})).toBe(0);
  });
});
