import { describe, expect, it } from "vitest";
import { backoffMs } from "../../src/platform/backoff.ts";

describe("backoffMs", () => {
  it("doubles from its base and stops at its cap", () => {
    expect([0, 1, 2, 5, 6, 40].map((n) => backoffMs(n))).toEqual([100, 200, 400, 3_200, 5_000, 5_000]);
    expect([0, 3, 4].map((n) => backoffMs(n, { baseMs: 250 }))).toEqual([250, 2_000, 4_000]);
    expect(backoffMs(4, { capMs: 1_000 })).toBe(1_000);
  });

  it("grows without a cap when given none, with the exponent bounded so it stays finite", () => {
    expect(backoffMs(5, { capMs: Infinity })).toBe(3_200);
    expect(Number.isFinite(backoffMs(10_000, { capMs: Infinity }))).toBe(true);
  });
});
