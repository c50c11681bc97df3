import { describe, expect, it } from "vitest";
import { luhnCheckDigit, luhnValid } from "../../src/domain/luhn.ts";

describe("luhn", () => {
  it("accepts numbers with a correct check digit", () => {
    for (const n of ["79927398713", "4242424242424242", "5555555555554444", "378282246310005", "4444000000004008"]) {
      expect(luhnValid(n), n).toBe(true);
    }
  });

  it("rejects a wrong check digit, a swapped pair and non-digits", () => {
    expect(luhnValid("79927398710")).toBe(false);
    expect(luhnValid("4242424242424241")).toBe(false);
    expect(luhnValid("4242424242424224")).toBe(false);
    expect(luhnValid("4242 4242 4242 4242")).toBe(false);
    expect(luhnValid("")).toBe(false);
  });

  it("computes the check digit that makes a payload valid", () => {
    expect(luhnCheckDigit("7992739871")).toBe("3");
    expect(luhnCheckDigit("424242424242424")).toBe("2");
    for (const payload of ["444400000000400", "37000000000031", "400012345678901"]) {
      expect(luhnValid(payload + luhnCheckDigit(payload))).toBe(true);
    }
    expect(() => luhnCheckDigit("12a")).toThrow(RangeError);
  });
});
