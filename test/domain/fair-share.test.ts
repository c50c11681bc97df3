import { describe, expect, it } from "vitest";
import { DeficitRoundRobin, fairShares, median, nextCapacity, type CapacitySignals } from "../../src/domain/fair-share.ts";

/** Everything `queue` gives, in order, as `tenant:item`. */
function drain<T>(queue: DeficitRoundRobin<T>, eligible?: (tenant: string) => boolean): string[] {
  const out: string[] = [];
  for (let next = queue.shift(eligible); next; next = queue.shift(eligible)) out.push(`${next.tenant}:${String(next.item)}`);
  return out;
}

describe("DeficitRoundRobin", () => {
  it("serves tenants in turns, each tenant's items in the order they came", () => {
    const queue = new DeficitRoundRobin<number>();
    for (let i = 1; i <= 4; i++) queue.push("heavy", i);
    queue.push("light", 1);
    queue.push("other", 1);
    queue.push("other", 2);
    expect(queue.size).toBe(7);
    expect(drain(queue)).toEqual(["heavy:1", "light:1", "other:1", "heavy:2", "other:2", "heavy:3", "heavy:4"]);
    expect(queue.size).toBe(0);
    expect(queue.shift()).toBeUndefined();
  });

  it("a tenant arriving behind a long queue is served within one turn", () => {
    const queue = new DeficitRoundRobin<number>();
    for (let i = 1; i <= 1000; i++) queue.push("heavy", i);
    queue.shift();
    queue.push("light", 1);
    expect(drain(queue)[0]).toBe("light:1");
  });

  it("shares by cost, not by count: a tenant of costly items gets fewer of them", () => {
    const queue = new DeficitRoundRobin<string>(2);
    for (const item of ["a", "b", "c"]) queue.push("big", item, 4);
    for (const item of ["a", "b", "c", "d", "e", "f"]) queue.push("small", item, 1);
    // Each turn gives 2 units: small takes two items a turn, big one item every second turn.
    expect(drain(queue)).toEqual(["small:a", "small:b", "big:a", "small:c", "small:d", "small:e", "small:f", "big:b", "big:c"]);
  });

  it("passes over tenants that may not start, keeping their place", () => {
    const queue = new DeficitRoundRobin<number>();
    queue.push("held", 1);
    queue.push("free", 1);
    queue.push("free", 2);
    expect(drain(queue, (t) => t !== "held")).toEqual(["free:1", "free:2"]);
    expect(queue.sizeOf("held")).toBe(1);
    expect(drain(queue)).toEqual(["held:1"]);
  });
});

describe("fairShares", () => {
  it("gives light tenants what they ask and splits the rest among the heavy", () => {
    const shares = fairShares(new Map([["heavy", 500], ["light", 1], ["mid", 30], ["other-heavy", 90]]), 100);
    expect(Object.fromEntries(shares)).toEqual({ light: 1, mid: 30, heavy: 34.5, "other-heavy": 34.5 });
  });

  it("a tenant alone gets the whole capacity, never more than it asks", () => {
    expect(fairShares(new Map([["a", 500]]), 64).get("a")).toBe(64);
    expect(fairShares(new Map([["a", 3]]), 64).get("a")).toBe(3);
  });

  it("a smaller capacity shrinks the heaviest share first; the light keep theirs", () => {
    const demands = new Map([["heavy", 200], ["light", 2]]);
    expect(fairShares(demands, 64).get("light")).toBe(2);
    expect(fairShares(demands, 8).get("light")).toBe(2);
    expect(fairShares(demands, 8).get("heavy")).toBe(6);
    expect(fairShares(demands, 2).get("light")).toBe(1);
  });
});

describe("nextCapacity", () => {
  const bounds = { min: 4, max: 256, tolerance: 1.2 };
  const calm: CapacitySignals = { contended: true, latencyMs: 30, baselineMs: 28, backlogged: false, inFlight: 64 };

  it("cuts what is in flight by a quarter while the stream is backlogged, down to the minimum", () => {
    expect(nextCapacity(256, { ...calm, contended: false, backlogged: true, inFlight: 64 }, bounds)).toBe(48);
    expect(nextCapacity(5, { ...calm, backlogged: true, inFlight: 5 }, bounds)).toBe(4);
  });

  it("cuts while contending tenants' latency is past tolerance × baseline, not while one is alone", () => {
    expect(nextCapacity(64, { ...calm, latencyMs: 60 }, bounds)).toBe(48);
    expect(nextCapacity(64, { ...calm, contended: false, latencyMs: 60 }, bounds)).toBe(128);
  });

  it("grows a capacity the work fills while latency is within tolerance; holds one it does not", () => {
    expect(nextCapacity(64, calm, bounds)).toBe(70);
    expect(nextCapacity(8, { ...calm, inFlight: 7 }, bounds)).toBe(9);
    expect(nextCapacity(64, { ...calm, inFlight: 10 }, bounds)).toBe(64);
    expect(nextCapacity(255, { ...calm, inFlight: 255 }, bounds)).toBe(256);
  });

  it("holds without a latency reading while tenants contend", () => {
    expect(nextCapacity(20, { ...calm, latencyMs: undefined, inFlight: 5 }, bounds)).toBe(20);
  });
});

describe("median", () => {
  it("is the middle value, the lower of two", () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2);
    expect(median([])).toBeUndefined();
  });
});
