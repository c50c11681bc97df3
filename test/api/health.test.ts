// Liveness and readiness on the api, and a database that has gone away answering 503 (never 500).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHarness, expectError, expectStatus, type Harness } from "../support/harness.ts";

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

describe("health", () => {
  it("is live and ready with each dependency's state while PostgreSQL and the bus answer", async () => {
    expect(await expectStatus(await h.request("GET", "/health"), 200)).toMatchObject({ status: "ok" });
    expect(await expectStatus(await h.request("GET", "/health/ready"), 200)).toEqual({
      status: "ready",
      dependencies: { postgres: { status: "up" }, bus: { status: "up" } },
    });
  });

  // A second harness (PGlite and its migrations) takes a while on a busy machine.
  it("answers 503 service_unavailable with Retry-After, live but not ready, once the database is gone", { timeout: 90_000 }, async () => {
    const gone = await createHarness();
    const account = await gone.createAccount();
    await gone.services.db.close();
    try {
      const res = await account.as("test").post("/v1/programs", { name: "Nowhere" });
      expect(res.headers.get("Retry-After")).toBe("5");
      await expectError(res, 503, "service_unavailable");
      expect((await gone.request("GET", "/health")).status).toBe(200);
      const ready = await gone.request("GET", "/health/ready");
      expect(ready.headers.get("Retry-After")).toBe("5");
      expect(await expectStatus(ready, 503)).toMatchObject({
        status: "unavailable",
        dependencies: { postgres: { status: "down", error: expect.any(String) }, bus: { status: "up" } },
      });
    } finally {
      gone.services.health.stop();
      await gone.services.bus.close();
    }
  });
});
