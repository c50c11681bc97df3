// A deleted sandbox's pending deliveries go with it: no attempt follows, retries included.
import { afterAll, beforeAll, expect, it } from "vitest";
import { createHarness, expectStatus, type Harness } from "../support/harness.ts";
import { startReceiver, type Receiver } from "../support/receiver.ts";
import { createDispatcher, type Dispatcher } from "../../src/dispatcher/dispatcher.ts";
import { enqueueEvent } from "../../src/platform/outbox.ts";

let h: Harness;
let receiver: Receiver;
let dispatcher: Dispatcher;

beforeAll(async () => {
  h = await createHarness();
  receiver = await startReceiver();
  dispatcher = createDispatcher({ db: h.services.db, clock: h.services.clock, log: h.services.log, drainMs: 100 });
  dispatcher.start();
});
afterAll(async () => {
  await dispatcher.stop();
  await receiver.close();
  await h.close();
});

it("removes the sandbox's events and deliveries, so its failing receiver gets no retry after the deletion", async () => {
  const account = await h.createAccount();
  const sandbox = await expectStatus<{ id: string; keys: { test: string } }>(await account.as("test").post("/v1/sandboxes", { name: "doomed", expiresIn: 30 * 86_400 }), 201);
  const inside = h.clientWithKey(sandbox.keys.test);
  const program = await expectStatus<{ id: string }>(await inside.post("/v1/programs", { name: "P" }), 201);
  await expectStatus(await inside.post(`/v1/programs/${program.id}/hooks`, { event: "location.status", url: receiver.url }), 201);
  receiver.respondWith(500);
  await enqueueEvent(h.services.db, { accountId: sandbox.id, live: false, programId: program.id, event: "location.status", data: {} }, h.services.clock.now());
  await receiver.waitFor(1);
  const pending = async () =>
    (await h.services.db.query<{ n: number }>("select count(*)::int as n from webhook_deliveries where account_id = $1", [sandbox.id]))[0]!.n;
  expect(await pending()).toBe(1);

  expect((await account.as("test").delete(`/v1/sandboxes/${sandbox.id}`)).status).toBe(204);
  expect(await pending()).toBe(0);
  // Every retry of the Standard Webhooks schedule would have fallen due within a day and a half.
  receiver.respondWith(200);
  await h.services.clock.advance(36 * 3_600_000);
  // One sweep of the dispatcher after the advance: a retry would be sent now. Another account's event shows it ran.
  const other = await h.createAccount();
  const otherProgram = await expectStatus<{ id: string }>(await other.as("test").post("/v1/programs", { name: "Q" }), 201);
  await expectStatus(await other.as("test").post(`/v1/programs/${otherProgram.id}/hooks`, { event: "location.status", url: receiver.url }), 201);
  await enqueueEvent(h.services.db, { accountId: other.id, live: false, programId: otherProgram.id, event: "location.status", data: {} }, h.services.clock.now());
  await receiver.waitFor(2);
  await dispatcher.settled();
  const first = receiver.received[0]!.headers["webhook-id"];
  expect(receiver.received.filter((r) => r.headers["webhook-id"] === first), "the deleted sandbox's event was not retried").toHaveLength(1);
  expect(receiver.received).toHaveLength(2);
});
