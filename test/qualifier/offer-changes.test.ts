// Offer changes meet recorded transactions: an extension leaves transactions that already qualified
// as they were, and the qualifier sees a newly linked offer at once (its in-memory index reloads).
import { expect, it } from "vitest";
import { expectStatus } from "../support/harness.ts";
import { usePipeline } from "../support/pipeline.ts";
import { localIn, world } from "../support/offers-world.ts";

const pipeline = usePipeline(["simulators", "qualifier", "workers"]);

type Tx = { id: string; updated: string; offer: { id: string | null; qualified: boolean; cashback: number } };

it("keeps a qualified transaction as it was when its offer is extended, and qualifies with a newly linked offer at once", async () => {
  const { h } = pipeline;
  const w = await world(h);
  const purchase = () =>
    w.client.post("/v1/transactions/test", { cardId: w.cardId, locationId: w.locationId, amount: 40 }).then((r) => expectStatus<Tx>(r, 201));
  expect((await purchase()).offer).toMatchObject({ id: null, qualified: false });

  const offer = await w.offer({ startDate: localIn(h, -1), type: { name: "amount", value: 5 } });
  await expectStatus(await w.client.post(`/v1/offers/${offer.id}/locations/${w.locationId}`), 201);
  const qualified = await purchase();
  expect(qualified.offer).toMatchObject({ id: offer.id, qualified: true, cashback: 5 });

  const extended = await expectStatus<{ endDate: string }>(await w.client.patch(`/v1/offers/${offer.id}`, { endDate: localIn(h, 500) }), 200);
  expect(extended.endDate).toBe(localIn(h, 500));
  expect(await expectStatus<Tx>(await w.client.get(`/v1/transactions/${qualified.id}`), 200)).toEqual(qualified);
  const events = await h.services.db.query<{ event: string }>("select event from outbox where data->>'id' = $1", [qualified.id]);
  expect(events.map((e) => e.event).sort()).toEqual(["transaction.auth", "transaction.auth.qualified"]);
});
