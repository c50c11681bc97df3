// Locations, refusals: 400 naming the field and the rule for each invalid input, and for a brand that is
// not the caller's or whose consent is not approved.
import { describe, expect, it } from "vitest";
import { expectError, expectStatus, type Harness } from "../../support/harness.ts";
import { address, setup, useLocationsHarness } from "./setup.ts";

let h: Harness;
useLocationsHarness((opened) => (h = opened));

describe("locations", () => {
  it("needs a brand of the caller with approved consent", async () => {
    const acct = await h.createAccount();
    const live = acct.as("live");
    const { programId } = await setup(live, true);
    const requested = (await expectStatus<{ id: string; consent: string }>(await live.post("/v1/brands", { name: "Waiting" }), 201)).id;
    expect(
      await expectError(await live.post(`/v1/programs/${programId}/locations`, address(requested)), 400, "invalid_request"),
    ).toMatch(/^brandId: the brand's consent is requested/);
    await expectStatus(await h.admin("POST", `/admin/brands/${requested}/consent`, { decision: "declined" }), 200);
    expect(
      await expectError(await live.post(`/v1/programs/${programId}/locations`, address(requested)), 400, "invalid_request"),
    ).toMatch(/^brandId: the brand's consent is declined/);
    // A brand of another account, and the same account's test brand, are not the caller's here.
    const foreign = await setup((await h.createAccount()).as("live"), true);
    const testBrand = await setup(acct.as("test"));
    for (const brandId of [foreign.brandId, testBrand.brandId]) {
      expect(
        await expectError(await live.post(`/v1/programs/${programId}/locations`, address(brandId)), 400, "invalid_request"),
      ).toMatch(/^brandId: no brand with this id/);
    }
  });

  it("names the field and the rule for every invalid input", async () => {
    const client = (await h.createAccount()).as("test");
    const { programId, brandId } = await setup(client);
    const bad = async (body: unknown) =>
      expectError(await client.post(`/v1/programs/${programId}/locations`, body), 400, "invalid_request");
    const msg = await bad({});
    for (const field of ["address", "brandId", "city", "countryCode", "postcode"]) expect(msg).toContain(`${field}: required`);
    expect(await bad(address(brandId, { address: " " }))).toMatch(/^address: must not be empty/);
    expect(await bad(address(brandId, { brandId: "x" }))).toMatch(/^brandId: must be a UUID/);
    expect(await bad(address(brandId, { countryCode: "UK" }))).toMatch(/^countryCode: must be an ISO 3166-1 alpha-3/);
    expect(await bad(address(brandId, { timezone: "Mars/Olympus" }))).toMatch(/^timezone: must be an IANA time zone/);
    expect(await bad(address(brandId, { geolocation: { latitude: 91, longitude: 0 } }))).toMatch(/^geolocation.latitude: must be -90 to 90/);
    expect(await bad(address(brandId, { geolocation: { latitude: 0, longitude: -181 } }))).toMatch(/^geolocation.longitude: must be -180 to 180/);
    expect(await bad(address(brandId, { mids: { visa: [{ vmid: "12345" }] } }))).toMatch(/^mids.visa.0.vmid: must be 6 to 8 digits/);
    expect(await bad(address(brandId, { mids: { visa: [{ vsid: "123456789" }] } }))).toMatch(/^mids.visa.0.vsid: must be 6 to 8 digits/);
    expect(await bad(address(brandId, { mids: { visa: [{ visaAcquiringMid: "CAID-1" }] } }))).toMatch(/^mids.visa.0.visaAcquiringMid: must be 1 to 15 letters or digits/);
    expect(await bad(address(brandId, { mids: { visa: [{ visaBin: "12345" }] } }))).toMatch(/^mids.visa.0.visaBin: must be 6 to 11 digits/);
    expect(await bad(address(brandId, { mids: { visa: [{}] } }))).toMatch(/^mids.visa.0: must have at least one of vmid/);
    expect(await bad(address(brandId, { mids: { mastercard: [{ mcLocationId: "12a" }] } }))).toMatch(/^mids.mastercard.0.mcLocationId: must be 1 to 12 digits/);
    expect(await bad(address(brandId, { mids: { mastercard: [{ mcAcquiringMid: "x".repeat(16) }] } }))).toMatch(/^mids.mastercard.0.mcAcquiringMid:/);
    expect(await bad(address(brandId, { mids: { amex: [{ seNumber: "123456789" }] } }))).toMatch(/^mids.amex.0.seNumber: must be exactly 10 digits/);
    expect(await bad(address(brandId, { mids: { amex: [{}] } }))).toMatch(/^mids.amex.0.seNumber: required/);
    expect(await bad(address(brandId, { mids: { discover: [] } }))).toMatch(/mids.discover: unknown field/);
    expect(await expectError(await client.get(`/v1/programs/${programId}/locations?brandId=1`), 400, "invalid_request")).toMatch(/^brandId: must be a UUID/);
  });
});
