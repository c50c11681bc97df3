// Rule: a hook's signing secret is shown at creation and by GET /v1/hooks/{id}/secret only, to its own
// account; a hook URL that carries credentials (`user:pass@`) is refused, not stored.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHarness, expectError, expectStatus, type Harness } from "../../support/harness.ts";

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

describe("hook secrets", () => {
  it("are returned at creation and by GET /hooks/{id}/secret only", async () => {
    const client = (await h.createAccount()).as("live");
    const programId = (await expectStatus<{ id: string }>(await client.post("/v1/programs", { name: "Secrets" }), 201)).id;
    const created = await expectStatus<{ id: string; secret: string }>(
      await client.post(`/v1/programs/${programId}/hooks`, { event: "location.status", url: "https://example.com/wh" }),
      201,
    );
    expect(created.secret).toMatch(/^whsec_/);
    const got = await expectStatus<Record<string, unknown>>(await client.get(`/v1/hooks/${created.id}`), 200);
    expect(got).not.toHaveProperty("secret");
    expect(JSON.stringify(got)).not.toContain(created.secret);
    const list = await client.get(`/v1/programs/${programId}/hooks`);
    expect(await list.text()).not.toContain(created.secret);
    expect(await expectStatus(await client.get(`/v1/hooks/${created.id}/secret`), 200)).toEqual({ secret: created.secret });
    // Another account's hook is not found, its secret neither.
    const stranger = (await h.createAccount()).as("live");
    await expectError(await stranger.get(`/v1/hooks/${created.id}/secret`), 404, "resource_not_found");
  });
});

describe("hook URLs", () => {
  it("with credentials are refused, not stored and silently not sent", async () => {
    const client = (await h.createAccount()).as("test");
    const programId = (await expectStatus<{ id: string }>(await client.post("/v1/programs", { name: "Creds" }), 201)).id;
    for (const url of ["https://user:pass@example.com/wh", "https://token@example.com/wh"]) {
      const message = await expectError(await client.post(`/v1/programs/${programId}/hooks`, { event: "location.status", url }), 400, "invalid_request");
      expect(message, url).toMatch(/^url: must not carry credentials/);
    }
    expect((await expectStatus<{ count: number }>(await client.get(`/v1/programs/${programId}/hooks`), 200)).count).toBe(0);
  });
});
