// Locations, isolation: another account, and the other environment of the same account, see 404 for a
// location and for the program it is in.
import { describe, expect, it } from "vitest";
import { expectError, expectStatus, type Harness } from "../../support/harness.ts";
import { address, setup, useLocationsHarness, type Location } from "./setup.ts";

let h: Harness;
useLocationsHarness((opened) => (h = opened));

describe("locations", () => {
  it("keeps locations to their account and environment", async () => {
    const owner = await h.createAccount();
    const stranger = (await h.createAccount()).as("test");
    const { programId, brandId } = await setup(owner.as("test"));
    const location = await expectStatus<Location>(await owner.as("test").post(`/v1/programs/${programId}/locations`, address(brandId)), 201);
    for (const client of [stranger, owner.as("live")]) {
      await expectError(await client.get(`/v1/locations/${location.id}`), 404, "resource_not_found");
      await expectError(await client.patch(`/v1/locations/${location.id}`, { city: "Paris" }), 404, "resource_not_found");
      await expectError(await client.delete(`/v1/locations/${location.id}`), 404, "resource_not_found");
      await expectError(await client.get(`/v1/programs/${programId}/locations`), 404, "resource_not_found");
      await expectError(await client.post(`/v1/programs/${programId}/locations`, address(brandId)), 404, "resource_not_found");
    }
    expect((await expectStatus<Location>(await owner.as("test").get(`/v1/locations/${location.id}`), 200)).city).toBe("London");
  });
});
