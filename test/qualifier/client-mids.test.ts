// A location's MIDs as the client gave them are the ids the network's messages carry: a Visa location
// with only a vmid and vsid still receives its purchases (the network fills in the CAID and BIN); one whose
// MIDs the client removed after onboarding receives none, and says so at once.
import { expect, it } from "vitest";
import { expectStatus } from "../support/harness.ts";
import { usePipeline } from "../support/pipeline.ts";
import { expect400, localIn, world, type World } from "../support/offers-world.ts";

const pipeline = usePipeline(["simulators", "qualifier", "workers"]);

/** A new location of the world's brand, with the MIDs the client gives it. */
const locationWith = async (w: World, mids: Record<string, Record<string, string>[]>) =>
  expectStatus<{ id: string }>(
    await w.client.post(`/v1/programs/${w.programId}/locations`, {
      brandId: w.brandId,
      address: "2 High Street",
      city: "London",
      postcode: "SW1A 1AA",
      countryCode: "GBR",
      mids,
    }),
    201,
  );

it("matches a purchase to the location by the vmid and vsid the client supplied", async () => {
  const { h } = pipeline;
  const w = await world(h);
  const location = await locationWith(w, { visa: [{ vmid: "12345678", vsid: "87654321" }] });
  const offer = await w.offer({ startDate: localIn(h, -1) });
  await expectStatus(await w.client.post(`/v1/offers/${offer.id}/locations/${location.id}`), 201);
  const tx = await expectStatus<{ location: { id: string }; identifiers: { MID: string }; offer: { qualified: boolean } }>(
    await w.client.post("/v1/transactions/test", { cardId: w.cardId, locationId: location.id, amount: 30 }),
    201,
  );
  expect(tx.location.id).toBe(location.id);
  expect(tx.offer.qualified).toBe(true);
  expect(tx.identifiers.MID).toMatch(/^\d{15}$/);
});

it("refuses at once a purchase at a location whose MIDs the client removed after the network onboarded it", async () => {
  const { h } = pipeline;
  const w = await world(h);
  // A first purchase waits for the test network's onboarding answer, so the location has had its MIDs.
  const card = await expectStatus<{ scheme: string }>(await w.client.get(`/v1/cards/${w.cardId}`), 200);
  await expectStatus(await w.client.post("/v1/transactions/test", { cardId: w.cardId, locationId: w.locationId, amount: 30 }), 201);
  await expectStatus(await w.client.patch(`/v1/locations/${w.locationId}`, { mids: { [card.scheme]: [] } }), 200);
  await expect400(
    await w.client.post("/v1/transactions/test", { cardId: w.cardId, locationId: w.locationId, amount: 30 }),
    `locationId: the location has no ${card.scheme} MIDs (they were removed after onboarding)`,
  );
});

it("matches a purchase by the MIDs the client gave a location after it was onboarded", async () => {
  const { h } = pipeline;
  const w = await world(h);
  const offer = await w.offer({ startDate: localIn(h, -1) });
  await expectStatus(await w.client.post(`/v1/offers/${offer.id}/locations/${w.locationId}`), 201);
  await expectStatus(await w.client.post("/v1/transactions/test", { cardId: w.cardId, locationId: w.locationId, amount: 30 }), 201);
  await expectStatus(await w.client.patch(`/v1/locations/${w.locationId}`, { mids: { visa: [{ vmid: "23456789", vsid: "98765432" }] } }), 200);
  const tx = await expectStatus<{ location: { id: string }; offer: { qualified: boolean } }>(
    await w.client.post("/v1/transactions/test", { cardId: w.cardId, locationId: w.locationId, amount: 30 }),
    201,
  );
  expect(tx.location.id).toBe(w.locationId);
  expect(tx.offer.qualified).toBe(true);
});

it("matches a purchase at a location the client gave only a Visa acquirer BIN, by the ids the network completed it with", async () => {
  const { h } = pipeline;
  const w = await world(h);
  const location = await locationWith(w, { visa: [{ visaBin: "412345" }] });
  const tx = await expectStatus<{ location: { id: string } }>(
    await w.client.post("/v1/transactions/test", { cardId: w.cardId, locationId: location.id, amount: 30 }),
    201,
  );
  expect(tx.location.id).toBe(location.id);
  const stored = await expectStatus<{ status: { visa: { mids: { vmid?: string; visaBin?: string }[] } } }>(await w.client.get(`/v1/locations/${location.id}`), 200);
  expect(stored.status.visa.mids).toEqual([expect.objectContaining({ visaBin: "412345", vmid: expect.stringMatching(/^\d{6,8}$/) })]);
});
