import { describe, expect, it } from "vitest";
import { MAIL_RETRY_SECONDS, isFinalRefusal, mailRetryDelaySeconds } from "../../src/domain/mail-delivery.ts";

describe("when a failed e-mail is tried again", () => {
  it("waits 2 s after the first failure, longer after each, and gives up after about five days", () => {
    expect(mailRetryDelaySeconds(1)).toBe(2);
    expect(mailRetryDelaySeconds(2)).toBe(10);
    for (let n = 2; n <= MAIL_RETRY_SECONDS.length; n++) expect(mailRetryDelaySeconds(n)!).toBeGreaterThanOrEqual(mailRetryDelaySeconds(n - 1)!);
    const total = MAIL_RETRY_SECONDS.reduce((a, b) => a + b, 0);
    expect(total / 86_400).toBeGreaterThan(4.5);
    expect(total / 86_400).toBeLessThan(5.5);
    expect(mailRetryDelaySeconds(MAIL_RETRY_SECONDS.length + 1)).toBeNull();
  });

  it("takes a 5xx answer to the recipient or the message as final, and everything else as worth another try", () => {
    expect(isFinalRefusal({ responseCode: 550, code: "EENVELOPE" })).toBe(true);
    expect(isFinalRefusal({ responseCode: 552, code: "EMESSAGE" })).toBe(true);
    expect(isFinalRefusal({ responseCode: 451, code: "EENVELOPE" })).toBe(false);
    expect(isFinalRefusal({ responseCode: 535, code: "EAUTH" })).toBe(false);
    expect(isFinalRefusal({ code: "ECONNECTION" })).toBe(false);
    expect(isFinalRefusal({ code: "ETIMEDOUT" })).toBe(false);
  });
});
