import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHarness, expectError, expectStatus, type Harness } from "../../support/harness.ts";
import { createRateLimiter } from "../../../src/api/middleware/rate-limit.ts";
import { ApiError } from "../../../src/api/errors.ts";

let h: Harness;
beforeAll(async () => {
  // A burst of 2 that refills one token every 100 s: the third quick request is always over the limit.
  h = await createHarness({ env: { RATE_LIMIT_PER_SECOND: "0.01", RATE_LIMIT_BURST: "2" } });
});
afterAll(() => h.close());

describe("rate limit", () => {
  it("answers 429 rate_limit_exceeded with Retry-After once an account's burst is spent", async () => {
    const acct = await h.createAccount();
    const client = acct.as("test");
    await expectStatus(await client.get("/v1/programs"), 200);
    await expectStatus(await client.get("/v1/programs"), 200);
    const limited = await client.get("/v1/programs");
    const retryAfter = Number(limited.headers.get("Retry-After"));
    expect(await expectError(limited, 429, "rate_limit_exceeded")).toMatch(/retry after \d+s/);
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(90);
    expect(retryAfter).toBeLessThanOrEqual(100);
    // Writes count against the same bucket.
    await expectError(await client.post("/v1/programs", { name: "x" }), 429, "rate_limit_exceeded");
  });

  it("keeps one bucket per account: its live key shares it, other accounts are not slowed", async () => {
    const acct = await h.createAccount();
    for (let i = 0; i < 2; i++) await expectStatus(await acct.as("test").get("/v1/programs"), 200);
    await expectError(await acct.as("test").get("/v1/programs"), 429, "rate_limit_exceeded");
    await expectError(await acct.as("live").get("/v1/programs"), 429, "rate_limit_exceeded");
    await expectStatus(await (await h.createAccount()).as("test").get("/v1/programs"), 200);
  });

  it("does not spend tokens on requests without a valid key", async () => {
    const acct = await h.createAccount();
    for (let i = 0; i < 3; i++) await expectError(await h.request("GET", "/v1/programs"), 401, "unauthorized");
    await expectStatus(await acct.as("test").get("/v1/programs"), 200);
  });
});

describe("token bucket", () => {
  it("refills at the configured rate up to the burst", () => {
    let now = 0;
    const limiter = createRateLimiter(2, 3, () => now);
    for (let i = 0; i < 3; i++) limiter.take("k");
    expect(() => limiter.take("k")).toThrow(ApiError);
    now += 499;
    expect(() => limiter.take("k")).toThrow(ApiError);
    now += 1;
    limiter.take("k");
    // A long pause refills only up to the burst.
    now += 60_000;
    for (let i = 0; i < 3; i++) limiter.take("k");
    try {
      limiter.take("k");
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).status).toBe(429);
      expect((err as ApiError).headers["Retry-After"]).toBe("1");
    }
  });
});
