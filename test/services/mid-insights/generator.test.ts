import { describe, expect, it } from "vitest";
import {
  brandBlocks,
  locationOfMid,
  locationsFor,
  seedBrand,
  seedLocation,
  seedMid,
  type SeedPlan,
} from "../../../src/services/mid-insights/generator.ts";
import { identifierProblems, networkKey } from "../../../src/domain/mid-insights.ts";

const plan: SeedPlan = { programId: "5b0c2d9e-1f3a-4c5b-8d6e-7f8091a2b3c4", seed: 42, now: new Date("2026-01-05T12:00:00Z") };

function generate(p: SeedPlan, count: number) {
  const { brandOf } = brandBlocks(p.seed);
  const brands = Array.from({ length: brandOf(locationsFor(count) - 1) + 1 }, (_, b) => seedBrand(p, b));
  return Array.from({ length: count }, (_, i) => {
    const l = locationOfMid(i);
    const brand = brands[brandOf(l)]!;
    return seedMid(p, i, { ...seedLocation(p, l, brand), index: l }, brand);
  });
}

describe("generated MIDs", () => {
  const mids = generate(plan, 3000);

  it("are the same for the same program, seed and service time, and differ for another seed", () => {
    // However many are generated: the first 30 of 3000 are the 30 of 30.
    expect(generate(plan, 30)).toEqual(mids.slice(0, 30));
    const other = generate({ ...plan, seed: 43 }, 30);
    expect(other.map((m) => m.seNumber ?? m.vsid ?? m.mcLocationId)).not.toEqual(
      mids.slice(0, 30).map((m) => m.seNumber ?? m.vsid ?? m.mcLocationId),
    );
  });

  it("carry valid identifiers for their network, unique per program", () => {
    for (const m of mids) expect(identifierProblems(m.scheme, m), `${m.scheme} ${m.networkKey}`).toEqual([]);
    expect(new Set(mids.map((m) => m.networkKey)).size).toBe(mids.length);
    expect(new Set(mids.flatMap((m) => [m.midId, m.insightId])).size).toBe(2 * mids.length);
    for (const m of mids) expect(m.networkKey).toBe(networkKey(m.scheme, m));
    expect(mids.filter((m) => m.scheme === "amex").every((m) => /^\d{10}$/.test(m.seNumber!))).toBe(true);
    expect(mids.filter((m) => m.scheme === "visa").every((m) => /^\d{6,8}$/.test(m.vmid!))).toBe(true);
  });

  it("belong to brands of 20 to 280 locations, whatever the count", () => {
    const { brandOf } = brandBlocks(plan.seed);
    const sizes = new Map<number, number>();
    for (let l = 0; l < 20_000; l++) sizes.set(brandOf(l), (sizes.get(brandOf(l)) ?? 0) + 1);
    const whole = [...sizes.entries()].filter(([b]) => b < brandOf(19_999)).map(([, n]) => n);
    expect(Math.min(...whole)).toBeGreaterThanOrEqual(20);
    expect(Math.max(...whole)).toBeLessThanOrEqual(280);
    expect(brandBlocks(plan.seed).brandOf(12_345)).toBe(brandOf(12_345));
  });

  it("have a realistic spread of networks, statuses and origins", () => {
    const share = (pred: (m: (typeof mids)[number]) => boolean) => mids.filter(pred).length / mids.length;
    for (const scheme of ["visa", "mastercard", "amex"]) expect(share((m) => m.scheme === scheme)).toBeCloseTo(1 / 3, 2);
    expect(share((m) => m.status === "onboarded")).toBeGreaterThan(0.6);
    expect(share((m) => m.status === "offboarded")).toBeGreaterThan(0.05);
    expect(share((m) => m.status === "sourced")).toBeGreaterThan(0.05);
    expect(new Set(mids.map((m) => m.origin)).size).toBe(9);
    expect(mids.filter((m) => m.origin === "system-mid-lookup").every((m) => m.scheme === "visa")).toBe(true);
  });

  it("keep their timeline in order, never after the service time", () => {
    const now = plan.now.getTime();
    for (const m of mids) {
      const t = (d: Date | null) => d?.getTime() ?? null;
      expect(t(m.created)).toBe(t(m.sourcedAt));
      if (m.onboardedAt) expect(t(m.onboardedAt)!).toBeGreaterThan(t(m.sourcedAt)!);
      if (m.offboardedAt) expect(t(m.offboardedAt)!).toBeGreaterThan(t(m.onboardedAt)!);
      if (m.lastSeenTransactionDate) {
        expect(t(m.lastSeenTransactionDate)!).toBeGreaterThanOrEqual(t(m.onboardedAt)!);
        expect(t(m.lastSeenTransactionDate)!).toBeLessThanOrEqual(t(m.offboardedAt) ?? now);
        expect(m.lastSeenTransactionId && m.firstTransactionAuthId).toBeTruthy();
      }
      expect(m.status === "sourced").toBe(m.onboardedAt === null);
      expect(m.status === "offboarded").toBe(m.offboardedAt !== null);
      const latest = Math.max(...[m.sourcedAt, m.onboardedAt, m.offboardRequestedAt, m.offboardedAt, m.lastSeenTransactionDate].map((d) => t(d) ?? 0));
      expect(t(m.eventTs)).toBe(latest);
      expect(t(m.eventTs)!).toBeLessThanOrEqual(now);
      expect(t(m.updated)!).toBeGreaterThanOrEqual(t(m.eventTs)!);
      expect(t(m.updated)!).toBeLessThanOrEqual(now);
      // A pending offboard request falls due after the service time; a done one has none.
      if (m.offboardDue) expect(m.status === "onboarded" && t(m.offboardDue)! > now).toBe(true);
    }
  });
});
