import { describe, expect, it, vi } from "vitest";
import { groupCommit, groupedLookup } from "../../src/platform/group-commit.ts";

describe("groupCommit", () => {
  it("runs calls made together in one round, and those made while it runs in the next", async () => {
    const rounds: number[][] = [];
    let release!: () => void;
    const first = new Promise<void>((resolve) => (release = resolve));
    const double = groupCommit<number, number>(async (inputs) => {
      rounds.push(inputs);
      if (rounds.length === 1) await first;
      return inputs.map((n) => ({ ok: n * 2 }));
    });
    const a = [double(1), double(2), double(3)];
    await new Promise((resolve) => setImmediate(resolve));
    const b = [double(4), double(5)];
    release();
    expect(await Promise.all([...a, ...b])).toEqual([2, 4, 6, 8, 10]);
    expect(rounds).toEqual([[1, 2, 3], [4, 5]]);
  });

  it("gives each call its own error, and every call of a failed round the round's error", async () => {
    const check = groupCommit<number, number>(async (inputs) => {
      if (inputs.includes(0)) throw new Error("database down");
      return inputs.map((n) => (n < 0 ? { error: new Error(`${n} is negative`) } : { ok: n }));
    });
    const [ok, bad] = await Promise.allSettled([check(1), check(-1)]);
    expect(ok).toEqual({ status: "fulfilled", value: 1 });
    expect(bad).toMatchObject({ status: "rejected", reason: new Error("-1 is negative") });
    const failed = await Promise.allSettled([check(0), check(2)]);
    expect(failed.map((r) => r.status === "rejected" && (r.reason as Error).message)).toEqual(["database down", "database down"]);
  });

  it("takes at most maxRound inputs a round", async () => {
    const sizes: number[] = [];
    const echo = groupCommit<number, number>(async (inputs) => (sizes.push(inputs.length), inputs.map((ok) => ({ ok }))), { maxRound: 2 });
    await Promise.all([1, 2, 3, 4, 5].map(echo));
    expect(sizes).toEqual([2, 2, 1]);
  });

  it("fills a full round in fair turns: one tenant's many calls delay another's by a round at most", async () => {
    const rounds: string[][] = [];
    let release!: () => void;
    const first = new Promise<void>((resolve) => (release = resolve));
    const echo = groupCommit<string, string>(
      async (inputs) => {
        rounds.push(inputs);
        if (rounds.length === 1) await first;
        return inputs.map((ok) => ({ ok }));
      },
      { maxRound: 3, fairBy: (input) => input.split(":")[0]! },
    );
    const started = [echo("a:0")];
    await new Promise((resolve) => setImmediate(resolve));
    // While the first round runs, the heavy tenant queues six calls, then a light one arrives.
    for (let i = 1; i <= 6; i++) started.push(echo(`a:${i}`));
    started.push(echo("b:1"));
    release();
    await Promise.all(started);
    expect(rounds).toEqual([["a:0"], ["a:1", "b:1", "a:2"], ["a:3", "a:4", "a:5"], ["a:6"]]);
  });
});

describe("groupCommit's tick", () => {
  it("runs a busy group's next round a tick after the last one started, and a quiet group's at once", async () => {
    vi.useFakeTimers();
    try {
      const rounds: number[][] = [];
      const echo = groupCommit<number, number>(async (inputs) => (rounds.push(inputs), inputs.map((ok) => ({ ok }))), { tickMs: 1_000 });
      // A round of one: the group is quiet, the next call's round starts on the next turn.
      const quiet = echo(1);
      await vi.advanceTimersByTimeAsync(0);
      expect(await quiet).toBe(1);
      const busy = [echo(2), echo(3)];
      await vi.advanceTimersByTimeAsync(0);
      expect(await Promise.all(busy)).toEqual([2, 3]);
      // The last round carried two: the next waits for the tick.
      const next = echo(4);
      await vi.advanceTimersByTimeAsync(999);
      expect(rounds).toEqual([[1], [2, 3]]);
      await vi.advanceTimersByTimeAsync(1);
      expect(await next).toBe(4);
      expect(rounds).toEqual([[1], [2, 3], [4]]);
    } finally {
      vi.useRealTimers();
    }
  });

  it("runs the round after a full one at once, busy or not", async () => {
    const rounds: number[][] = [];
    const echo = groupCommit<number, number>(async (inputs) => (rounds.push(inputs), inputs.map((ok) => ({ ok }))), { maxRound: 2, tickMs: 60_000 });
    await Promise.all([1, 2, 3, 4, 5].map(echo));
    expect(rounds).toEqual([[1, 2], [3, 4], [5]]);
  });
});

describe("groupCommit's size bound", () => {
  it("stops taking inputs once their sizes reach maxSize, and goes on at once with what is left", async () => {
    const rounds: number[][] = [];
    const sum = groupCommit<number, number>(async (inputs) => (rounds.push(inputs), inputs.map((ok) => ({ ok }))), {
      size: { sizeOf: (n) => n, maxSize: 5 },
    });
    await Promise.all([3, 2, 4, 9, 1].map(sum));
    expect(rounds).toEqual([[3, 2], [4, 9], [1]]);
  });
});

describe("groupedLookup", () => {
  it("looks the keys of a round up once each, per handle", async () => {
    const loads: string[][] = [];
    const find = groupedLookup(async (handle: { name: string }, keys: string[]) => {
      loads.push(keys);
      return new Map(keys.filter((k) => k !== "missing").map((k) => [k, `${handle.name}:${k}`]));
    });
    const one = { name: "one" };
    expect(await Promise.all([find(one, "a"), find(one, "b"), find(one, "a"), find(one, "missing")])).toEqual(["one:a", "one:b", "one:a", undefined]);
    expect(loads).toEqual([["a", "b", "missing"]]);
    expect(await find({ name: "two" }, "a")).toBe("two:a");
  });
});
