import { describe, expect, it } from "vitest";
import { MID_FORMATS, type MidField } from "../../src/domain/mid-formats.ts";

const cases: Record<MidField, { good: string[]; bad: string[] }> = {
  vmid: { good: ["123456", "12345678"], bad: ["12345", "123456789", "12345a"] },
  vsid: { good: ["654321", "87654321"], bad: ["1234", "123456789"] },
  visaAcquiringMid: { good: ["1", "CAID0001", "A".repeat(15)], bad: ["", "CAID-1", "A".repeat(16)] },
  visaBin: { good: ["412345", "12345678901"], bad: ["41234", "123456789012", "41234x"] },
  mcLocationId: { good: ["1", "123456789012"], bad: ["", "1234567890123", "12a"] },
  mcAcquiringMid: { good: ["MC0001", "9".repeat(15)], bad: ["", "MC 0001", "9".repeat(16)] },
  seNumber: { good: ["1234567890"], bad: ["123456789", "12345678901", "123456789a"] },
};

describe("MID formats", () => {
  it.each(Object.keys(cases) as MidField[])("%s accepts its format and nothing else", (field) => {
    const { pattern } = MID_FORMATS[field];
    for (const v of cases[field].good) expect(pattern.test(v), `${field} ${v}`).toBe(true);
    for (const v of cases[field].bad) expect(pattern.test(v), `${field} ${v}`).toBe(false);
  });
});
