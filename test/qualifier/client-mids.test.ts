// A location's MIDs as the client gave them are the ids the network's messages carry: a Visa location
// with only a vmid and vsid still receives its purchases (the network fills in the CAID and BIN).
import { expect, it } from "vitest";
import { expectStatus } from "../support/harness.ts";
import { usePipeline } from "../support/pipeline.ts";
import { localIn, world } from "../support/offers-world.ts";

const pipeline = usePipeline(["simulators", "qualifier", "workers"]);

it("matches a purchase to the location by the vmid and vsid the client supplied", async () => {
  const { h } = pipeline;
  const w = await world(h);
  const location = await expectStatus<{ id: string }>(
    await w.client.post(`/v1/programs/${w.programId}/locations`, {
      brandId: w.brandId,
      address: "2 High Street",
      city: "London",
      postcode: "SW1A 1AA",
      countryCode: "GBR",
      mids: { visa: [{ vmid: "12345678", vsid: "87654321" }] },
    }),
    201,
  );
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
