// Every operation whose body the OpenAPI document declares optional takes an empty body as `{}`, as Stripe's
// API does: no body at all, or Content-Type: application/json with nothing (or only white space) after it,
// which is what clients send that set the header on every call (load/test-transactions.js clears this way).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_TOKEN, createHarness, expectStatus, type Harness } from "../support/harness.ts";
import { world, type World } from "../support/offers-world.ts";
import { startRoles, type RunningRoles } from "../../src/app/roles.ts";

interface Operation {
  method: string;
  path: string;
}

let h: Harness;
let roles: RunningRoles;
let w: World;
let optional: Operation[];

beforeAll(async () => {
  h = await createHarness();
  // Test purchases go through the simulators and the qualifier before they answer.
  roles = await startRoles(h.services, ["simulators", "qualifier", "workers"]);
  w = await world(h);
  const doc = await expectStatus<{ paths: Record<string, Record<string, { requestBody?: { required?: boolean } }>> }>(
    await h.request("GET", "/v1/openapi.json"),
    200,
  );
  optional = Object.entries(doc.paths).flatMap(([path, operations]) =>
    Object.entries(operations)
      .filter(([, operation]) => operation.requestBody !== undefined && operation.requestBody.required !== true)
      .map(([method]) => ({ method: method.toUpperCase(), path })),
  );
});
afterAll(async () => {
  await roles.stop();
  await h.close();
});

/** A fresh record for each path parameter of an operation whose body is optional: each request changes it. */
const FRESH: Record<string, () => Promise<string>> = {
  transactionId: async () =>
    (await expectStatus<{ id: string }>(await w.client.post("/v1/transactions/test", { cardId: w.cardId, locationId: w.locationId, amount: 40 }), 201)).id,
};

async function freshPath(path: string): Promise<string> {
  let filled = path;
  for (const [, name] of path.matchAll(/\{(\w+)\}/g)) {
    const make = FRESH[name!];
    if (!make) throw new Error(`${path}: add a fixture for ${name} to FRESH in test/api/optional-bodies.test.ts`);
    filled = filled.replace(`{${name}}`, await make());
  }
  return filled;
}

const credentials = (op: Operation): Record<string, string> =>
  op.path.startsWith("/admin/") ? { Authorization: `Bearer ${ADMIN_TOKEN}` } : { "Cardlink-Key": w.acct.keys.test };

describe("every operation whose body is optional", () => {
  it("includes clearing and refunding a test purchase", () => {
    expect(optional).toEqual(
      expect.arrayContaining([
        { method: "POST", path: "/v1/transactions/{transactionId}/clear" },
        { method: "POST", path: "/v1/transactions/{transactionId}/refund" },
      ]),
    );
  });

  it("answers an empty body as it answers {}", async () => {
    for (const op of optional) {
      const headers = credentials(op);
      const asObject = await h.request(op.method, await freshPath(op.path), { headers, body: {} });
      expect(asObject.status, `${op.method} ${op.path} with {}: ${await asObject.clone().text()}`).toBeLessThan(300);
      const empties: [string, { headers: Record<string, string>; body?: string }][] = [
        ["Content-Type: application/json and no bytes", { headers, body: "" }],
        ["Content-Type: application/json and white space", { headers, body: " \r\n" }],
        ["no Content-Type and no body", { headers }],
      ];
      for (const [what, init] of empties) {
        const res = await h.request(op.method, await freshPath(op.path), init);
        expect(res.status, `${op.method} ${op.path} with ${what}: ${await res.clone().text()}`).toBe(asObject.status);
      }
    }
  });

  it("still refuses a body that is not JSON, naming the body", async () => {
    for (const op of optional) {
      const res = await h.request(op.method, await freshPath(op.path), { headers: credentials(op), body: '{"amount": ' });
      const body = await expectStatus<{ error: { code: string; message: string } }>(res, 400);
      expect(body.error, `${op.method} ${op.path}`).toMatchObject({ code: "invalid_request", message: expect.stringMatching(/^body: .*JSON/) });
    }
  });
});
