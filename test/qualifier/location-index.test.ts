// The qualifier's in-memory location index: it finds a location by each MID form a network message can
// carry, follows changes made after it was built (a MID added, a scheme no longer Active, a second
// location with the same MID), and reloads only when a row really changed — a sweep's update that
// touches nothing leaves both index versions alone.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHarness, expectStatus, type Harness } from "../support/harness.ts";
import { world, type World } from "../support/offers-world.ts";
import { startRoles, type RunningRoles } from "../../src/app/roles.ts";
import { createLocationIndex, type LocationIndex } from "../../src/qualifier/location-index.ts";
import { indexVersions } from "../../src/services/transactions/index-versions.ts";
import { emptyMids } from "../../simulators/engine/types.ts";

let h: Harness;
let roles: RunningRoles;
let w: World;
type VisaMid = { vmid: string; vsid: string; visaAcquiringMid: string; visaBin: string };

beforeAll(async () => {
  h = await createHarness();
  roles = await startRoles(h.services, ["simulators", "workers"]);
  w = await world(h);
});
afterAll(async () => {
  await roles.stop();
  await h.close();
});

async function visaMids(locationId: string): Promise<VisaMid[]> {
  let mids: VisaMid[] = [];
  await expect
    .poll(async () => {
      mids = (await expectStatus<{ status: { visa: { mids: VisaMid[] } } }>(await w.client.get(`/v1/locations/${locationId}`), 200)).status.visa.mids;
      return mids.length;
    }, { timeout: 30_000 })
    .toBeGreaterThan(0);
  return mids;
}

const visa = (m: Partial<VisaMid>) => ({ scheme: "visa" as const, merchant: { ...emptyMids(), ...m } });
const version = async (table: "offer_index_version" | "location_index_version") =>
  Number((await h.services.db.query<{ version: number }>(`select version from ${table}`))[0]!.version);

/** The index as of the database's location index version now, as the qualifier reads it per batch. */
const current = async (index: LocationIndex) => index.current(h.services.db, (await indexVersions(h.services.db)).locations);

describe("location index", () => {
  it("finds a location by VMID, VMID with VSID and acquiring MID, only in its own program", async () => {
    const [mid] = await visaMids(w.locationId);
    const locationOf = await current(createLocationIndex());
    expect(locationOf(w.programId, visa({ vmid: mid!.vmid }))?.id).toBe(w.locationId);
    expect(locationOf(w.programId, visa({ vmid: mid!.vmid, vsid: mid!.vsid }))?.id).toBe(w.locationId);
    expect(locationOf(w.programId, visa({ visaAcquiringMid: mid!.visaAcquiringMid }))?.id).toBe(w.locationId);
    expect(locationOf(w.programId, visa({ vmid: mid!.vmid, vsid: "no-such-vsid" }))).toBeUndefined();
    expect(locationOf("00000000-0000-4000-8000-000000000000", visa({ vmid: mid!.vmid }))).toBeUndefined();
    expect(locationOf(w.programId, visa({}))).toBeUndefined();
  });

  it("follows a MID added and a scheme that stops being Active after it was built, and keeps the oldest location for a shared MID", async () => {
    const index = createLocationIndex();
    const [mid] = await visaMids(w.locationId);
    expect((await current(index))(w.programId, visa({ vmid: "added-vmid" }))).toBeUndefined();

    await h.services.db.query(
      "update location_networks set mids = mids || $2::jsonb where location_id = $1 and scheme = 'visa'",
      [w.locationId, JSON.stringify([{ ...mid, vmid: "added-vmid" }])],
    );
    expect((await current(index))(w.programId, visa({ vmid: "added-vmid" }))?.id).toBe(w.locationId);

    // A second location of the program, created a second later, given the same MID: the older one keeps it.
    await expectStatus(await h.admin("POST", "/admin/clock/advance", { seconds: 1 }), 200);
    const second = await w.location(w.brandId);
    await visaMids(second);
    await h.services.db.query(
      "update location_networks set mids = mids || $2::jsonb where location_id = $1 and scheme = 'visa'",
      [second, JSON.stringify([{ ...mid, vmid: "added-vmid" }])],
    );
    expect((await current(index))(w.programId, visa({ vmid: "added-vmid" }))?.id).toBe(w.locationId);

    await h.services.db.query("update location_networks set status = 'Syncing' where location_id = $1 and scheme = 'visa'", [w.locationId]);
    expect((await current(index))(w.programId, visa({ vmid: "added-vmid" }))?.id).toBe(second);
    await h.services.db.query("update location_networks set status = 'Active' where location_id = $1 and scheme = 'visa'", [w.locationId]);
  });

  it("moves the index versions only when a statement changed rows", async () => {
    const [offers, locations] = [await version("offer_index_version"), await version("location_index_version")];
    await h.services.db.query("update offers set updated = updated where false");
    await h.services.db.query("update brands set updated = updated where false");
    await h.services.db.query("delete from location_networks where false");
    expect([await version("offer_index_version"), await version("location_index_version")]).toEqual([offers, locations]);

    await h.services.db.query("update brands set updated = updated where id = $1", [w.brandId]);
    expect(await version("location_index_version")).toBe(locations + 1);
    await w.offer();
    expect(await version("offer_index_version")).toBeGreaterThan(offers);
  });
});
