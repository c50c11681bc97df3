// In one process the qualifier hands new events to the dispatcher at once, so a webhook does not wait
// for the dispatcher's next poll (here a minute away).
import { afterAll, beforeAll, expect, it } from "vitest";
import { expectStatus } from "../support/harness.ts";
import { usePipeline } from "../support/pipeline.ts";
import { startReceiver, type Receiver } from "../support/receiver.ts";
import { localIn, world } from "../support/offers-world.ts";

const pipeline = usePipeline(["simulators", "qualifier", "dispatcher", "workers"], { dispatchPollMs: 60_000 });
let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

it("delivers the transaction webhook without waiting for the dispatcher's poll", async () => {
  const { h } = pipeline;
  const w = await world(h);
  await expectStatus(await w.client.post(`/v1/programs/${w.programId}/hooks`, { event: "transaction.auth", url: receiver.url }), 201);
  const offer = await w.offer({ startDate: localIn(h, -1) });
  await expectStatus(await w.client.post(`/v1/offers/${offer.id}/locations/${w.locationId}`), 201);
  const tx = await expectStatus<{ id: string }>(await w.client.post("/v1/transactions/test", { cardId: w.cardId, locationId: w.locationId, amount: 20 }), 201);
  const [delivery] = await receiver.waitFor(1, 5_000);
  expect(JSON.parse(delivery!.body)).toMatchObject({ event: "transaction.auth", data: { id: tx.id } });
});
