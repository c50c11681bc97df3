// Locations, happy paths: creating them in test and live with each network's status and MIDs, the test
// networks' onboarding answer and its location.status events, listing, updating and deleting.
import { describe, expect, it } from "vitest";
import { expectError, expectStatus, type Harness } from "../../support/harness.ts";
import { address, setup, useLocationsHarness, type Location } from "./setup.ts";

let h: Harness;
useLocationsHarness((opened) => (h = opened));

const SCHEMES = ["visa", "mastercard", "amex"] as const;

describe("locations", () => {
  it("creates a test location Active on every scheme, with the country's main time zone", async () => {
    const client = (await h.createAccount()).as("test");
    const { programId, brandId } = await setup(client);
    const mids = {
      visa: [{ vmid: "12345678", vsid: "87654321", visaAcquiringMid: "CAID0001", visaBin: "412345" }],
      mastercard: [{ mcLocationId: "123456789", mcAcquiringMid: "MC0001" }],
      amex: [{ seNumber: "1234567890" }],
    };
    const location = await expectStatus<Location>(
      await client.post(
        `/v1/programs/${programId}/locations`,
        address(brandId, { geolocation: { latitude: 51.5, longitude: -0.14 }, metadata: { store: 7 }, mids }),
      ),
      201,
    );
    expect(location).toMatchObject({
      programId,
      brandId,
      address: "1 High Street",
      city: "London",
      postcode: "SW1A 1AA",
      countryCode: "GBR",
      timezone: "Europe/London",
      geolocation: { latitude: 51.5, longitude: -0.14 },
      metadata: { store: 7 },
      live: false,
      created: "2026-01-05T12:00:00.000Z",
    });
    for (const scheme of ["visa", "mastercard", "amex"] as const) {
      expect(location.status[scheme]).toEqual({ status: "Active", mids: mids[scheme], updated: "2026-01-05T12:00:00.000Z" });
    }
    expect(await expectStatus<Location>(await client.get(`/v1/locations/${location.id}`), 200)).toEqual(location);

    const paris = await expectStatus<Location>(
      await client.post(`/v1/programs/${programId}/locations`, address(brandId, { countryCode: "FRA", postcode: "75001", city: "Paris" })),
      201,
    );
    expect(paris.timezone).toBe("Europe/Paris");
    expect(paris.geolocation).toBeNull();
    // metadata is an object everywhere (record, location.status webhook, transaction): {} when none was given.
    expect(paris.metadata).toEqual({});
    // Without client MIDs, the test networks assign their own: they answer the onboarding request at once.
    expect(paris.status.visa.mids).toEqual([]);
    const deadline = Date.now() + 10_000;
    while (SCHEMES.some((s) => paris.status[s].mids.length === 0) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
      Object.assign(paris, await expectStatus<Location>(await client.get(`/v1/locations/${paris.id}`), 200));
    }
    expect(paris.status.visa.mids).toEqual([
      { vmid: expect.stringMatching(/^\d{8}$/), vsid: expect.stringMatching(/^\d{7,8}$/), visaAcquiringMid: expect.stringMatching(/^\d{15}$/), visaBin: expect.stringMatching(/^4\d{5}$/) },
    ]);
    expect(paris.status.mastercard.mids).toEqual([{ mcLocationId: expect.stringMatching(/^\d+$/), mcAcquiringMid: expect.any(String) }]);
    expect(paris.status.amex.mids).toEqual([{ seNumber: expect.stringMatching(/^\d{10}$/) }]);
    const events = await h.services.db.query<{ data: { scheme: string; status: string; location: { id: string } } }>(
      "select data from outbox where event = 'location.status' and data->'location'->>'id' = $1",
      [paris.id],
    );
    expect(events.map((e) => [e.data.scheme, e.data.status]).sort()).toEqual([
      ["amex", "location.active"],
      ["mastercard", "location.active"],
      ["visa", "location.active"],
    ]);
    const chosen = await expectStatus<Location>(
      await client.post(`/v1/programs/${programId}/locations`, address(brandId, { countryCode: "USA", timezone: "America/Los_Angeles" })),
      201,
    );
    expect(chosen.timezone).toBe("America/Los_Angeles");
  });

  it("creates live locations Idle, or Syncing with status syncing, and refuses syncing under a test key", async () => {
    const acct = await h.createAccount();
    const live = acct.as("live");
    const { programId, brandId } = await setup(live, true);
    const idle = await expectStatus<Location>(await live.post(`/v1/programs/${programId}/locations`, address(brandId)), 201);
    expect(idle.live).toBe(true);
    expect([idle.status.visa.status, idle.status.mastercard.status, idle.status.amex.status]).toEqual(["Idle", "Idle", "Idle"]);
    const syncing = await expectStatus<Location>(
      await live.post(`/v1/programs/${programId}/locations`, address(brandId, { status: "syncing" })),
      201,
    );
    expect([syncing.status.visa.status, syncing.status.mastercard.status, syncing.status.amex.status]).toEqual([
      "Syncing",
      "Syncing",
      "Syncing",
    ]);

    const test = await setup(acct.as("test"));
    expect(
      await expectError(
        await acct.as("test").post(`/v1/programs/${test.programId}/locations`, address(test.brandId, { status: "syncing" })),
        400,
        "invalid_request",
      ),
    ).toMatch(/^status: syncing works only for live programs with a live key/);
    expect(
      await expectError(
        await live.post(`/v1/programs/${programId}/locations`, address(brandId, { status: "active" })),
        400,
        "invalid_request",
      ),
    ).toMatch(/^status: the only value is syncing/);
  });

  it("lists a program's locations in pages, filtered by brand", async () => {
    const client = (await h.createAccount()).as("test");
    const { programId, brandId } = await setup(client);
    const other = (await expectStatus<{ id: string }>(await client.post("/v1/brands", { name: "Tea" }), 201)).id;
    const mine: string[] = [];
    for (let i = 0; i < 3; i++) {
      mine.push((await expectStatus<Location>(await client.post(`/v1/programs/${programId}/locations`, address(brandId)), 201)).id);
    }
    const tea = await expectStatus<Location>(await client.post(`/v1/programs/${programId}/locations`, address(other)), 201);
    const all = await expectStatus<{ items: Location[]; count: number }>(await client.get(`/v1/programs/${programId}/locations`), 200);
    expect(all.count).toBe(4);
    expect(all.items.every((l) => l.status.amex.status === "Active")).toBe(true);
    const page = await expectStatus<{ items: Location[]; count: number; last?: string }>(
      await client.get(`/v1/programs/${programId}/locations?brandId=${brandId}&limit=2`),
      200,
    );
    expect(page.count).toBe(3);
    const rest = await expectStatus<{ items: Location[]; last?: string }>(
      await client.get(`/v1/programs/${programId}/locations?brandId=${brandId}&limit=2&start=${page.last}`),
      200,
    );
    expect(rest.last).toBeUndefined();
    expect([...page.items, ...rest.items].map((l) => l.id).sort()).toEqual([...mine].sort());
    const onlyTea = await expectStatus<{ items: Location[] }>(await client.get(`/v1/programs/${programId}/locations?brandId=${other}`), 200);
    expect(onlyTea.items.map((l) => l.id)).toEqual([tea.id]);
  });

  it("updates address fields, time zone, geolocation, metadata and per-scheme MIDs", async () => {
    const client = (await h.createAccount()).as("test");
    const { programId, brandId } = await setup(client);
    const location = await expectStatus<Location>(
      await client.post(
        `/v1/programs/${programId}/locations`,
        address(brandId, { geolocation: { latitude: 1, longitude: 2 }, metadata: { a: 1 }, mids: { visa: [{ vmid: "1234567" }] } }),
      ),
      201,
    );
    await h.services.clock.advance(60_000);
    const updated = await expectStatus<Location>(
      await client.patch(`/v1/locations/${location.id}`, {
        address: "2 Low Road",
        postcode: "E1 6AN",
        timezone: "Europe/Dublin",
        mids: { amex: [{ seNumber: "9876543210" }] },
      }),
      200,
    );
    expect(updated).toMatchObject({
      address: "2 Low Road",
      city: "London",
      postcode: "E1 6AN",
      timezone: "Europe/Dublin",
      geolocation: { latitude: 1, longitude: 2 },
      metadata: { a: 1 },
    });
    expect(updated.updated).toBe(h.services.clock.now().toISOString());
    // Visa keeps the client's vmid, completed by the test network's answer when it has come (vsid, CAID, BIN).
    expect(updated.status.visa).toMatchObject({ status: "Active", mids: [expect.objectContaining({ vmid: "1234567" })] });
    expect(updated.status.amex).toMatchObject({ status: "Active", mids: [{ seNumber: "9876543210" }], updated: updated.updated });
    const cleared = await expectStatus<Location>(
      await client.patch(`/v1/locations/${location.id}`, { geolocation: null, metadata: null, mids: { visa: [] } }),
      200,
    );
    expect(cleared).toMatchObject({ geolocation: null, metadata: {}, address: "2 Low Road" });
    expect(cleared.status.visa.mids).toEqual([]);
    expect(await expectStatus<Location>(await client.patch(`/v1/locations/${location.id}`, {}), 200)).toEqual(cleared);

    const bad = async (body: unknown) => expectError(await client.patch(`/v1/locations/${location.id}`, body), 400, "invalid_request");
    expect(await bad({ countryCode: "USA" })).toMatch(/countryCode: unknown field/);
    expect(await bad({ brandId })).toMatch(/brandId: unknown field/);
    expect(await bad({ city: "" })).toMatch(/^city: must not be empty/);
    expect(await bad({ timezone: "Nowhere" })).toMatch(/^timezone:/);
    expect(await bad({ mids: { amex: [{ seNumber: "1" }] } })).toMatch(/^mids.amex.0.seNumber:/);
  });

  it("deletes a location", async () => {
    const client = (await h.createAccount()).as("test");
    const { programId, brandId } = await setup(client);
    const location = await expectStatus<Location>(await client.post(`/v1/programs/${programId}/locations`, address(brandId)), 201);
    const res = await client.delete(`/v1/locations/${location.id}`);
    expect(res.status).toBe(204);
    await expectError(await client.get(`/v1/locations/${location.id}`), 404, "resource_not_found");
    await expectError(await client.delete(`/v1/locations/${location.id}`), 404, "resource_not_found");
    const [left] = await h.services.db.query<{ n: number }>("select count(*)::int as n from location_networks where location_id = $1", [location.id]);
    expect(left!.n).toBe(0);
  });
});
