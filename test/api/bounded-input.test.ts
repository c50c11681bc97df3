// Bad input is a 4xx naming the field, never a 5xx: body size, metadata limits, strings PostgreSQL
// cannot store, deep nesting, clock advances out of range, PATCH without a body, unsupported methods.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHarness, expectError, expectStatus, type Harness, type TestAccount } from "../support/harness.ts";
import { METADATA_LIMITS } from "../../src/api/schemas.ts";

let h: Harness;
let acct: TestAccount;
let programId: string;

beforeAll(async () => {
  h = await createHarness();
  acct = await h.createAccount();
  programId = (await expectStatus<{ id: string }>(await acct.as("test").post("/v1/programs", { name: "Bounds" }), 201)).id;
});
afterAll(() => h.close());

const raw = (method: string, path: string, body: string, headers: Record<string, string> = {}) =>
  h.request(method, path, { body, headers: { "Cardlink-Key": acct.keys.test, "content-type": "application/json", ...headers } });

describe("request bodies", () => {
  it("refuses a body over 1 MiB with 413 and the error body", async () => {
    const big = JSON.stringify({ name: "big", metadata: { blob: "x".repeat(2 * 1024 * 1024) } });
    const message = await expectError(await raw("POST", "/v1/programs", big), 413, "payload_too_large");
    expect(message).toBe("body: at most 1048576 bytes");
  });

  it("refuses U+0000 in any string with 400 naming the field", async () => {
    expect(await expectError(await acct.as("test").post("/v1/programs", { name: "a\u0000b" }), 400, "invalid_request")).toBe(
      "name: must not contain U+0000 (NUL)",
    );
    expect(await expectError(await acct.as("test").post("/v1/brands", { name: "Brand", metadata: { note: ["ok", "x\u0000"] } }), 400, "invalid_request")).toBe(
      "metadata.note.1: must not contain U+0000 (NUL)",
    );
    expect(await expectError(await acct.as("test").post("/v1/programs", { name: "p", metadata: { "k\u0000": 1 } }), 400, "invalid_request")).toMatch(
      /^metadata: field names must not contain U\+0000/,
    );
  });

  it("refuses unpaired surrogates, keeps paired ones", async () => {
    // JSON.stringify escapes a lone surrogate as \ud800, which JSON.parse turns back into one.
    expect(await expectError(await raw("POST", "/v1/programs", '{"name":"a\\ud800b"}'), 400, "invalid_request")).toBe(
      "name: must not contain unpaired UTF-16 surrogates",
    );
    expect(await expectError(await raw("POST", "/v1/programs", '{"name":"a\\udc00"}'), 400, "invalid_request")).toMatch(/^name: /);
    const ok = await expectStatus<{ name: string }>(await raw("POST", "/v1/programs", '{"name":"emoji \\ud83d\\ude00"}'), 201);
    expect(ok.name).toBe("emoji 😀");
  });

  it("refuses U+0000 in a query string with 400 naming the parameter", async () => {
    expect(await expectError(await acct.as("test").get("/v1/programs?start=a%00b"), 400, "invalid_request")).toBe(
      "start: must not contain U+0000 (NUL)",
    );
  });

  it("refuses nesting 10,000 deep with 400, not a stack overflow", async () => {
    const deep = `{"name":"deep","metadata":${'{"a":'.repeat(10_000)}"leaf"${"}".repeat(10_000)}}`;
    const message = await expectError(await raw("POST", "/v1/programs", deep), 400, "invalid_request");
    expect(message).toMatch(/^metadata\.a\.a.*: nested more than 32 levels deep$/);
  });

  it("answers PATCH without a body with 400", async () => {
    const res = await h.request("PATCH", `/v1/programs/${programId}`, { headers: { "Cardlink-Key": acct.keys.test } });
    expect(await expectError(res, 400, "invalid_request")).toBe("body: required, a JSON object sent with Content-Type: application/json");
    // An empty object changes nothing and is valid.
    await expectStatus(await acct.as("test").patch(`/v1/programs/${programId}`, {}), 200);
  });
});

describe("metadata limits", () => {
  const post = (metadata: unknown) => acct.as("test").post("/v1/programs", { name: "meta", metadata });
  const L = METADATA_LIMITS;

  it("accepts metadata at every limit", async () => {
    const atLimit = Object.fromEntries(Array.from({ length: L.keys }, (_, i) => [`k${i}`.padEnd(L.keyLength, "x"), i]));
    await expectStatus(await post(atLimit), 201);
    await expectStatus(await post({ a: { b: { c: "x".repeat(L.valueLength) } } }), 201);
  });

  it.each([
    ["too many keys", Object.fromEntries(Array.from({ length: L.keys + 1 }, (_, i) => [`k${i}`, i])), `metadata: at most ${L.keys} keys`],
    ["a long key", { ["k".repeat(L.keyLength + 1)]: 1 }, `metadata.${"k".repeat(L.keyLength + 1)}: keys must be 1 to ${L.keyLength} characters`],
    ["a long value", { note: "x".repeat(L.valueLength + 1) }, `metadata.note: must be at most ${L.valueLength} characters`],
    ["deep nesting", { a: { b: { c: { d: 1 } } } }, `metadata.a.b.c: metadata nests at most ${L.depth} levels deep`],
    ["too many bytes", Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, "x".repeat(450)])), `metadata: at most ${L.bytes} bytes as JSON`],
  ])("refuses %s with 400 naming the field", async (_, metadata, message) => {
    expect(await expectError(await post(metadata), 400, "invalid_request")).toBe(message);
  });

  it("documents the limits in the OpenAPI description", async () => {
    const doc = await expectStatus<{ components: { schemas: Record<string, { properties: Record<string, Record<string, unknown>> }> } }>(
      await h.request("GET", "/v1/openapi.json"),
      200,
    );
    const metadata = doc.components.schemas.ProgramCreate!.properties.metadata!;
    expect(metadata).toMatchObject({ maxProperties: L.keys, propertyNames: { maxLength: L.keyLength } });
    expect(metadata.description).toContain(`at most ${L.bytes} bytes`);
  });
});

describe("POST /admin/clock/advance", () => {
  it.each([
    [{ days: 3_000_000 }, "days: must be at most 366 (366 days) at a time"],
    [{ seconds: 1e15 }, "seconds: must be at most 31622400 (366 days) at a time"],
    [{ hours: -1 }, "hours: must be 0 or more"],
  ])("refuses %j with 400 naming the field", async (body, message) => {
    expect(await expectError(await h.admin("POST", "/admin/clock/advance", body), 400, "invalid_request")).toBe(message);
  });

  it("never moves service time past 9900-01-01, and writes keep working", async () => {
    const far = await createHarness({ clockStart: "9899-06-01T00:00:00Z" });
    try {
      const message = await expectError(await far.admin("POST", "/admin/clock/advance", { days: 300 }), 400, "invalid_request");
      expect(message).toMatch(/^body: service time would pass 9900-01-01T00:00:00.000Z/);
      await expectStatus(await far.admin("POST", "/admin/clock/advance", { days: 100 }), 200);
      const account = await far.createAccount();
      await expectStatus(await account.as("test").post("/v1/programs", { name: "Still writes" }), 201);
    } finally {
      await far.close();
    }
  });
});

describe("unsupported methods", () => {
  it("answer 405 with Allow on a known path, 404 on an unknown one", async () => {
    const res = await h.request("PUT", `/v1/programs/${programId}`, { headers: { "Cardlink-Key": acct.keys.test } });
    expect(await expectError(res, 405, "method_not_allowed")).toMatch(/^PUT is not allowed/);
    expect(res.headers.get("allow")?.split(", ").sort()).toEqual(["GET", "HEAD", "PATCH"]);
    // TRACE is refused by fetch's Request; the schemathesis run sends it over real HTTP.
    const trace = await h.request("DELETE", "/admin/clock/advance", { headers: { Authorization: "Bearer adm_test_token_0123456789abcdef" } });
    expect(trace.status).toBe(405);
    expect(trace.headers.get("allow")).toBe("POST");
    await expectError(await acct.as("test").get("/v1/nothing-here"), 404, "route_not_found");
  });
});
