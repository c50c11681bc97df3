// The MID-insights access rules (insightsAuth and the program check) on every MID-insights route:
// Bearer live key, version header, premium tier, the caller's own program, and the rate limit.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHarness, expectError, expectStatus, type Harness } from "../../support/harness.ts";
import { VERSION, insightsClient, seededProgram, type SeededProgram } from "../../support/mid-insights.ts";
import { createAccountLimiter } from "../../../src/api/middleware/rate-limit.ts";

let h: Harness;
let p: SeededProgram;
let exportId: string;
let insightId: string;

beforeAll(async () => {
  h = await createHarness();
  p = await seededProgram(h, 6);
  exportId = (await expectStatus<{ id: string }>(await p.client.post(`${p.path}/exports`, { format: "json", recipients: ["a@example.com"] }), 201)).id;
  insightId = (await expectStatus<{ items: { id: string }[] }>(await p.client.get(p.path), 200)).items[0]!.id;
});
afterAll(() => h.close());

/** Every MID-insights operation, with a valid body where it takes one. */
const operations = (path: string) =>
  [
    ["GET", path, undefined],
    ["POST", `${path}/offboard-requests`, { midInsightId: insightId }],
    ["POST", `${path}/exports`, { format: "csv", recipients: ["a@example.com"] }],
    ["GET", `${path}/exports/${exportId}`, undefined],
    ["GET", `${path}/exports/${exportId}/file`, undefined],
  ] as const;

const send = (method: string, path: string, body: unknown, headers: Record<string, string>) =>
  h.request(method, path, { headers, ...(body === undefined ? {} : { body }) });

describe("MID insights access", () => {
  it("answers 401 without the Bearer header, for unknown and test keys, and for the management key header", async () => {
    const version = { "Cardlink-Version": VERSION };
    const cases: [string, Record<string, string>, RegExp][] = [
      ["no Authorization", version, /Missing Authorization: Bearer/],
      ["an unknown key", { ...version, Authorization: "Bearer sk_live_doesnotexist0000000000000000000" }, /not a valid key/],
      ["the test key", { ...version, Authorization: `Bearer ${p.account.keys.test}` }, /need the live secret key; a test key was given/],
      ["the management key header", { ...version, "Cardlink-Key": p.account.keys.live }, /Missing Authorization: Bearer/],
      ["another scheme", { ...version, Authorization: `Basic ${p.account.keys.live}` }, /Missing Authorization: Bearer/],
      ["an empty Bearer", { ...version, Authorization: "Bearer " }, /Missing Authorization: Bearer/],
    ];
    for (const [method, path, body] of operations(p.path)) {
      for (const [what, headers, message] of cases) {
        expect(await expectError(await send(method, path, body, headers), 401, "unauthorized"), `${method} ${path} with ${what}`).toMatch(message);
      }
    }
  });

  it("answers 400 naming the supported versions when the version header is missing or unknown", async () => {
    const bearer = { Authorization: `Bearer ${p.account.keys.live}` };
    for (const [method, path, body] of operations(p.path)) {
      expect(await expectError(await send(method, path, body, bearer), 400, "invalid_request")).toBe(
        `Cardlink-Version: required; supported versions: ${VERSION}.`,
      );
      for (const version of ["2023-01-01", "latest", "2024-11-25x"]) {
        expect(await expectError(await send(method, path, body, { ...bearer, "Cardlink-Version": version }), 400, "invalid_request")).toBe(
          `Cardlink-Version: unknown version ${version}; supported versions: ${VERSION}.`,
        );
      }
    }
  });

  it("answers 403 tier_restricted to an account that is not premium", async () => {
    const standard = await h.createAccount({ tier: "standard" });
    const program = await expectStatus<{ id: string }>(await standard.as("live").post("/v1/programs", { name: "S" }), 201);
    const client = insightsClient(h, standard.keys.live);
    for (const [method, path, body] of operations(`/v1/programs/${program.id}/mid-insights`)) {
      const res = method === "GET" ? await client.get(path) : await client.post(path, body);
      expect(await expectError(res, 403, "tier_restricted")).toMatch(/premium tier/);
    }
    // Upgrading the account opens MID insights to the same key.
    await expectStatus(await h.admin("PATCH", `/admin/accounts/${standard.id}`, { tier: "premium" }), 200);
    await expectStatus(await client.get(`/v1/programs/${program.id}/mid-insights`), 200);
  });

  it("answers 404 for another account's program, an unknown program and a test program, before checking the request", async () => {
    const other = await seededProgram(h, 0);
    const testProgram = await expectStatus<{ id: string }>(await p.account.as("test").post("/v1/programs", { name: "T" }), 201);
    for (const programId of [other.programId, "7d0f4f9e-2b1c-4c7a-9e3d-5a6b7c8d9e0f", testProgram.id]) {
      for (const [method, path, body] of operations(`/v1/programs/${programId}/mid-insights`)) {
        const res = method === "GET" ? await p.client.get(path) : await p.client.post(path, body);
        expect(await expectError(res, 404, "resource_not_found"), `${method} ${path}`).toBe(`No program with id ${programId}.`);
      }
      // An invalid body or query does not reveal anything about a program that is not the caller's.
      await expectError(await p.client.post(`/v1/programs/${programId}/mid-insights/exports`, { format: "xml" }), 404, "resource_not_found");
      await expectError(await p.client.get(`/v1/programs/${programId}/mid-insights?limit=0`), 404, "resource_not_found");
    }
    // Records of the caller's program are not reachable through another program's path.
    await expectError(await other.client.post(`${other.path}/offboard-requests`, { midInsightId: insightId }), 404, "resource_not_found");
    await expectError(await other.client.get(`${other.path}/exports/${exportId}`), 404, "resource_not_found");
    await expectError(await other.client.get(`${other.path}/exports/${exportId}/file`), 404, "resource_not_found");
  });

  it("answers 429 rate_limit_exceeded with Retry-After once the key's burst is spent", async () => {
    const { limiter } = h.services;
    // A burst of 2 that refills a token every 100 s, for this test only.
    h.services.limiter = createAccountLimiter(h.services.db, 0.01, 2);
    try {
      await expectStatus(await p.client.get(p.path), 200);
      await expectStatus(await p.client.get(`${p.path}?select=count`), 200);
      const limited = await p.client.get(p.path);
      expect(await expectError(limited, 429, "rate_limit_exceeded")).toMatch(/retry after \d+s/);
      expect(Number(limited.headers.get("Retry-After"))).toBeGreaterThanOrEqual(90);
      await expectError(await p.client.post(`${p.path}/exports`, { format: "csv" }), 429, "rate_limit_exceeded");
      // The bucket is per account: another account's key is not slowed.
      const other = await seededProgram(h, 0);
      await expectStatus(await other.client.get(other.path), 200);
    } finally {
      h.services.limiter = limiter;
    }
  });
});
