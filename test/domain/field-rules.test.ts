import { z } from "zod";
import { describe, expect, it } from "vitest";
import { describeZodError } from "../../src/domain/field-errors.ts";
import { between, brokenRules, countryCode, date, digits, instant, localDateTime, nonEmpty, uuid, withFieldRules } from "../../src/domain/field-rules.ts";

const order = z.object({
  id: z.string(),
  card: z.object({ firstSix: z.string(), lastFour: z.string() }).nullable(),
  lines: z.array(z.object({ sku: z.string(), quantity: z.number() })),
  note: z.string().nullable(),
});
type Order = z.output<typeof order>;

const rules = {
  id: nonEmpty,
  card: { firstSix: digits(6), lastFour: digits(4) },
  lines: { sku: nonEmpty, quantity: between(1, 99, "must be 1 to 99") },
  note: nonEmpty,
};

const good: Order = { id: "o1", card: { firstSix: "424242", lastFour: "4242" }, lines: [{ sku: "a", quantity: 1 }], note: null };

describe("field rules", () => {
  it("names each broken rule by its path, nested records and array items included, in the value's field order", () => {
    expect(brokenRules(good, rules)).toEqual([]);
    const bad: Order = { id: " ", card: { firstSix: "42424", lastFour: "4242" }, lines: [{ sku: "a", quantity: 1 }, { sku: "", quantity: 100 }], note: "" };
    expect(brokenRules(bad, rules)).toEqual([
      { path: ["id"], rule: "must not be empty" },
      { path: ["card", "firstSix"], rule: "must be 6 digits" },
      { path: ["lines", 1, "sku"], rule: "must not be empty" },
      { path: ["lines", 1, "quantity"], rule: "must be 1 to 99" },
      { path: ["note"], rule: "must not be empty" },
    ]);
  });

  it("does not check a null field: whether it may be null is the schema's to say", () => {
    expect(brokenRules({ ...good, card: null, note: null }, rules)).toEqual([]);
  });

  it("layered on a schema, reads like every validation error, and only once the value has the schema's structure", () => {
    const checked = withFieldRules(order, rules);
    const reason = (value: unknown) => {
      const parsed = checked.safeParse(value);
      return parsed.success ? "" : describeZodError(parsed.error, "value");
    };
    expect(reason(good)).toBe("");
    expect(reason({ ...good, card: { firstSix: "4242", lastFour: "42" } })).toBe("card.firstSix: must be 6 digits; card.lastFour: must be 4 digits");
    expect(reason({ ...good, id: "", lines: "none" })).toBe("lines: Invalid input: expected array, received string");
  });

  it("states the formats the messages use", () => {
    const broken = (rule: (v: string) => string | undefined, ...values: string[]) => values.map(rule);
    expect(broken(uuid, "3f2b9c1e-8d4a-4b6e-9f1a-2c3d4e5f6a7b", "3f2b9c1e")).toEqual([undefined, "must be a UUID"]);
    expect(broken(instant, "2026-01-05T12:00:00.000Z", "2026-01-05T12:00:00+01:00", "yesterday")).toEqual([undefined, undefined, "must be an ISO 8601 instant"]);
    expect(broken(date, "2028-02-29", "2026-02-29", "20/01/2026")).toEqual([undefined, "must be a date, YYYY-MM-DD", "must be a date, YYYY-MM-DD"]);
    expect(broken(localDateTime, "2026-01-05T12:30:00", "2026-01-32T12:30:00")).toEqual([undefined, "must be YYYY-MM-DDThh:mm:ss"]);
    expect(broken(countryCode, "GBR", "XXX")).toEqual([undefined, "must be an ISO 3166-1 alpha-3 country code"]);
  });
});
