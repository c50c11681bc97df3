import { describe, expect, it } from "vitest";
import { checkCardNumber, detectScheme, enrolmentOutcome, expiryProblem, FAILING_TEST_NUMBERS, isTestNumber, notLinkedRule } from "../../src/domain/card-number.ts";
import { stageEvents } from "../../src/domain/stage-events.ts";
import { luhnCheckDigit } from "../../src/domain/luhn.ts";

const withCheck = (payload: string) => payload + luhnCheckDigit(payload);

describe("card numbers", () => {
  it("detects the scheme from prefix and length", () => {
    expect(detectScheme("4242424242424242")).toBe("visa");
    expect(detectScheme("4222222222222")).toBe("visa");
    expect(detectScheme("5555555555554444")).toBe("mastercard");
    expect(detectScheme(withCheck("222100000000000"))).toBe("mastercard");
    expect(detectScheme(withCheck("272000000000000"))).toBe("mastercard");
    expect(detectScheme(withCheck("272100000000000"))).toBeUndefined();
    expect(detectScheme("378282246310005")).toBe("amex");
    expect(detectScheme("340000000000306")).toBe("amex");
    expect(detectScheme("6011111111111117")).toBeUndefined();
    expect(detectScheme("42424242424242424")).toBeUndefined();
  });

  it("knows the test numbers of DESIGN.md", () => {
    for (const n of ["4444000000004008", "5555000000005007", "340000000000306", "370000000000317", "4242424242424242", "5555555555554444"]) {
      expect(isTestNumber(n), n).toBe(true);
    }
    for (const n of ["4000123456789017", "4444000000005007", "5555000000004008", "350000000000306", "378282246310005"]) {
      expect(isTestNumber(n), n).toBe(false);
    }
  });

  it("lets test keys enrol only test numbers and live keys only the others", () => {
    expect(checkCardNumber("4444000000004008", false)).toEqual({
      ok: true,
      scheme: "visa",
      firstNumbers: "444400",
      lastNumbers: "4008",
    });
    expect(checkCardNumber("370000000000317", false)).toMatchObject({ ok: true, scheme: "amex", lastNumbers: "0317" });
    expect(checkCardNumber("4000123456789017", false)).toMatchObject({ ok: false, rule: /test key accepts only test card numbers/ });
    expect(checkCardNumber("4000123456789017", true)).toMatchObject({ ok: true, scheme: "visa", firstNumbers: "400012" });
    expect(checkCardNumber("4242424242424242", true)).toMatchObject({ ok: false, rule: /live key does not accept test card numbers/ });
  });

  it("checks shape, then Luhn, then scheme, and never repeats the number", () => {
    const cases: [string, RegExp][] = [
      ["4444 0000 0000 4008", /12 to 19 digits/],
      ["44440000000", /12 to 19 digits/],
      ["4444000000004009", /Luhn/],
      [withCheck("601111111111111"), /not a Visa, Mastercard or Amex/],
    ];
    for (const [number, rule] of cases) {
      const result = checkCardNumber(number, false);
      expect(result.ok, number).toBe(false);
      if (!result.ok) {
        expect(result.rule).toMatch(rule);
        expect(result.rule).not.toContain(number);
      }
    }
  });

  it("fails the documented test ranges at enrolment, one reason each, and links every other number", () => {
    for (const f of FAILING_TEST_NUMBERS) {
      // The example is the range's one Luhn-valid number: a test number of its scheme that a test key enrols.
      expect(checkCardNumber(f.example, false), f.example).toMatchObject({ ok: true, scheme: f.scheme });
      expect(f.range.test(f.example)).toBe(true);
      expect(enrolmentOutcome(f.example)).toEqual({ status: "failed", reason: f.reason });
    }
    // Amex fails under both of its test prefixes.
    expect(enrolmentOutcome("370000000000390")).toEqual({ status: "failed", reason: "verification_failed" });
    for (const linked of ["4444000000004008", "4444000000004909", "5555000000005007", "340000000000306", "4242424242424242", "5555555555554444", "4000123456789017"]) {
      expect(enrolmentOutcome(linked), linked).toEqual({ status: "linked" });
    }
    expect(notLinkedRule({ id: "c1", status: "linked", failureReason: null })).toBeUndefined();
    expect(notLinkedRule({ id: "c1", status: "failed", failureReason: "issuer_declined" })).toBe(
      "the card c1 failed enrolment (issuer_declined) and is not linked; enrol another card",
    );
  });

  it("tells a refund of a purchase that earned cashback with transaction.refund.qualified, as the other stages' .qualified", () => {
    expect(stageEvents("refund", true)).toEqual(["transaction.refund", "transaction.refund.qualified"]);
    expect(stageEvents("refund", false)).toEqual(["transaction.refund"]);
    expect(stageEvents("auth", true)).toEqual(["transaction.auth", "transaction.auth.qualified"]);
    expect(stageEvents("clearing", false)).toEqual(["transaction.clearing"]);
  });

  it("treats a card as valid through the end of its expiry month", () => {
    const now = new Date("2026-03-31T23:59:59Z");
    expect(expiryProblem(3, 2026, now)).toBeUndefined();
    expect(expiryProblem(1, 2027, now)).toBeUndefined();
    expect(expiryProblem(2, 2026, now)).toMatchObject({ field: "expMonth", rule: /03\/2026/ });
    expect(expiryProblem(12, 2025, now)).toMatchObject({ field: "expYear" });
    expect(expiryProblem(3, 2026, new Date("2026-04-01T00:00:00Z"))).toMatchObject({ field: "expMonth" });
  });
});
