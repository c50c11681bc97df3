// POST /v1/programs/{programId}/mid-insights/offboard-requests: the request, and the simulated network
// acting on it later on the service clock.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHarness, expectError, expectStatus, type Harness } from "../../support/harness.ts";
import { allPages, seededProgram, type SeededProgram } from "../../support/mid-insights.ts";
import type { MidInsight } from "../../../src/services/mid-insights/mid-insights.ts";

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

const DAY = 86_400_000;

async function insights(p: SeededProgram): Promise<MidInsight[]> {
  return (await allPages(p.client, p.path, "limit=100")).items;
}

const one = async (p: SeededProgram, id: string) =>
  (await expectStatus<{ items: MidInsight[] }>(await p.client.get(`${p.path}?id=${id}`), 200)).items[0]!;

describe("offboarding a MID", () => {
  it("marks the MID requested, leaves it onboarded, and the network offboards it two days later", async () => {
    const p = await seededProgram(h, 30);
    const target = (await insights(p)).find((i) => i.status === "onboarded" && !i.offboardRequestedAt)!;
    const requestedAt = h.services.clock.now().toISOString();
    const requested = await expectStatus<MidInsight>(await p.client.post(`${p.path}/offboard-requests`, { midInsightId: target.id }), 202);
    expect(requested).toMatchObject({ id: target.id, status: "onboarded", offboardedAt: null, offboardRequestedAt: requestedAt, eventTs: requestedAt });
    expect(await one(p, target.id)).toMatchObject({ status: "onboarded", offboardRequestedAt: requestedAt });

    // Asking again while the request is pending changes nothing.
    await expectStatus(await h.admin("POST", "/admin/clock/advance", { hours: 1 }), 200);
    expect(await expectStatus<MidInsight>(await p.client.post(`${p.path}/offboard-requests`, { midInsightId: target.id }), 202)).toEqual(
      await one(p, target.id),
    );
    expect((await one(p, target.id)).offboardRequestedAt).toBe(requestedAt);

    // Still onboarded just before the network acts; offboarded once two days of service time have passed.
    await expectStatus(await h.admin("POST", "/admin/clock/advance", { hours: 46, minutes: 59 }), 200);
    expect((await one(p, target.id)).status).toBe("onboarded");
    await expectStatus(await h.admin("POST", "/admin/clock/advance", { days: 1 }), 200);
    const due = new Date(Date.parse(requestedAt) + 2 * DAY).toISOString();
    const done = await one(p, target.id);
    expect(done).toMatchObject({ status: "offboarded", offboardedAt: due, offboardRequestedAt: requestedAt, eventTs: due });
    expect(done.updated >= due).toBe(true);
    // The status filter and the count see it.
    const offboarded = await expectStatus<{ items: MidInsight[]; count: number }>(await p.client.get(`${p.path}?status=offboarded&id=${target.id}`), 200);
    expect(offboarded.count).toBe(1);
  });

  it("answers 409 for a MID that is sourced or already offboarded", async () => {
    const p = await seededProgram(h, 60);
    const all = await insights(p);
    const offboarded = all.find((i) => i.status === "offboarded")!;
    const sourced = all.find((i) => i.status === "sourced")!;
    expect(await expectError(await p.client.post(`${p.path}/offboard-requests`, { midInsightId: offboarded.id }), 409, "conflict")).toBe(
      "midInsightId: the MID is already offboarded.",
    );
    expect(await expectError(await p.client.post(`${p.path}/offboard-requests`, { midInsightId: sourced.id }), 409, "conflict")).toMatch(
      /^midInsightId: the MID is not onboarded at its network/,
    );
  });

  it("answers 404 for an insight that is not in the program, and 400 naming a bad body field", async () => {
    const p = await seededProgram(h, 3);
    const q = await seededProgram(h, 3, 8);
    const theirs = (await insights(q))[0]!.id;
    expect(await expectError(await p.client.post(`${p.path}/offboard-requests`, { midInsightId: theirs }), 404, "resource_not_found")).toBe(
      `No MID insight with id ${theirs}.`,
    );
    const cases: [unknown, RegExp][] = [
      [{}, /^midInsightId: required$/],
      [{ midInsightId: "abc" }, /^midInsightId: must be a UUID$/],
      [{ midInsightId: theirs, now: true }, /^now: unknown field$/],
    ];
    for (const [body, message] of cases) {
      expect(await expectError(await p.client.post(`${p.path}/offboard-requests`, body), 400, "invalid_request")).toMatch(message);
    }
  });
});
