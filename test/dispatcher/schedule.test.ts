// The retry schedule's answers to a receiver: Retry-After read as seconds or a date, only on 429 and 503,
// never beyond the schedule's longest delay.
import { describe, expect, it } from "vitest";
import { RETRY_AFTER_MAX_MS, retryAfterMs } from "../../src/dispatcher/schedule.ts";

describe("Retry-After", () => {
  const sent = Date.parse("2026-01-05T12:00:00Z");

  it("reads delta-seconds and HTTP dates against the time the request was sent", () => {
    expect(retryAfterMs(429, "120", sent)).toBe(120_000);
    expect(retryAfterMs(503, " 0 ", sent)).toBe(0);
    expect(retryAfterMs(503, "Mon, 05 Jan 2026 12:30:00 GMT", sent)).toBe(1_800_000);
    expect(retryAfterMs(429, "Mon, 05 Jan 2026 11:00:00 GMT", sent)).toBe(0);
  });

  it("is capped at the schedule's longest delay", () => {
    expect(retryAfterMs(429, String(30 * 86_400), sent)).toBe(RETRY_AFTER_MAX_MS);
    expect(RETRY_AFTER_MAX_MS).toBe(36_000_000);
  });

  it("is not honoured on other answers, nor when it is not a number or a date", () => {
    expect(retryAfterMs(500, "120", sent)).toBeNull();
    expect(retryAfterMs(200, "120", sent)).toBeNull();
    expect(retryAfterMs(null, "120", sent)).toBeNull();
    expect(retryAfterMs(429, "soon", sent)).toBeNull();
    expect(retryAfterMs(429, "-5", sent)).toBeNull();
    expect(retryAfterMs(429, null, sent)).toBeNull();
  });
});
