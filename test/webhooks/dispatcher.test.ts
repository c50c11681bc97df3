import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import { createHarness, expectStatus, type Harness, type TestAccount } from "../support/harness.ts";
import { startReceiver, type Receiver } from "../support/receiver.ts";
import { createDispatcher, type Dispatcher } from "../../src/webhooks/dispatcher.ts";
import { enqueueEvent } from "../../src/store/outbox.ts";
import { RETRY_DELAYS_MS } from "../../src/webhooks/schedule.ts";

let h: Harness;
let receiver: Receiver;
let dispatcher: Dispatcher;

beforeAll(async () => {
  h = await createHarness();
  receiver = await startReceiver();
  dispatcher = createDispatcher({ db: h.services.db, clock: h.services.clock, log: h.services.log, timeoutMs: 300 });
});
afterAll(async () => {
  await dispatcher.stop();
  await receiver.close();
  await h.close();
});

type Hook = { id: string; secret: string };
type Delivery = { eventId: string; status: string; nextAttempt: string | null; attempts: { responseCode: number | null; error: string | null }[] };

async function setup(event = "transaction.auth"): Promise<{ acct: TestAccount; programId: string; hook: Hook }> {
  const acct = await h.createAccount();
  const program = await expectStatus<{ id: string }>(await acct.as("test").post("/v1/programs", { name: "P" }), 201);
  const hook = await expectStatus<Hook>(
    await acct.as("test").post(`/v1/programs/${program.id}/hooks`, { event, url: receiver.url }),
    201,
  );
  return { acct, programId: program.id, hook };
}

const enqueue = (acct: TestAccount, programId: string | null, event: string, data: unknown) =>
  enqueueEvent(h.services.db, { accountId: acct.id, live: false, programId, event, data }, h.services.clock.now());

const deliveries = async (acct: TestAccount, hookId: string) =>
  (await expectStatus<{ items: Delivery[] }>(await acct.as("test").get(`/v1/hooks/${hookId}/deliveries`), 200)).items;

describe("webhook dispatcher", () => {
  it("delivers an event to the program's hook for it, signed per Standard Webhooks", async () => {
    receiver.respondWith(200);
    const { acct, programId, hook } = await setup();
    const eventId = await enqueue(acct, programId, "transaction.auth", { amount: 12.5 });
    await enqueue(acct, programId, "location.status", { ignored: true });
    const before = receiver.received.length;
    await dispatcher.runOnce();
    const got = receiver.received.slice(before);
    expect(got).toHaveLength(1);
    const verified = new Webhook(hook.secret).verify(got[0]!.body, got[0]!.headers as Record<string, string>) as Record<string, unknown>;
    expect(verified).toMatchObject({ id: eventId, event: "transaction.auth", data: { amount: 12.5 } });
    expect(got[0]!.headers["webhook-id"]).toBe(eventId);
    const [delivery] = await deliveries(acct, hook.id);
    expect(delivery).toMatchObject({ eventId, status: "succeeded", nextAttempt: null });
    expect(delivery!.attempts).toEqual([expect.objectContaining({ responseCode: 200, error: null })]);
  });

  it("sends an event without a program to the publisher's hooks on every program", async () => {
    receiver.respondWith(204);
    const { acct, hook } = await setup("offer.extended");
    const eventId = await enqueue(acct, null, "offer.extended", { offerId: "x" });
    await dispatcher.runOnce();
    expect((await deliveries(acct, hook.id))[0]).toMatchObject({ eventId, status: "succeeded" });
  });

  it("retries a failed delivery on the service clock's schedule with the same webhook-id", async () => {
    receiver.respondWith(500);
    const { acct, programId, hook } = await setup();
    const eventId = await enqueue(acct, programId, "transaction.auth", {});
    await dispatcher.runOnce();
    let [delivery] = await deliveries(acct, hook.id);
    expect(delivery).toMatchObject({ status: "pending", attempts: [{ responseCode: 500 }] });
    expect(Date.parse(delivery!.nextAttempt!) - h.services.clock.now().getTime()).toBe(RETRY_DELAYS_MS[0]);
    // Not due yet: nothing is sent.
    const before = receiver.received.length;
    await dispatcher.runOnce();
    expect(receiver.received.length).toBe(before);
    receiver.respondWith(200);
    await h.services.clock.advance(RETRY_DELAYS_MS[0]);
    await dispatcher.runOnce();
    [delivery] = await deliveries(acct, hook.id);
    expect(delivery).toMatchObject({ status: "succeeded" });
    expect(delivery!.attempts.map((a) => a.responseCode)).toEqual([500, 200]);
    expect(receiver.received.at(-1)!.headers["webhook-id"]).toBe(eventId);
  });

  it("records a timeout as an attempt without a response and gives up after the last retry", async () => {
    receiver.respondWith("hang");
    const { acct, programId, hook } = await setup();
    await enqueue(acct, programId, "transaction.auth", {});
    await dispatcher.runOnce();
    for (const delay of RETRY_DELAYS_MS) {
      await h.services.clock.advance(delay);
      await dispatcher.runOnce();
    }
    const [delivery] = await deliveries(acct, hook.id);
    expect(delivery!.status).toBe("failed");
    expect(delivery!.attempts).toHaveLength(RETRY_DELAYS_MS.length + 1);
    expect(delivery!.attempts[0]).toMatchObject({ responseCode: null, error: expect.stringMatching(/timed out/) });
    receiver.respondWith(200);
  });

  it("redelivers an event on request, keeping its id, and 404s another account's event", async () => {
    receiver.respondWith(200);
    const { acct, programId, hook } = await setup();
    const eventId = await enqueue(acct, programId, "transaction.auth", {});
    await dispatcher.runOnce();
    const res = await expectStatus<{ deliveries: number }>(await acct.as("test").post(`/v1/webhook-events/${eventId}/redeliver`), 202);
    expect(res.deliveries).toBe(1);
    const before = receiver.received.length;
    await dispatcher.runOnce();
    expect(receiver.received.slice(before).map((r) => r.headers["webhook-id"])).toEqual([eventId]);
    expect(await deliveries(acct, hook.id)).toHaveLength(2);
    const stranger = await h.createAccount();
    expect((await stranger.as("test").post(`/v1/webhook-events/${eventId}/redeliver`)).status).toBe(404);
    expect((await acct.as("live").post(`/v1/webhook-events/${eventId}/redeliver`)).status).toBe(404);
  });

  it("runs no pass after stop for a kick made just before it", async () => {
    const acct = await h.createAccount();
    const eventId = await enqueue(acct, null, "transaction.auth", { n: 1 });
    const own = createDispatcher({ db: h.services.db, clock: h.services.clock, log: h.services.log, pollMs: 60_000 });
    own.start();
    own.kick();
    await own.stop();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const [row] = await h.services.db.query<{ dispatched: Date | null }>("select dispatched from outbox where id = $1", [eventId]);
    expect(row!.dispatched).toBeNull();
  });
});
