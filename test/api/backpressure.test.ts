// Backpressure from the stream, through the API: while the qualifiers lag past ADMISSION_QUALIFIER_LAG_BOUND
// the front door lets fewer test purchases in flight and the rest wait; once the qualifiers catch up the
// waiting ones go in, and every purchase is answered.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRoles, type RunningRoles } from "../../src/app/roles.ts";
import { createHarness, type Harness } from "../support/harness.ts";
import { world } from "../support/offers-world.ts";
import { sample } from "../support/metrics.ts";

describe("backpressure from the stream", () => {
  let h: Harness;
  const running: RunningRoles[] = [];
  beforeAll(async () => {
    h = await createHarness({ env: { ADMISSION_MAX_IN_FLIGHT: "16", ADMISSION_MIN_IN_FLIGHT: "2", ADMISSION_QUALIFIER_LAG_BOUND: "2" } });
    // The networks answer onboarding and make the purchases; no qualifier reads their messages yet.
    running.push(await startRoles(h.services, ["simulators", "workers"]));
  });
  afterAll(async () => {
    for (const roles of running) await roles.stop();
    await h.close();
  });

  it("admits fewer purchases while the qualifiers lag past the bound, and answers every one once they catch up", async () => {
    const w = await world(h);
    const purchases: Promise<Response>[] = [];
    const purchase = () => void purchases.push(w.client.post("/v1/transactions/test", { cardId: w.cardId, locationId: w.locationId, amount: 12 }));
    const admission = () => h.services.admission.state();

    // Each purchase's auth waits on the qualifiers' topics: past two, the capacity is cut to the minimum.
    await expect.poll(() => (purchase(), admission().capacity), { timeout: 15_000, interval: 250 }).toBe(2);
    const metrics = await (await h.request("GET", "/metrics")).text();
    expect(sample(metrics, "cardlink_admission_stream_backlog", { measure: "qualifier_lag" })).toBeGreaterThan(2);
    expect(sample(metrics, "cardlink_admission_capacity")).toBe(2);
    // What the cut does not let in waits its turn.
    await expect.poll(() => (purchase(), admission().accounts.get(w.acct.id)?.waiting ?? 0), { timeout: 15_000, interval: 250 }).toBeGreaterThan(0);

    running.push(await startRoles(h.services, ["qualifier"]));
    const answers = await Promise.all(purchases);
    expect(answers.filter((r) => r.status !== 201 && r.status !== 202)).toEqual([]);
    expect(admission().accounts.get(w.acct.id)?.waiting ?? 0).toBe(0);
  }, 60_000);
});
