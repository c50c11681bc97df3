// Rule: a test purchase the networks cannot record is refused: a date-time the simulators would
// dead-letter or an amount finer than cents is a 400 naming the field, not a 202 and silence.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHarness, expectError, expectStatus, type Harness } from "../../support/harness.ts";
import { world, type World } from "../../support/offers-world.ts";
import { startRoles, type RunningRoles } from "../../../src/app/roles.ts";
import { purchaseAmount, purchaseDateTime } from "../../../src/domain/field-rules.ts";

let h: Harness;
let roles: RunningRoles;
let w: World;

beforeAll(async () => {
  h = await createHarness();
  roles = await startRoles(h.services, ["simulators", "qualifier", "workers"]);
  w = await world(h);
});
afterAll(async () => {
  await roles.stop();
  await h.close();
});

const purchase = (over: Record<string, unknown>) => w.client.post("/v1/transactions/test", { cardId: w.cardId, locationId: w.locationId, amount: 12, ...over });

describe("the purchase rules (src/domain/field-rules.ts)", () => {
  it("take real local date-times of years 0001 to 9999 and amounts in whole cents", () => {
    expect(["0001-01-01T00:00:00", "9999-12-31T23:59:59", "2024-02-29T12:00:00"].map(purchaseDateTime)).toEqual([undefined, undefined, undefined]);
    for (const bad of ["0000-01-01T00:00:00", "2026-02-30T00:00:00", "2026-01-01T24:00:00", "2026-01-01 12:00:00"]) expect(purchaseDateTime(bad)).toMatch(/^must be a real local date-time/);
    expect([0.01, 12.34, 0.1 + 0.2, 1_000_000].map(purchaseAmount)).toEqual([undefined, undefined, undefined, undefined]);
    expect([0, -1, 0.001, 10.005, 1_000_000.01].map(purchaseAmount)).toEqual([
      "must be greater than 0",
      "must be greater than 0",
      "must have at most 2 decimal places",
      "must have at most 2 decimal places",
      "must be at most 1000000",
    ]);
  });
});

describe("POST /v1/transactions/test", () => {
  it("refuses a datetime the simulators would refuse with 400 naming datetime", async () => {
    expect(await expectError(await purchase({ datetime: "0000-01-01T00:00:00" }), 400, "invalid_request")).toMatch(/^datetime: must be a real local date-time/);
    expect(await expectError(await purchase({ datetime: "2026-02-30T10:00:00" }), 400, "invalid_request")).toMatch(/^datetime: /);
  });

  it("refuses an amount with more than two decimals with 400 naming amount", async () => {
    expect(await expectError(await purchase({ amount: 0.001 }), 400, "invalid_request")).toBe("amount: must have at most 2 decimal places");
  });

  it("records the earliest date-time it accepts", async () => {
    const tx = await expectStatus<{ datetime: string }>(await purchase({ datetime: "0001-01-01T00:00:00" }), 201);
    expect(tx.datetime).toBe("0001-01-01T00:00:00");
  });

  it("refuses a refund with more than two decimals with 400 naming amount", async () => {
    const tx = await expectStatus<{ id: string }>(await purchase({ amount: 20 }), 201);
    expect(await expectError(await w.client.post(`/v1/transactions/${tx.id}/refund`, { amount: 0.001 }), 400, "invalid_request")).toBe(
      "amount: must have at most 2 decimal places",
    );
  });
});
