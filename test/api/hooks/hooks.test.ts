import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import { createHarness, expectError, expectStatus, type Client, type Harness } from "../../support/harness.ts";
import { HOOK_EVENTS } from "../../../src/services/webhooks/hooks.ts";

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

type Hook = { id: string; programId: string; event: string; url: string; live: boolean; created: string; secret?: string };

const program = async (client: Client) =>
  (await expectStatus<{ id: string }>(await client.post("/v1/programs", { name: "Hooks" }), 201)).id;

describe("hooks", () => {
  it("registers a hook and returns a Standard Webhooks signing secret", async () => {
    const client = (await h.createAccount()).as("test");
    const programId = await program(client);
    const hook = await expectStatus<Hook>(
      await client.post(`/v1/programs/${programId}/hooks`, { event: "transaction.auth.qualified", url: "https://example.com/wh" }),
      201,
    );
    expect(hook).toMatchObject({ programId, event: "transaction.auth.qualified", url: "https://example.com/wh", live: false });
    expect(hook.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(hook.secret!.slice("whsec_".length), "base64").length).toBeGreaterThanOrEqual(24);
    // The secret works with the Standard Webhooks library receivers use.
    const wh = new Webhook(hook.secret!);
    const body = JSON.stringify({ id: "evt_1", event: "transaction.auth.qualified" });
    const at = new Date();
    const headers = { "webhook-id": "evt_1", "webhook-timestamp": String(Math.floor(at.getTime() / 1000)), "webhook-signature": wh.sign("evt_1", at, body) };
    expect(wh.verify(body, headers)).toMatchObject({ id: "evt_1" });

    const { secret, ...withoutSecret } = hook;
    expect(await expectStatus<Hook>(await client.get(`/v1/hooks/${hook.id}`), 200)).toEqual(withoutSecret);
    expect(await expectStatus(await client.get(`/v1/hooks/${hook.id}/secret`), 200)).toEqual({ secret });
    const second = await expectStatus<Hook>(
      await client.post(`/v1/programs/${programId}/hooks`, { event: "location.status", url: "http://localhost:4000/hooks" }),
      201,
    );
    expect(second.secret).not.toBe(hook.secret);
  });

  it("signs with the secret given at creation, shared by several hooks", async () => {
    const client = (await h.createAccount()).as("test");
    const programId = await program(client);
    for (const bytes of [24, 64]) {
      const secret = `whsec_${Buffer.alloc(bytes, bytes).toString("base64")}`;
      const hooks = await Promise.all(
        ["transaction.auth", "location.status"].map(async (event) =>
          expectStatus<Hook>(await client.post(`/v1/programs/${programId}/hooks`, { event, url: "https://example.com/wh", secret }), 201),
        ),
      );
      expect(hooks.map((hk) => hk.secret)).toEqual([secret, secret]);
      expect((await expectStatus<Hook>(await client.get(`/v1/hooks/${hooks[0]!.id}/secret`), 200)).secret).toBe(secret);
    }
  });

  it("accepts every event of DESIGN.md's Webhooks section, Fidel's and the authorisation's expiry that issue 34 adds", async () => {
    const client = (await h.createAccount()).as("live");
    const programId = await program(client);
    for (const event of HOOK_EVENTS) {
      const hook = await expectStatus<Hook>(await client.post(`/v1/programs/${programId}/hooks`, { event, url: "https://example.com/wh" }), 201);
      expect(hook).toMatchObject({ event, live: true });
    }
    expect(HOOK_EVENTS).toHaveLength(19);
    expect(HOOK_EVENTS).toEqual(
      expect.arrayContaining([
        "hook.disabled",
        "brand.consent",
        "card.linked",
        "card.failed",
        "program.status",
        "transaction.refund.qualified",
        "marketplace.offer.live",
        "marketplace.offer.updated",
        "transaction.auth.expired",
      ]),
    );
  });

  it("lists a program's hooks without their secrets, in pages", async () => {
    const client = (await h.createAccount()).as("test");
    const programId = await program(client);
    const ids: string[] = [];
    for (const event of ["transaction.auth", "transaction.clearing", "transaction.refund"]) {
      ids.push((await expectStatus<Hook>(await client.post(`/v1/programs/${programId}/hooks`, { event, url: "https://example.com/wh" }), 201)).id);
    }
    const first = await expectStatus<{ items: Hook[]; count: number; last?: string }>(await client.get(`/v1/programs/${programId}/hooks?limit=2`), 200);
    expect(first.count).toBe(3);
    expect(first.items.every((hk) => !("secret" in hk))).toBe(true);
    const rest = await expectStatus<{ items: Hook[]; last?: string }>(
      await client.get(`/v1/programs/${programId}/hooks?limit=2&start=${first.last}`),
      200,
    );
    expect([...first.items, ...rest.items].map((hk) => hk.id).sort()).toEqual([...ids].sort());
  });

  it("deletes a hook", async () => {
    const client = (await h.createAccount()).as("test");
    const programId = await program(client);
    const hook = await expectStatus<Hook>(await client.post(`/v1/programs/${programId}/hooks`, { event: "offer.extended", url: "https://example.com/wh" }), 201);
    const res = await client.delete(`/v1/hooks/${hook.id}`);
    expect(res.status).toBe(204);
    await expectError(await client.get(`/v1/hooks/${hook.id}`), 404, "resource_not_found");
    await expectError(await client.delete(`/v1/hooks/${hook.id}`), 404, "resource_not_found");
    expect((await expectStatus<{ count: number }>(await client.get(`/v1/programs/${programId}/hooks`), 200)).count).toBe(0);
  });

  it("names the field and the rule for every invalid input", async () => {
    const client = (await h.createAccount()).as("test");
    const programId = await program(client);
    const bad = async (body: unknown) => expectError(await client.post(`/v1/programs/${programId}/hooks`, body), 400, "invalid_request");
    const missing = await bad({});
    expect(missing).toContain("event: required");
    expect(missing).toContain("url: required");
    expect(await bad({ event: "transaction.created", url: "https://example.com" })).toMatch(/^event: must be one of transaction.auth, /);
    expect(await bad({ event: "location.status", url: "ftp://example.com/wh" })).toMatch(/^url: must be an http or https URL/);
    expect(await bad({ event: "location.status", url: "example.com/wh" })).toMatch(/^url: must be an http or https URL/);
    expect(await bad({ event: "location.status", url: `https://example.com/${"a".repeat(2048)}` })).toMatch(/^url: must be at most 2048/);
    for (const secret of ["mine", "whsec_", `whsec_${Buffer.alloc(16).toString("base64")}`, `whsec_${Buffer.alloc(65).toString("base64")}`, "whsec_not base64!", 42]) {
      expect(await bad({ event: "location.status", url: "https://example.com", secret })).toMatch(/^secret: /);
    }
    expect(await bad({ event: "location.status", url: "https://example.com", signingKey: "x" })).toMatch(/signingKey: unknown field/);
    expect(await expectError(await client.get("/v1/hooks/abc"), 400, "invalid_request")).toMatch(/^hookId: must be a UUID/);
  });

  it("keeps hooks to their account and environment", async () => {
    const owner = await h.createAccount();
    const stranger = (await h.createAccount()).as("test");
    const programId = await program(owner.as("test"));
    const hook = await expectStatus<Hook>(await owner.as("test").post(`/v1/programs/${programId}/hooks`, { event: "location.status", url: "https://example.com" }), 201);
    for (const client of [stranger, owner.as("live")]) {
      await expectError(await client.get(`/v1/hooks/${hook.id}`), 404, "resource_not_found");
      await expectError(await client.delete(`/v1/hooks/${hook.id}`), 404, "resource_not_found");
      await expectError(await client.get(`/v1/programs/${programId}/hooks`), 404, "resource_not_found");
      await expectError(await client.post(`/v1/programs/${programId}/hooks`, {}), 404, "resource_not_found");
    }
    await expectStatus(await owner.as("test").get(`/v1/hooks/${hook.id}`), 200);
  });
});
