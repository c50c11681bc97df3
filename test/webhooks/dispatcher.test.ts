// The webhook dispatcher against a real local receiver: signing, fan-out, the retry schedule on the
// service clock, endpoint health (pause, disable, re-enable), hooks deleted mid-delivery, leases and stop.
// Every test waits on an outcome (`settled()`, a delivery's status), never on a short timeout.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import pino from "pino";
import { createHarness, expectStatus, type Engine, type Harness, type TestAccount } from "../support/harness.ts";
import { haveInfra } from "../support/infra.ts";
import { startReceiver, type Receiver } from "../support/receiver.ts";
import { createDispatcher, type Dispatcher, type DispatcherOptions } from "../../src/webhooks/dispatcher.ts";
import type { Db } from "../../src/services/db.ts";
import { enqueueEvent } from "../../src/services/outbox.ts";
import { claimDue, fanOut } from "../../src/services/webhook-deliveries.ts";
import { RETRY_DELAYS_MS } from "../../src/webhooks/schedule.ts";
import { createMetrics, hopFigures } from "../../src/metrics/index.ts";
import { sample } from "../support/metrics.ts";

type Hook = { id: string; secret: string; status: string; consecutiveFailures: number; disabledReason: string | null; lastError: string | null };
type Delivery = { eventId: string; status: string; nextAttempt: string | null; attempts: { responseCode: number | null; error: string | null }[] };

const engines: Engine[] = ["pglite", ...(haveInfra("databaseUrl") ? (["postgres"] as const) : [])];

async function until<T>(what: string, probe: () => Promise<T | undefined | false>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** A logger that keeps every line at warn and above. */
function capturingLog() {
  const lines: { msg: string; level: number }[] = [];
  const log = pino({ level: "warn" }, { write: (line: string) => void lines.push(JSON.parse(line) as { msg: string; level: number }) });
  return { log, lines };
}

describe.each(engines)("webhook dispatcher (%s)", (engine) => {
  let h: Harness;
  let receiver: Receiver;
  let dispatcher: Dispatcher;
  const logged = capturingLog();

  /** A started dispatcher of the test's own (one at a time per test unless the test says otherwise). */
  const startDispatcher = (options: Partial<DispatcherOptions> = {}) => {
    const d = createDispatcher({ db: h.services.db, clock: h.services.clock, log: logged.log, drainMs: 100, ...options });
    d.start();
    return d;
  };

  beforeAll(async () => {
    h = await createHarness({ engine, ownDatabase: true });
    receiver = await startReceiver();
  });
  beforeEach(() => {
    dispatcher = startDispatcher();
  });
  afterEach(() => dispatcher.stop());
  afterAll(async () => {
    await receiver.close();
    await h.close();
  });

  /** What this receiver got with one of these event ids (a shared database may hold other runs' hooks). */
  const receivedFor = (r: Receiver, ids: string[], from = 0) =>
    r.received.slice(from).filter((x) => ids.includes(String(x.headers["webhook-id"])));

  async function setup(event = "transaction.auth", url = receiver.url): Promise<{ acct: TestAccount; programId: string; hook: Hook }> {
    const acct = await h.createAccount();
    const program = await expectStatus<{ id: string }>(await acct.as("test").post("/v1/programs", { name: "P" }), 201);
    const hook = await expectStatus<Hook>(await acct.as("test").post(`/v1/programs/${program.id}/hooks`, { event, url }), 201);
    return { acct, programId: program.id, hook };
  }

  const enqueue = (acct: TestAccount, programId: string | null, event: string, data: unknown) =>
    enqueueEvent(h.services.db, { accountId: acct.id, live: false, programId, event, data }, h.services.clock.now());

  const deliveries = async (acct: TestAccount, hookId: string) =>
    (await expectStatus<{ items: Delivery[] }>(await acct.as("test").get(`/v1/hooks/${hookId}/deliveries`), 200)).items;
  const hookOf = async (acct: TestAccount, hookId: string) => expectStatus<Hook>(await acct.as("test").get(`/v1/hooks/${hookId}`), 200);

  it("delivers an event to the program's hook for it, signed per Standard Webhooks", async () => {
    receiver.respondWith(200);
    const { acct, programId, hook } = await setup();
    const eventId = await enqueue(acct, programId, "transaction.auth", { amount: 12.5 });
    const other = await enqueue(acct, programId, "location.status", { ignored: true });
    await dispatcher.settled();
    const got = receivedFor(receiver, [eventId, other]);
    expect(got).toHaveLength(1);
    const verified = new Webhook(hook.secret).verify(got[0]!.body, got[0]!.headers as Record<string, string>) as Record<string, unknown>;
    expect(verified).toMatchObject({ id: eventId, event: "transaction.auth", data: { amount: 12.5 } });
    expect(got[0]!.headers["webhook-id"]).toBe(eventId);
    const [delivery] = await deliveries(acct, hook.id);
    expect(delivery).toMatchObject({ eventId, status: "succeeded", nextAttempt: null });
    expect(delivery!.attempts).toEqual([expect.objectContaining({ responseCode: 200, error: null })]);
    expect(await hookOf(acct, hook.id)).toMatchObject({ status: "active", consecutiveFailures: 0, disabledReason: null });
  });

  it("sends an event without a program to the publisher's hooks on every program", async () => {
    receiver.respondWith(204);
    const { acct, hook } = await setup("offer.extended");
    const eventId = await enqueue(acct, null, "offer.extended", { offerId: "x" });
    await dispatcher.settled();
    expect((await deliveries(acct, hook.id))[0]).toMatchObject({ eventId, status: "succeeded" });
  });

  it("retries a failed delivery on the service clock's schedule with the same webhook-id, pausing the endpoint meanwhile", async () => {
    receiver.respondWith(500);
    const { acct, programId, hook } = await setup();
    const eventId = await enqueue(acct, programId, "transaction.auth", {});
    await dispatcher.settled();
    let [delivery] = await deliveries(acct, hook.id);
    expect(delivery).toMatchObject({ status: "pending", attempts: [{ responseCode: 500 }] });
    expect(Date.parse(delivery!.nextAttempt!) - h.services.clock.now().getTime()).toBe(RETRY_DELAYS_MS[0]);
    expect(await hookOf(acct, hook.id)).toMatchObject({ status: "failing", consecutiveFailures: 1, lastError: "answered 500" });
    // Neither the delivery nor a second event goes out before the endpoint's pause ends.
    const second = await enqueue(acct, programId, "transaction.auth", { second: true });
    await dispatcher.settled();
    expect(receivedFor(receiver, [eventId, second])).toHaveLength(1);
    receiver.respondWith(200);
    await h.services.clock.advance(RETRY_DELAYS_MS[0]);
    await dispatcher.settled();
    const all = await deliveries(acct, hook.id);
    delivery = all.find((d) => d.eventId === eventId);
    expect(delivery).toMatchObject({ status: "succeeded" });
    expect(delivery!.attempts.map((a) => a.responseCode)).toEqual([500, 200]);
    expect(all.map((d) => d.status)).toEqual(["succeeded", "succeeded"]);
    expect(receivedFor(receiver, [eventId]).map((r) => r.headers["webhook-id"])).toEqual([eventId, eventId]);
    expect(await hookOf(acct, hook.id)).toMatchObject({ status: "active", consecutiveFailures: 0 });
  });

  it("records a timeout as an attempt without a response and gives up after the last retry", async () => {
    // A short timeout here: this receiver never answers, so the timeout is the point.
    await dispatcher.stop();
    const own = (dispatcher = startDispatcher({ timeoutMs: 500 }));
    try {
      receiver.respondWith("hang");
      const { acct, programId, hook } = await setup();
      await enqueue(acct, programId, "transaction.auth", {});
      await own.settled();
      for (const delay of RETRY_DELAYS_MS) {
        await h.services.clock.advance(delay);
        await own.settled();
      }
      const [delivery] = await deliveries(acct, hook.id);
      expect(delivery!.status).toBe("failed");
      expect(delivery!.attempts).toHaveLength(RETRY_DELAYS_MS.length + 1);
      expect(delivery!.attempts[0]).toMatchObject({ responseCode: null, error: "timed out after 500 ms" });
    } finally {
      receiver.respondWith(200);
    }
  });

  it("counts each attempt's outcome in its metrics: retried while attempts are left, failed on the last, delivered on a 2xx", async () => {
    await dispatcher.stop();
    const metrics = createMetrics();
    const own = (dispatcher = startDispatcher({ metrics }));
    const outcomes = async () => {
      const text = (await metrics.expose()).body;
      return Object.fromEntries(["delivered", "retried", "failed", "cancelled"].map((outcome) => [outcome, sample(text, "cardlink_webhook_deliveries_total", { outcome })]));
    };
    try {
      receiver.respondWith(500);
      const failing = await setup();
      await enqueue(failing.acct, failing.programId, "transaction.auth", {});
      await own.settled();
      expect(await outcomes()).toEqual({ delivered: 0, retried: 1, failed: 0, cancelled: 0 });
      for (const delay of RETRY_DELAYS_MS) {
        await h.services.clock.advance(delay);
        await own.settled();
      }
      expect(await outcomes()).toEqual({ delivered: 0, retried: RETRY_DELAYS_MS.length, failed: 1, cancelled: 0 });
      receiver.respondWith(200);
      const healthy = await setup();
      await enqueue(healthy.acct, healthy.programId, "transaction.auth", {});
      await own.settled();
      expect(await outcomes()).toEqual({ delivered: 1, retried: RETRY_DELAYS_MS.length, failed: 1, cancelled: 0 });
      // On this frozen service clock the event's age in real time is not known: no dispatcher hop is timed.
      expect(hopFigures((await metrics.expose()).body).dispatcher).toBeUndefined();
    } finally {
      receiver.respondWith(200);
    }
  });

  it("redelivers an event on request, keeping its id, and 404s another account's event", async () => {
    receiver.respondWith(200);
    const { acct, programId, hook } = await setup();
    const eventId = await enqueue(acct, programId, "transaction.auth", {});
    await dispatcher.settled();
    const res = await expectStatus<{ deliveries: number }>(await acct.as("test").post(`/v1/webhook-events/${eventId}/redeliver`), 202);
    expect(res.deliveries).toBe(1);
    await dispatcher.settled();
    expect(receivedFor(receiver, [eventId]).map((r) => r.headers["webhook-id"])).toEqual([eventId, eventId]);
    expect(await deliveries(acct, hook.id)).toHaveLength(2);
    const stranger = await h.createAccount();
    expect((await stranger.as("test").post(`/v1/webhook-events/${eventId}/redeliver`)).status).toBe(404);
    expect((await acct.as("live").post(`/v1/webhook-events/${eventId}/redeliver`)).status).toBe(404);
  });

  it("disables an endpoint that failed on every attempt for 5 days, shows why, and delivers again once re-enabled", async () => {
    receiver.respondWith(503);
    const { acct, programId, hook } = await setup();
    const first = await enqueue(acct, programId, "transaction.auth", { n: 1 });
    await dispatcher.settled();
    await h.services.clock.advance(5 * 24 * 3_600_000);
    await dispatcher.settled();
    const disabled = await hookOf(acct, hook.id);
    expect(disabled).toMatchObject({ status: "disabled", consecutiveFailures: 2 });
    expect(disabled.disabledReason).toMatch(/^every attempt failed since .* \(2 in a row\); last error: answered 503$/);
    // Events keep being queued for it; none is sent.
    receiver.respondWith(200);
    const second = await enqueue(acct, programId, "transaction.auth", { n: 2 });
    await dispatcher.settled();
    expect(receivedFor(receiver, [second])).toEqual([]);
    // Re-enabling is validated, scoped to the account, and sends what waited.
    expect((await acct.as("test").patch(`/v1/hooks/${hook.id}`, {})).status).toBe(400);
    expect((await acct.as("test").patch(`/v1/hooks/${hook.id}`, { enabled: "yes" })).status).toBe(400);
    const stranger = await h.createAccount();
    expect((await stranger.as("test").patch(`/v1/hooks/${hook.id}`, { enabled: true })).status).toBe(404);
    const enabled = await expectStatus<Hook>(await acct.as("test").patch(`/v1/hooks/${hook.id}`, { enabled: true }), 200);
    expect(enabled).toMatchObject({ status: "active", consecutiveFailures: 0, disabledReason: null });
    expect(enabled).not.toHaveProperty("secret");
    await dispatcher.settled();
    // The first event's delivery is not due yet (its retry is 5 min after its second attempt).
    expect(receivedFor(receiver, [first, second]).map((r) => r.headers["webhook-id"])).toEqual([first, first, second]);
    // Disabled by request: nothing is sent either.
    expect(await expectStatus<Hook>(await acct.as("test").patch(`/v1/hooks/${hook.id}`, { enabled: false }), 200)).toMatchObject({
      status: "disabled",
      disabledReason: "disabled by request",
    });
  });

  it("records nothing and fails nothing when the hook is deleted while its delivery is in flight", async () => {
    const held = await startReceiver();
    held.respondWith("hang");
    const { acct, programId, hook } = await setup("transaction.auth", held.url);
    const warnings = logged.lines.length;
    await enqueue(acct, programId, "transaction.auth", {});
    dispatcher.kick();
    await held.waitFor(1, 30_000);
    expect((await acct.as("test").delete(`/v1/hooks/${hook.id}`)).status).toBe(204);
    // The attempt ends (the receiver drops the connection) only after the delivery went with its hook.
    await held.close();
    // Settles, unless writing the attempt fails (it did: a foreign-key violation, retried for ever).
    await Promise.race([dispatcher.settled(), until("a warning", async () => logged.lines.length > warnings)]);
    expect(logged.lines.slice(warnings).map((l) => l.msg)).toEqual([]);
    const [row] = await h.services.db.query<{ n: number }>("select count(*)::int as n from webhook_deliveries where hook_id = $1", [hook.id]);
    expect(row!.n).toBe(0);
  });

  it("renews its claim while a delivery is in flight, and on stop records the cut-short attempt as due again", async () => {
    const slow = await startReceiver();
    slow.respondWith("hang");
    const own = startDispatcher({ leaseMs: 1_500, drainMs: 200 });
    try {
      const { acct, programId, hook } = await setup("transaction.auth", slow.url);
      // Only `own` may take it first: the other dispatcher stops until the claim is in place.
      await dispatcher.stop();
      const eventId = await enqueue(acct, programId, "transaction.auth", {});
      own.kick();
      await slow.waitFor(1, 30_000);
      dispatcher = startDispatcher();
      const leaseOf = async () =>
        (await h.services.db.query<{ lease_until: Date }>("select lease_until from webhook_deliveries where hook_id = $1", [hook.id]))[0]!
          .lease_until;
      const first = await leaseOf();
      // Renewed past its first expiry while the request still hangs, so the other dispatcher never sends it.
      await until("a renewed lease", async () => (await leaseOf()).getTime() > first.getTime() + 2_000);
      expect(receivedFor(slow, [eventId])).toHaveLength(1);
      slow.respondWith(200);
      await own.stop();
      const [delivery] = await deliveries(acct, hook.id);
      expect(delivery!.attempts[0]).toMatchObject({ responseCode: null, error: expect.stringMatching(/^cancelled/) });
      // Due again at once: the other dispatcher sends it now, with the same webhook-id.
      await until("the delivery after stop", async () => (await deliveries(acct, hook.id))[0]!.status === "succeeded");
      expect(receivedFor(slow, [eventId])).toHaveLength(2);
    } finally {
      await own.stop();
      await slow.close();
    }
  });

  it("lets another dispatcher take over the claims of one that died once their lease runs out", async () => {
    receiver.respondWith(200);
    const { acct, programId, hook } = await setup();
    // A dispatcher that claims and then dies: its lease is never renewed. (One transaction, so the running
    // dispatcher cannot take the event first.)
    const { eventId, claimed } = await h.services.db.tx(async (tx) => {
      const id = await enqueueEvent(tx, { accountId: acct.id, live: false, programId, event: "transaction.auth", data: {} }, h.services.clock.now());
      await fanOut(tx, h.services.clock.now());
      const due = await claimDue(tx, {
        now: h.services.clock.now(),
        limit: 1000,
        owner: crypto.randomUUID(),
        leaseMs: 1_000,
        allowance: { hookIds: [], allowed: [] },
        defaultAllowed: 1000,
      });
      return { eventId: id, claimed: due };
    });
    expect(claimed.map((d) => d.eventId)).toContain(eventId);
    await dispatcher.settled();
    expect(receivedFor(receiver, [eventId])).toEqual([]);
    await until("the delivery after the lease ran out", async () => (await deliveries(acct, hook.id))[0]!.status === "succeeded");
  });

  it("is woken by an event written anywhere (no kick, no poll due), once its transaction commits", async () => {
    receiver.respondWith(200);
    await dispatcher.stop();
    dispatcher = startDispatcher({ pollMs: 600_000 });
    await dispatcher.settled();
    const { acct, programId } = await setup();
    const eventId = await h.services.db.tx(async (tx) => {
      const id = await enqueueEvent(tx, { accountId: acct.id, live: false, programId, event: "transaction.auth", data: { amount: 3 } }, h.services.clock.now());
      // Not before the commit: the event is not there to claim yet.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(receivedFor(receiver, [id])).toEqual([]);
      return id;
    });
    await until("the delivery the notification woke", async () => receivedFor(receiver, [eventId]).length === 1);
  });

  it("runs nothing after stop for a kick made just before it or after it", async () => {
    let stopped = false;
    const late: string[] = [];
    const watch = (db: Db): Db => ({
      ...db,
      query: (text, params) => {
        if (stopped) late.push(text);
        return db.query(text, params);
      },
      tx: (fn) => db.tx((tx) => fn(watch(tx))),
    });
    const own = createDispatcher({ db: watch(h.services.db), clock: h.services.clock, log: logged.log, pollMs: 60_000 });
    own.start();
    own.kick();
    await own.stop();
    stopped = true;
    own.kick();
    await h.services.clock.advance(1_000);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(late).toEqual([]);
  });
});
