// Route-wide rules, generated once from the OpenAPI document for every /v1 operation.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHarness, expectError, expectStatus, type Harness, type TestAccount } from "../support/harness.ts";
import { seedGraph, type Graph } from "../support/fixtures.ts";
import { enqueueEvent } from "../../src/platform/outbox.ts";

let h: Harness;
let owner: TestAccount;
let stranger: TestAccount;
/** A sandbox of the owner's and one of the stranger's: tenants of their own, with their own keys. */
let ownSandbox: { keys: { test: string; live: string } };
let strangerSandbox: { keys: { test: string; live: string } };
let liveGraph: Graph;
let operations: { method: string; path: string; params: string[] }[];

const MID_INSIGHTS = /mid-insights/;
const SANDBOX_ROUTES = /^\/v1\/sandboxes\//;
const SANDBOX_ONLY = /^\/v1\/brands\/\{brandId\}\/consent$/;

beforeAll(async () => {
  h = await createHarness();
  owner = await h.createAccount({ tier: "premium" });
  stranger = await h.createAccount({ tier: "premium" });
  liveGraph = await seedGraph(owner.as("live"), h);
  ownSandbox = await expectStatus(await owner.as("test").post("/v1/sandboxes", { name: "own" }), 201);
  strangerSandbox = await expectStatus(await stranger.as("test").post("/v1/sandboxes", { name: "stranger's" }), 201);
  // Webhook events are written by the service itself, never created through the API.
  liveGraph.eventId = await enqueueEvent(
    h.services.db,
    { accountId: owner.id, live: true, programId: liveGraph.programId!, event: "location.status", data: {} },
    h.services.clock.now(),
  );
  // MID-insight exports are made with the live key over the Bearer scheme, which the graph's client does not speak.
  liveGraph.exportId = (
    await expectStatus<{ id: string }>(
      await h.request("POST", `/v1/programs/${liveGraph.programId}/mid-insights/exports`, {
        headers: { Authorization: `Bearer ${owner.keys.live}`, "Cardlink-Version": "2024-11-25" },
        body: { format: "csv", recipients: ["graph@example.com"] },
      }),
      201,
    )
  ).id;
  const doc = await expectStatus<{ paths: Record<string, Record<string, unknown>> }>(
    await h.request("GET", "/v1/openapi.json"),
    200,
  );
  operations = Object.entries(doc.paths)
    .filter(([path]) => path.startsWith("/v1/"))
    .flatMap(([path, ops]) =>
      Object.keys(ops).map((method) => ({
        method: method.toUpperCase(),
        path,
        params: [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!),
      })),
    );
});
afterAll(() => h.close());

const fill = (path: string, graph: Graph) =>
  path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const id = graph[name];
    if (!id) throw new Error(`test/support/fixtures.ts has no fixture for path parameter ${name}`);
    return id;
  });

describe("every /v1 route", () => {
  it("is documented with at least the program routes", () => {
    expect(operations.some((o) => o.path === "/v1/programs/{programId}")).toBe(true);
  });

  it("answers 401 unauthorized without a key and with an unknown key", async () => {
    for (const op of operations) {
      const path = fill(op.path, liveGraph);
      const none = await h.request(op.method, path, op.method === "GET" || op.method === "DELETE" ? {} : { body: {} });
      await expectError(none, 401, "unauthorized").catch((e: Error) => {
        throw new Error(`${op.method} ${op.path} without key: ${e.message}`);
      });
      const wrongHeaders: Record<string, string> = MID_INSIGHTS.test(op.path)
        ? { Authorization: "Bearer sk_live_doesnotexist0000000000000000000" }
        : { "Cardlink-Key": "sk_test_doesnotexist0000000000000000000" };
      const wrong = await h.request(op.method, path, { headers: wrongHeaders, ...(op.method === "GET" ? {} : { body: {} }) });
      await expectError(wrong, 401, "unauthorized").catch((e: Error) => {
        throw new Error(`${op.method} ${op.path} with an unknown key: ${e.message}`);
      });
    }
  });

  it("answers 401 naming the key header when a management route is sent the Bearer scheme", async () => {
    for (const op of operations.filter((o) => !MID_INSIGHTS.test(o.path))) {
      const res = await h.request(op.method, fill(op.path, liveGraph), {
        headers: { Authorization: `Bearer ${owner.keys.test}` },
        ...(op.method === "GET" || op.method === "DELETE" ? {} : { body: {} }),
      });
      expect(await expectError(res, 401, "unauthorized"), `${op.method} ${op.path}`).toBe(
        "Send the key in the Cardlink-Key header (Cardlink-Key: sk_test_… or sk_live_…); Authorization: Bearer is only for MID insights.",
      );
    }
  });

  it("names the key header after SERVICE_NAME", async () => {
    const linky = await createHarness({ env: { SERVICE_NAME: "Linky" } });
    try {
      const acct = await linky.createAccount();
      const res = await linky.request("GET", "/v1/programs", { headers: { Authorization: `Bearer ${acct.keys.test}` } });
      expect(await expectError(res, 401, "unauthorized")).toMatch(/^Send the key in the Linky-Key header/);
      await expectStatus(await linky.request("GET", "/v1/programs", { headers: { "Linky-Key": acct.keys.test } }), 200);
    } finally {
      await linky.close();
    }
  });

  it("answers 404 for another account's, another sandbox's and the other environment's records", async () => {
    const withParams = operations.filter((o) => o.params.length > 0);
    expect(withParams.length).toBeGreaterThan(0);
    const sandboxClient = (key: string) => h.clientWithKey(key);
    for (const op of withParams) {
      const path = fill(op.path, liveGraph);
      for (const [who, client, headers] of [
        ["another account", stranger.as("live"), { Authorization: `Bearer ${stranger.keys.live}` }],
        ["the owner's test key", owner.as("test"), { Authorization: `Bearer ${owner.keys.test}` }],
        ["a sandbox of the owner", sandboxClient(ownSandbox.keys.live), { Authorization: `Bearer ${ownSandbox.keys.live}` }],
        ["a sandbox of another account", sandboxClient(strangerSandbox.keys.live), { Authorization: `Bearer ${strangerSandbox.keys.live}` }],
      ] as const) {
        // A sandbox belongs to its account in both environments; only a sandbox's key decides a brand's consent.
        if (SANDBOX_ROUTES.test(op.path) && who === "the owner's test key") continue;
        if (SANDBOX_ROUTES.test(op.path) && who.startsWith("a sandbox")) {
          await expectError(op.method === "DELETE" ? await client.delete(path) : await client.get(path), 403, "forbidden");
          continue;
        }
        if (SANDBOX_ONLY.test(op.path)) {
          const [status, code] = who.startsWith("a sandbox") ? [404, "resource_not_found"] : [403, "forbidden"];
          await expectError(await client.post(path, { decision: "approved" }), status, code);
          continue;
        }
        // MID insights take the Bearer scheme and only live keys: a test key there is 401, by the spec.
        const res = MID_INSIGHTS.test(op.path)
          ? await h.request(op.method, path, { headers: { ...headers, "Cardlink-Version": "2024-11-25" } })
          : op.method === "GET"
            ? await client.get(path)
            : op.method === "DELETE"
              ? await client.delete(path)
              : op.method === "PATCH"
                ? await client.patch(path, {})
                : await client.post(path, {});
        const expected = MID_INSIGHTS.test(op.path) && who === "the owner's test key" ? [401, "unauthorized"] : [404, "resource_not_found"];
        await expectError(res, expected[0] as number, expected[1] as string).catch((e: Error) => {
          throw new Error(`${op.method} ${op.path} as ${who}: ${e.message}`);
        });
      }
    }
  });

  it("answers 404 route_not_found for an unknown route", async () => {
    await expectError(await owner.as("test").get("/v1/nothing-here"), 404, "route_not_found");
  });

  it("answers 400 for malformed JSON, never 500", async () => {
    const res = await h.request("POST", "/v1/programs", {
      body: '{"name": ',
      headers: { "Cardlink-Key": owner.keys.test },
    });
    expect(await expectError(res, 400, "invalid_request")).toMatch(/JSON/);
  });

  it("serves the OpenAPI 3.1 document and the docs page without a key", async () => {
    const doc = await expectStatus<{ openapi: string }>(await h.request("GET", "/v1/openapi.json"), 200);
    expect(doc.openapi).toBe("3.1.0");
    const docs = await h.request("GET", "/docs");
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain("/v1/openapi.json");
    expect((await h.request("GET", "/health")).status).toBe(200);
  });
});

describe("every operation of the OpenAPI document that requires its body", () => {
  it("answers no body, or an empty one, with 400 naming the body under any Content-Type, /v1 and /admin alike", async () => {
    const doc = await expectStatus<{ paths: Record<string, Record<string, { requestBody?: { required?: boolean } }>> }>(
      await h.request("GET", "/v1/openapi.json"),
      200,
    );
    const required = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops)
        .filter(([, op]) => op.requestBody?.required === true)
        .map(([method]) => ({ method: method.toUpperCase(), path })),
    );
    // Every PATCH among them: an update needs something to change.
    const patches = Object.entries(doc.paths).filter(([, ops]) => "patch" in ops).map(([path]) => ({ method: "PATCH", path }));
    expect(required).toEqual(expect.arrayContaining([...patches, { method: "POST", path: "/v1/programs" }, { method: "POST", path: "/admin/accounts" }]));
    const marketplaceOffer = await expectStatus<{ id: string }>(
      await h.admin("POST", "/admin/marketplace-offers", {
        name: "Body offer",
        brandName: "Body brand",
        countryCode: "GBR",
        startDate: "2026-01-01T00:00:00",
        type: { name: "amount", value: 5 },
        supplier: { id: "cp_body", type: "affiliate", name: "Body Rewards" },
      }),
      201,
    );
    const adminIds: Graph = { ...liveGraph, accountId: owner.id, offerId: marketplaceOffer.id, scheme: "visa" };
    for (const op of required) {
      const admin = op.path.startsWith("/admin/");
      const filled = fill(op.path, admin ? adminIds : liveGraph);
      const headers: Record<string, string> = admin
        ? { Authorization: "Bearer adm_test_token_0123456789abcdef" }
        : MID_INSIGHTS.test(op.path)
          ? { Authorization: `Bearer ${owner.keys.live}`, "Cardlink-Version": "2024-11-25" }
          : { "Cardlink-Key": owner.keys.live };
      const sent: [string, { headers: Record<string, string>; body?: string }][] = [
        ["no body", { headers }],
        ["Content-Type: application/json and no bytes", { headers: { ...headers, "content-type": "application/json" }, body: "" }],
        ["Content-Type: text/plain and no bytes", { headers: { ...headers, "content-type": "text/plain" } }],
      ];
      for (const [what, init] of sent) {
        const res = await h.request(op.method, filled, init);
        const message = await expectError(res, 400, "invalid_request").catch((e: Error) => {
          throw new Error(`${op.method} ${op.path} with ${what}: ${e.message}`);
        });
        expect(message, `${op.method} ${op.path} with ${what}`).toBe("body: required, a JSON object sent with Content-Type: application/json");
      }
    }
  });
});
