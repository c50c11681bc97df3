// POST /admin/programs/{programId}/mid-insights/seed: generated, deterministic MIDs and insights.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHarness, expectError, expectStatus, type Harness } from "../../support/harness.ts";
import { allPages, seededProgram } from "../../support/mid-insights.ts";
import type { MidInsight } from "../../../src/services/mid-insights/mid-insights.ts";

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

const seed = (programId: string, body: unknown) => h.admin("POST", `/admin/programs/${programId}/mid-insights/seed`, body);

/** What a seed decides, without the ids (which also depend on the program). */
const content = (items: MidInsight[]) =>
  items.map(({ id: _id, brandId: _b, locationId: _l, midId: _m, programId: _p, ...rest }) => rest);

describe("seeding MID insights", () => {
  it("creates the requested insights, and running the seed again creates only what is missing", async () => {
    const p = await seededProgram(h, 0);
    expect(await expectStatus(await seed(p.programId, { count: 12, seed: 5 }), 201)).toEqual({ created: 12 });
    const first = (await allPages(p.client, p.path, "limit=100")).items;
    expect(first).toHaveLength(12);
    expect(await expectStatus(await seed(p.programId, { count: 12, seed: 5 }), 201)).toEqual({ created: 0 });
    expect(await expectStatus(await seed(p.programId, { count: 20, seed: 5 }), 201)).toEqual({ created: 8 });
    const grown = (await allPages(p.client, p.path, "limit=100")).items;
    expect(grown).toHaveLength(20);
    expect(grown.filter((i) => first.some((f) => f.id === i.id))).toHaveLength(12);
  });

  it("gives the same data for the same seed in another program, and other data for another seed", async () => {
    const [a, b, c] = [await seededProgram(h, 9, 3), await seededProgram(h, 9, 3), await seededProgram(h, 9, 4)];
    const sorted = "sort=created&order=asc&limit=100";
    const [ia, ib, ic] = [
      (await allPages(a.client, a.path, sorted)).items,
      (await allPages(b.client, b.path, sorted)).items,
      (await allPages(c.client, c.path, sorted)).items,
    ];
    expect(content(ib)).toEqual(content(ia));
    expect(ib.map((i) => i.id)).not.toEqual(ia.map((i) => i.id));
    expect(content(ic)).not.toEqual(content(ia));
  });

  it("creates the brands and locations the MIDs belong to, with each network's status and MIDs", async () => {
    const p = await seededProgram(h, 30);
    const items = (await allPages(p.client, p.path, "limit=100")).items;
    const onboarded = items.find((i) => i.status === "onboarded" && i.scheme === "visa")!;
    const location = await expectStatus<{
      brandId: string;
      programId: string;
      status: Record<string, { status: string; mids: Record<string, string>[] }>;
    }>(await p.account.as("live").get(`/v1/locations/${onboarded.locationId}`), 200);
    expect(location).toMatchObject({ brandId: onboarded.brandId, programId: p.programId });
    expect(location.status.visa).toMatchObject({
      status: "Active",
      mids: [{ vmid: onboarded.vmid, vsid: onboarded.vsid, visaAcquiringMid: onboarded.visaAcquiringMid, visaBin: onboarded.visaBin }],
    });
    await expectStatus(await p.account.as("live").get(`/v1/brands/${onboarded.brandId}`), 200);
  });

  it("answers 400 naming the field and its rule, 404 for an unknown program, 400 for a test program", async () => {
    const p = await seededProgram(h, 0);
    const cases: [unknown, RegExp][] = [
      [{}, /^count: required$/],
      [{ count: 0 }, /^count: must be at least 1$/],
      [{ count: 2_000_001 }, /^count: must be at most 2000000$/],
      [{ count: 1.5 }, /^count: must be a whole number$/],
      [{ count: "10" }, /^count: must be a whole number$/],
      [{ count: 10, seed: -1 }, /^seed: must be 0 or more$/],
      [{ count: 10, seed: 2 ** 31 }, /^seed: must be at most 2147483647$/],
      [{ count: 10, rows: 5 }, /^rows: unknown field$/],
    ];
    for (const [body, message] of cases) {
      expect(await expectError(await seed(p.programId, body), 400, "invalid_request"), JSON.stringify(body)).toMatch(message);
    }
    const unknown = "6a7b8c9d-0e1f-4a2b-8c3d-4e5f6a7b8c9d";
    expect(await expectError(await seed(unknown, { count: 1 }), 404, "resource_not_found")).toBe(`No program with id ${unknown}.`);
    const testProgram = await expectStatus<{ id: string }>(await p.account.as("test").post("/v1/programs", { name: "T" }), 201);
    expect(await expectError(await seed(testProgram.id, { count: 1 }), 400, "invalid_request")).toMatch(/^programId: MID insights exist for live programs only/);
  });

  it("is an operator action: an account's key is not enough", async () => {
    const p = await seededProgram(h, 0);
    const res = await h.request("POST", `/admin/programs/${p.programId}/mid-insights/seed`, {
      headers: { Authorization: `Bearer ${p.account.keys.live}` },
      body: { count: 1 },
    });
    await expectError(res, 401, "unauthorized");
  });
});
