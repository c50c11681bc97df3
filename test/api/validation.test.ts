// Rule: validation cannot stall: a request with 100,000 items is a small 400 naming the field, every
// schema bounds its arrays, and an error lists at most ten problems in at most 4 KB.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHarness, expectStatus, type Harness, type TestAccount } from "../support/harness.ts";

let h: Harness;
let acct: TestAccount;

beforeAll(async () => {
  h = await createHarness();
  acct = await h.createAccount();
});
afterAll(() => h.close());

async function smallError(res: Response) {
  const text = await res.text();
  expect(res.status).toBe(400);
  expect(Buffer.byteLength(text)).toBeLessThanOrEqual(4096);
  return (JSON.parse(text) as { error: { code: string; message: string } }).error;
}

describe("oversized input", () => {
  it("answers an offer with 100,000 daysOfWeek with a small 400 naming the field", async () => {
    const started = performance.now();
    const error = await smallError(await acct.as("test").post("/v1/offers", { name: "Big", daysOfWeek: Array(100_000).fill("monday") }));
    console.log(`100,000 daysOfWeek: 400 in ${(performance.now() - started).toFixed(1)} ms`);
    expect(error.code).toBe("invalid_request");
    expect(error.message).toMatch(/^daysOfWeek: at most 1000 items/);
  });

  it("refuses more than 7 days and more than 3 schemes by the schema's own bound", async () => {
    const days = await smallError(await acct.as("test").post("/v1/offers", { daysOfWeek: [0, 1, 2, 3, 4, 5, 6, 0] }));
    expect(days.message).toContain("daysOfWeek: must name at most 7 days");
    const schemes = await smallError(await acct.as("test").post("/v1/offers", { schemes: ["visa", "visa", "visa", "amex"] }));
    expect(schemes.message).toContain("schemes: must name at most 3 schemes");
  });

  it("answers 200,000 metadata items with a small 400", async () => {
    const started = performance.now();
    const error = await smallError(await acct.as("test").post("/v1/programs", { name: "Big", metadata: { list: Array(200_000).fill(1) } }));
    console.log(`200,000 metadata items: 400 in ${(performance.now() - started).toFixed(1)} ms`);
    expect(error.message).toMatch(/^metadata\.list: at most 1000 items/);
  });

  it("lists the first ten problems and counts the rest", async () => {
    const body = Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`unknown${i}`, i]));
    const error = await smallError(await acct.as("test").post("/v1/programs", { name: "p", ...body }));
    expect(error.message.split("; ")).toHaveLength(11);
    expect(error.message).toMatch(/^unknown0: unknown field; .*; … and 15 more problems$/);
  });

  it("keeps a long message under 4 KB", async () => {
    const error = await smallError(await acct.as("test").post("/v1/programs", { name: "p", ["k".repeat(3000)]: 1, ["j".repeat(3000)]: 2 }));
    expect(error.message.endsWith("…")).toBe(true);
  });

  it("still accepts a valid offer list page", async () => {
    await expectStatus(await acct.as("test").get("/v1/offers?limit=10"), 200);
  });
});
