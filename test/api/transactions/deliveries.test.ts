// GET /transactions/{id}/deliveries: the deliveries of a transaction's webhook events with their
// attempts — only that transaction's, only the caller's.
import { afterAll, beforeAll, expect, it } from "vitest";
import { expectStatus } from "../../support/harness.ts";
import { usePipeline } from "../../support/pipeline.ts";
import { startReceiver, type Receiver } from "../../support/receiver.ts";
import { localIn, world } from "../../support/offers-world.ts";

const pipeline = usePipeline(["simulators", "qualifier", "dispatcher", "workers"]);
let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

interface Delivery {
  event: string;
  eventId: string;
  status: string;
  attempts: { attempt: number; responseCode: number | null }[];
}

it("lists each stage's deliveries of one transaction, with attempts, and hides them from others", async () => {
  const { h } = pipeline;
  const w = await world(h);
  for (const event of ["transaction.auth", "transaction.auth.qualified"]) {
    await expectStatus(await w.client.post(`/v1/programs/${w.programId}/hooks`, { event, url: receiver.url }), 201);
  }
  const offer = await w.offer({ startDate: localIn(h, -1) });
  await expectStatus(await w.client.post(`/v1/offers/${offer.id}/locations/${w.locationId}`), 201);
  const send = () => w.client.post("/v1/transactions/test", { cardId: w.cardId, locationId: w.locationId, amount: 20 });
  const tx = await expectStatus<{ id: string }>(await send(), 201);
  const otherTx = await expectStatus<{ id: string }>(await send(), 201);
  await receiver.waitFor(4, 20_000);

  let page: { items: Delivery[]; count: number } = { items: [], count: 0 };
  await expect
    .poll(async () => {
      page = await expectStatus(await w.client.get(`/v1/transactions/${tx.id}/deliveries`), 200);
      return page.items.map((d) => d.status);
    }, { timeout: 20_000 })
    .toEqual(["succeeded", "succeeded"]);
  expect(page.count).toBe(2);
  expect(page.items.map((d) => d.event).sort()).toEqual(["transaction.auth", "transaction.auth.qualified"]);
  expect(page.items[0]!.attempts).toMatchObject([{ attempt: 1, responseCode: 200 }]);
  const others = await expectStatus<{ items: Delivery[] }>(await w.client.get(`/v1/transactions/${otherTx.id}/deliveries`), 200);
  expect(others.items.map((d) => d.eventId)).not.toContain(page.items[0]!.eventId);

  const stranger = await h.createAccount();
  const refused = await stranger.as("test").get(`/v1/transactions/${tx.id}/deliveries`);
  expect(refused.status).toBe(404);
  expect((await w.client.get(`/v1/transactions/${tx.id}/deliveries?limit=0`)).status).toBe(400);
});
