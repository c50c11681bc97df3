// The webhook dispatcher against a real local receiver: signing, fan-out, the retry schedule on the
// service clock, endpoint health (pause, disable, re-enable), hooks deleted mid-delivery, leases and stop.
// Every test waits on an outcome (`settled()`, a delivery's status), never on a short timeout.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, onTestFinished } from "vitest";
import { Webhook } from "standardwebhooks";
import pino from "pino";
import { createHarness, ENGINES, expectError, expectStatus, type Harness, type TestAccount } from "../support/harness.ts";
import { startReceiver, type Receiver } from "../support/receiver.ts";
import { createDispatcher, type Dispatcher, type DispatcherOptions } from "../../src/dispatcher/dispatcher.ts";
import type { Db } from "../../src/platform/db.ts";
import { enqueueEvent } from "../../src/platform/outbox.ts";
import { claimDue, fanOut } from "../../src/services/webhooks/deliveries.ts";
import { RETRY_AFTER_MAX_MS, RETRY_DELAYS_MS, RETRY_JITTER } from "../../src/dispatcher/schedule.ts";
import { createMetrics, hopFigures } from "../../src/platform/metrics/index.ts";
import { sample } from "../support/metrics.ts";

type Hook = {
  id: string;
  secret: string;
  status: string;
  consecutiveFailures: number;
  disabledReason: string | null;
  lastError: string | null;
  pausedUntil: string | null;
};
type Delivery = { eventId: string; status: string; nextAttempt: string | null; attempts: { responseCode: number | null; error: string | null }[] };

/** A retry delay at its longest, jitter included: advancing the clock by this makes the retry due. */
const latest = (delay: number) => Math.ceil(delay * (1 + RETRY_JITTER));



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

describe.each(ENGINES)("webhook dispatcher (%s)", (engine) => {
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

  it("is settled only once every event written before has been fanned out, more than one batch of them", async () => {
    const { acct, programId } = await setup();
    // 1,200 events no hook takes: three rounds of fan-out (500 a round), none of which claims anything.
    await h.services.db.query(
      `insert into outbox (id, account_id, live, program_id, event, data, created)
       select gen_random_uuid(), $1, false, $2, 'location.status', jsonb_build_object('n', i), $3 from generate_series(1, 1200) as i`,
      [acct.id, programId, h.services.clock.now()],
    );
    await dispatcher.settled();
    const [left] = await h.services.db.query<{ n: number }>("select count(*)::int as n from outbox where program_id = $1 and dispatched is null", [programId]);
    expect(left!.n).toBe(0);
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
    const wait = Date.parse(delivery!.nextAttempt!) - h.services.clock.now().getTime();
    expect(wait).toBeGreaterThanOrEqual(RETRY_DELAYS_MS[0]);
    expect(wait).toBeLessThanOrEqual(latest(RETRY_DELAYS_MS[0]));
    expect(await hookOf(acct, hook.id)).toMatchObject({ status: "failing", consecutiveFailures: 1, lastError: "answered 500" });
    // Neither the delivery nor a second event goes out before the endpoint's pause ends.
    const second = await enqueue(acct, programId, "transaction.auth", { second: true });
    await dispatcher.settled();
    expect(receivedFor(receiver, [eventId, second])).toHaveLength(1);
    receiver.respondWith(200);
    await h.services.clock.advance(latest(RETRY_DELAYS_MS[0]));
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
        await h.services.clock.advance(latest(delay));
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

  it("times each phase in its metrics: every attempt prepared and called once, fan-outs, claims and batches written", async () => {
    await dispatcher.stop();
    const metrics = createMetrics();
    const own = (dispatcher = startDispatcher({ metrics }));
    receiver.respondWith(200);
    const { acct, programId } = await setup();
    for (let i = 0; i < 3; i++) await enqueue(acct, programId, "transaction.auth", { i });
    await own.settled();
    const text = (await metrics.expose()).body;
    const runs = (phase: string) => sample(text, "cardlink_webhook_dispatch_phase_duration_seconds_count", { phase });
    const attempts = ["delivered", "retried", "failed", "cancelled"].reduce((n, outcome) => n + sample(text, "cardlink_webhook_deliveries_total", { outcome }), 0);
    expect(attempts).toBeGreaterThanOrEqual(3);
    expect(runs("prepare")).toBe(attempts);
    expect(runs("call")).toBe(attempts);
    expect(runs("fan_out")).toBeGreaterThanOrEqual(1);
    expect(runs("claim")).toBeGreaterThanOrEqual(1);
    expect(runs("record")).toBeGreaterThanOrEqual(1);
    expect(runs("record")).toBeLessThanOrEqual(attempts);
    expect(sample(text, "cardlink_webhook_dispatch_phase_duration_seconds_sum", { phase: "call" })).toBeGreaterThan(0);
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
        await h.services.clock.advance(latest(delay));
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
    const notices = await startReceiver();
    onTestFinished(() => notices.close());
    const notice = await expectStatus<Hook>(await acct.as("test").post(`/v1/programs/${programId}/hooks`, { event: "hook.disabled", url: notices.url }), 201);
    const first = await enqueue(acct, programId, "transaction.auth", { n: 1 });
    await dispatcher.settled();
    await h.services.clock.advance(5 * 24 * 3_600_000);
    await dispatcher.settled();
    const disabled = await hookOf(acct, hook.id);
    expect(disabled).toMatchObject({ status: "disabled", consecutiveFailures: 2 });
    expect(disabled.disabledReason).toMatch(/^every attempt failed since .* \(2 in a row\); last error: answered 503$/);
    // The program's hook for hook.disabled is told (its event is written with the disabling, then fanned
    // out and delivered like any other), signed like every event, with the hook as it is now.
    await until("the hook.disabled notice", async () => notices.received.length > 0);
    await dispatcher.settled();
    expect(notices.received).toHaveLength(1);
    const told = new Webhook(notice.secret).verify(notices.received[0]!.body, notices.received[0]!.headers as Record<string, string>) as {
      event: string;
      data: Record<string, unknown>;
    };
    expect(told).toMatchObject({ event: "hook.disabled", data: { id: hook.id, status: "disabled", disabledReason: disabled.disabledReason } });
    expect(told.data).not.toHaveProperty("secret");
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

  it("on 410 Gone fails the delivery at once, disables the hook and tells the program's other hooks for hook.disabled, not itself", async () => {
    const gone = await startReceiver();
    const notices = await startReceiver();
    onTestFinished(async () => {
      await gone.close();
      await notices.close();
    });
    gone.respondWith(410);
    const { acct, programId, hook } = await setup("transaction.auth", gone.url);
    const client = acct.as("test");
    const notice = await expectStatus<Hook>(await client.post(`/v1/programs/${programId}/hooks`, { event: "hook.disabled", url: notices.url }), 201);
    // A hook for hook.disabled that is itself gone: disabled too, but never sent its own notice.
    const goneNotice = await expectStatus<Hook>(await client.post(`/v1/programs/${programId}/hooks`, { event: "hook.disabled", url: gone.url }), 201);
    const eventId = await enqueue(acct, programId, "transaction.auth", {});
    await dispatcher.settled();
    const [delivery] = await deliveries(acct, hook.id);
    expect(delivery).toMatchObject({ eventId, status: "failed", nextAttempt: null, attempts: [{ responseCode: 410 }] });
    const disabled = await hookOf(acct, hook.id);
    expect(disabled).toMatchObject({ status: "disabled", lastError: "answered 410 Gone" });
    expect(disabled.disabledReason).toMatch(/^the endpoint answered 410 Gone at \d{4}-\d\d-\d\dT/);
    // The notice reached the gone hook for hook.disabled (which disabled it in turn) and the healthy one.
    expect(await hookOf(acct, goneNotice.id)).toMatchObject({ status: "disabled" });
    const told = notices.received.map(
      (r) => new Webhook(notice.secret).verify(r.body, r.headers as Record<string, string>) as { event: string; data: { id: string } },
    );
    expect(told.map((t) => [t.event, t.data.id]).sort()).toEqual([["hook.disabled", hook.id], ["hook.disabled", goneNotice.id]].sort());
    const gotByGone = gone.received.map((r) => (JSON.parse(r.body) as { event: string; data: { id?: string } }));
    expect(gotByGone.filter((b) => b.event === "hook.disabled").map((b) => b.data.id)).toEqual([hook.id]);
    // Nothing more is sent to a disabled hook.
    await enqueue(acct, programId, "transaction.auth", {});
    await h.services.clock.advance(latest(RETRY_DELAYS_MS[0]));
    await dispatcher.settled();
    expect(gone.received.filter((r) => (JSON.parse(r.body) as { event: string }).event === "transaction.auth")).toHaveLength(1);
  });

  it("honours Retry-After on 429 and 503 (seconds or a date, at most the schedule's longest delay) and not on other answers", async () => {
    const { acct, programId, hook } = await setup();
    const client = acct.as("test");
    const sentAt = () => h.services.clock.now().getTime();
    // 429, an hour: neither this delivery nor anything else goes to the hook for an hour.
    receiver.respondWith(429, { headers: { "Retry-After": "3600" } });
    const first = await enqueue(acct, programId, "transaction.auth", {});
    const t0 = sentAt();
    await dispatcher.settled();
    let [delivery] = await deliveries(acct, hook.id);
    expect(Date.parse(delivery!.nextAttempt!) - t0).toBe(3_600_000);
    expect(Date.parse((await hookOf(acct, hook.id)).pausedUntil!) - t0).toBe(3_600_000);
    const detail = await expectStatus<{ deliveries: { attempts: { retryAfterMs: number | null }[] }[] }>(await client.get(`/v1/webhook-events/${first}`), 200);
    expect(detail.deliveries[0]!.attempts[0]!.retryAfterMs).toBe(3_600_000);
    receiver.respondWith(200);
    await h.services.clock.advance(3_599_000);
    await dispatcher.settled();
    expect(receivedFor(receiver, [first])).toHaveLength(1);
    await h.services.clock.advance(1_000);
    await dispatcher.settled();
    [delivery] = await deliveries(acct, hook.id);
    expect(delivery!.attempts.map((a) => a.responseCode)).toEqual([429, 200]);

    // 503 asking for more than the schedule's longest delay: capped at it.
    receiver.respondWith(503, { headers: { "Retry-After": String(7 * 24 * 3600) } });
    await enqueue(acct, programId, "transaction.auth", { n: 2 });
    const t1 = sentAt();
    await dispatcher.settled();
    [delivery] = await deliveries(acct, hook.id);
    expect(Date.parse(delivery!.nextAttempt!) - t1).toBe(RETRY_AFTER_MAX_MS);

    // A 500's Retry-After is not a promise the schedule keeps: the jittered 5 s it is.
    const other = await setup();
    receiver.respondWith(500, { headers: { "Retry-After": "3600" } });
    await enqueue(other.acct, other.programId, "transaction.auth", {});
    const t2 = sentAt();
    await dispatcher.settled();
    [delivery] = await deliveries(other.acct, other.hook.id);
    expect(Date.parse(delivery!.nextAttempt!) - t2).toBeLessThanOrEqual(latest(RETRY_DELAYS_MS[0]));
    receiver.respondWith(200);
  });

  it("spreads the retries of deliveries that failed together with jitter, never earlier than the schedule", async () => {
    receiver.respondWith(500);
    const failed = [];
    for (let i = 0; i < 6; i++) {
      const s = await setup();
      await enqueue(s.acct, s.programId, "transaction.auth", {});
      failed.push(s);
    }
    const t0 = h.services.clock.now().getTime();
    await dispatcher.settled();
    const waits = [];
    for (const s of failed) waits.push(Date.parse((await deliveries(s.acct, s.hook.id))[0]!.nextAttempt!) - t0);
    for (const w of waits) {
      expect(w).toBeGreaterThanOrEqual(RETRY_DELAYS_MS[0]);
      expect(w).toBeLessThanOrEqual(latest(RETRY_DELAYS_MS[0]));
    }
    expect(new Set(waits).size).toBeGreaterThan(1);
    receiver.respondWith(200);
  });

  it("recovers a hook: every event that failed at it in the window is delivered again under its own id", async () => {
    const { acct, programId, hook } = await setup();
    const client = acct.as("test");
    const ok = await setup();
    /** Runs the retry schedule through to its end for a delivery failing with 500. */
    const failThrough = async () => {
      await dispatcher.settled();
      for (const delay of RETRY_DELAYS_MS) {
        await h.services.clock.advance(latest(delay));
        await dispatcher.settled();
      }
    };
    receiver.respondWith(500);
    const before = await enqueue(acct, programId, "transaction.auth", { n: "before" });
    await failThrough();
    // Past the hook's pause after its last failure (at most 10 min).
    await h.services.clock.advance(600_000);
    const since = h.services.clock.now().toISOString();
    // In the window: one delivered (it ends the hook's failure streak), one failed through every retry.
    receiver.respondWith(200);
    const delivered = await enqueue(acct, programId, "transaction.auth", { n: "delivered" });
    await dispatcher.settled();
    // A second later, so the list's newest-first order does not hang on two ids made at one frozen instant.
    await h.services.clock.advance(1_000);
    receiver.respondWith(500);
    const inWindow = await enqueue(acct, programId, "transaction.auth", { n: "in" });
    await failThrough();
    expect((await deliveries(acct, hook.id)).map((d) => [d.eventId, d.status])).toEqual([
      [inWindow, "failed"],
      [delivered, "succeeded"],
      [before, "failed"],
    ]);
    receiver.respondWith(200);

    expect(await expectError(await client.post(`/v1/hooks/${hook.id}/recover`, {}), 400, "invalid_request")).toBe("since: required");
    expect(await expectError(await client.post(`/v1/hooks/${hook.id}/recover`, { since, until: since }), 400, "invalid_request")).toBe("until: must be later than since.");
    expect(await expectError(await client.post(`/v1/hooks/${hook.id}/recover`, { since: "yesterday" }), 400, "invalid_request")).toMatch(/^since: must be an ISO 8601 date-time/);
    expect((await (await h.createAccount()).as("test").post(`/v1/hooks/${hook.id}/recover`, { since })).status).toBe(404);
    expect((await acct.as("live").post(`/v1/hooks/${hook.id}/recover`, { since })).status).toBe(404);
    expect((await ok.acct.as("test").post(`/v1/hooks/${hook.id}/recover`, { since })).status).toBe(404);

    const from = receiver.received.length;
    // Two recoveries at once queue it once between them (one recovery of a hook at a time).
    const both = await Promise.all(
      [1, 2].map(async () => expectStatus<{ deliveries: number; since: string; until: string }>(await client.post(`/v1/hooks/${hook.id}/recover`, { since }), 202)),
    );
    const recovered = both.find((r) => r.deliveries > 0);
    expect(both.map((r) => r.deliveries).sort()).toEqual([0, 1]);
    expect(recovered).toMatchObject({ deliveries: 1, failed: 1, retrying: 0, since, until: h.services.clock.now().toISOString() });
    // The receiver is back, says the recovery: the hook's pause after its last failure is lifted, the delivery goes at once.
    await dispatcher.settled();
    expect(receivedFor(receiver, [before, inWindow, delivered], from).map((r) => r.headers["webhook-id"])).toEqual([inWindow]);
    // Recovered once: asking again finds nothing left failed in the window.
    expect((await expectStatus<{ deliveries: number }>(await client.post(`/v1/hooks/${hook.id}/recover`, { since }), 202)).deliveries).toBe(0);
    const event = await expectStatus<{ status: string; deliveries: { status: string }[] }>(await client.get(`/v1/webhook-events/${inWindow}`), 200);
    expect(event).toMatchObject({ status: "delivered" });
    expect(event.deliveries.map((d) => d.status)).toEqual(["failed", "succeeded"]);
    const stillFailed = await expectStatus<{ status: string }>(await client.get(`/v1/webhook-events/${before}`), 200);
    expect(stillFailed.status).toBe("failed");
  });

  it("recovers what waits for a retry: it goes at once, its scheduled retry dropped, and a delivered event is never sent again", async () => {
    const { acct, programId, hook } = await setup();
    const since = h.services.clock.now().toISOString();
    receiver.respondWith(200);
    const delivered = await enqueue(acct, programId, "transaction.auth", { n: "delivered" });
    await dispatcher.settled();
    receiver.respondWith(500);
    const retrying = await enqueue(acct, programId, "transaction.auth", { n: "retrying" });
    await dispatcher.settled();
    // One attempt failed; the next is scheduled on the (frozen) service clock, and the hook is paused meanwhile.
    const [waiting] = (await deliveries(acct, hook.id)).filter((d) => d.eventId === retrying);
    expect(waiting).toMatchObject({ status: "pending", attempts: [expect.objectContaining({ responseCode: 500 })] });
    expect(Date.parse(waiting!.nextAttempt!)).toBeGreaterThan(h.services.clock.now().getTime());
    receiver.respondWith(200);
    const from = receiver.received.length;
    // A second on, inside the 5 s before the retry: the window (until now) holds the events.
    await h.services.clock.advance(1_000);

    const recovered = await expectStatus<{ deliveries: number; failed: number; retrying: number }>(
      await acct.as("test").post(`/v1/hooks/${hook.id}/recover`, { since }),
      202,
    );
    expect(recovered).toMatchObject({ deliveries: 1, failed: 0, retrying: 1 });
    // Without the clock moving: sent at once, once, under its own id; the delivered event is not sent again.
    await dispatcher.settled();
    expect(receivedFor(receiver, [delivered, retrying], from).map((r) => r.headers["webhook-id"])).toEqual([retrying]);
    const after = await deliveries(acct, hook.id);
    expect(after.map((d) => [d.eventId, d.status, d.attempts.length]).sort()).toEqual(
      [
        [delivered, "succeeded", 1],
        [retrying, "succeeded", 2],
      ].sort(),
    );
    // Its scheduled retry is gone: moving past it sends nothing more.
    await h.services.clock.advance(latest(RETRY_DELAYS_MS[0]!));
    await dispatcher.settled();
    expect(receivedFor(receiver, [delivered, retrying], from)).toHaveLength(1);
    expect((await expectStatus<{ deliveries: number }>(await acct.as("test").post(`/v1/hooks/${hook.id}/recover`, { since }), 202)).deliveries).toBe(0);
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

  it("stops while busy: a stop that comes during the tick between its rounds ends them", async () => {
    receiver.respondWith(200);
    const { acct, programId } = await setup();
    const ids: string[] = [];
    for (let i = 0; i < 400; i++) ids.push(await enqueue(acct, programId, "transaction.auth", { n: i }));
    dispatcher.kick();
    await until("the first deliveries", async () => receivedFor(receiver, ids).length >= 40);
    // Resolves only if the pool's loop saw the stop; a lost wake-up left it asleep for good.
    await dispatcher.stop();
    expect(receivedFor(receiver, ids).length).toBeGreaterThanOrEqual(40);
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
