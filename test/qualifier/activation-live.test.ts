// Rule 5 in the live environment, through the API and the pipeline (Visa simulator -> bus -> qualifier):
// at a location whose offers all need activation, a purchase by a card the offer is not activated on is
// dropped (no transaction, no webhook); an activated card's purchase qualifies; once activation is turned
// off on the live offer, every card's purchases are received and qualify.
import { expect, it } from "vitest";
import { expectError, expectStatus } from "../support/harness.ts";
import { usePipeline } from "../support/pipeline.ts";
import { localIn, world } from "../support/offers-world.ts";
import { transactionIdFor } from "../../src/domain/transaction-id.ts";

const pipeline = usePipeline(["simulators", "qualifier", "workers"]);
const MIDS = [{ vmid: "12345678", vsid: "87654321" }];

it("drops a live purchase of a card without activation, qualifies an activated card's, and receives every card's once activation is off", { timeout: 120_000 }, async () => {
  const { h } = pipeline;
  const w = await world(h, "live");
  // The live sync with the networks is not on this branch: each location's Visa onboarding result is
  // written as the sync writes it (Active, with its MIDs). Everything after goes through the pipeline.
  const onboard = (locationId: string, mids: typeof MIDS) =>
    h.services.db.query("update location_networks set status = 'Active', mids = $2::jsonb where location_id = $1 and scheme = 'visa'", [
      locationId,
      JSON.stringify(mids),
    ]);
  await onboard(w.locationId, MIDS);
  // A location with no offer: a purchase there is always recorded, which tells when the card's earlier
  // purchases (same card, same partition, in order) have been decided.
  const plain = { id: await w.location(await w.brand("Tea Room")), mids: [{ vmid: "22345678", vsid: "97654321" }] };
  await onboard(plain.id, plain.mids);
  const offer = await w.offer({ activation: { enabled: true }, startDate: localIn(h, -1), type: { name: "amount", value: 3 } });
  await expectStatus(await w.client.post(`/v1/offers/${offer.id}/locations/${w.locationId}`), 201);
  const other = await w.card("4111111111111111");
  const location = await expectStatus<{ address: string; city: string; postcode: string; countryCode: string; timezone: string }>(
    await w.client.get(`/v1/locations/${w.locationId}`),
    200,
  );
  const purchase = async (cardId: string, at = { id: w.locationId, name: "Coffee House", mids: MIDS }) => {
    const card = await expectStatus<{ firstNumbers: string; lastNumbers: string }>(await w.client.get(`/v1/cards/${cardId}`), 200);
    const receipt = await h.services.simulators.purchase({
      scheme: "visa",
      card: { id: cardId, firstSix: card.firstNumbers, lastFour: card.lastNumbers },
      location: { ...location, ...at },
      amount: 30,
    });
    return transactionIdFor("visa", "purchase", receipt.transactionId);
  };
  const recorded = async (id: string) => {
    await expect.poll(async () => (await w.client.get(`/v1/transactions/${id}`)).status, { timeout: 30_000, interval: 100 }).toBe(200);
    return expectStatus<{ offer: { qualified: boolean; cashback: number } }>(await w.client.get(`/v1/transactions/${id}`), 200);
  };

  const dropped = await purchase(w.cardId);
  // Same card, same partition: once this later purchase is recorded, the earlier one was decided.
  expect((await recorded(await purchase(w.cardId, { ...plain, name: "Tea Room" }))).offer.qualified).toBe(false);
  await expectStatus(await w.client.post(`/v1/offers/${offer.id}/cards/${w.cardId}`), 201);
  const activated = await purchase(w.cardId);
  expect((await recorded(activated)).offer).toMatchObject({ qualified: true, cashback: 3 });
  await expectError(await w.client.get(`/v1/transactions/${dropped}`), 404, "resource_not_found");
  const events = await h.services.db.query("select 1 from outbox where data->>'id' = $1", [dropped]);
  expect(events).toHaveLength(0);

  await expectStatus(await w.client.patch(`/v1/offers/${offer.id}`, { activation: { enabled: false } }), 200);
  const anyCard = await purchase(other);
  expect((await recorded(anyCard)).offer).toMatchObject({ qualified: true, cashback: 3 });
});
