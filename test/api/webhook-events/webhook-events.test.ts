// A program's webhook events as an integrator sees them over the API: the list with payloads, statuses,
// filters and cursor pages; one event with every attempt (request headers with the signature, the
// answer's status, latency and first 4 KB of its body); and none of it to another account or environment.
import { afterAll, beforeAll, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import { expectError, expectStatus } from "../../support/harness.ts";
import { usePipeline } from "../../support/pipeline.ts";
import { startReceiver, type Receiver } from "../../support/receiver.ts";
import { advanceDays, localIn, world } from "../../support/offers-world.ts";

const pipeline = usePipeline(["simulators", "qualifier", "dispatcher", "workers"]);
let ok: Receiver;
let failing: Receiver;
beforeAll(async () => {
  ok = await startReceiver();
  failing = await startReceiver();
  ok.respondWith(200, { headers: { "content-type": "text/plain" }, body: "thanks" });
  failing.respondWith(500, { body: "x".repeat(5_000) });
});
afterAll(async () => {
  await ok.close();
  await failing.close();
});

interface Attempt {
  attempt: number;
  responseCode: number | null;
  latencyMs: number;
  requestHeaders: Record<string, string> | null;
  responseBody: string | null;
}
interface Event {
  id: string;
  event: string;
  programId: string | null;
  transactionId: string | null;
  created: string;
  status: string;
  payload: { id: string; event: string; created: string; data: { id?: string } };
  deliveries: { hookId: string; url: string; status: string; attemptCount: number; attempts?: Attempt[] }[];
}
type Page = { items: Event[]; count: number; last?: string };

it("lists a program's events with payloads and statuses, filters and pages them, shows every attempt, and only to their owner", async () => {
  const { h } = pipeline;
  const w = await world(h);
  const client = w.client;
  const list = async (query = "") => expectStatus<Page>(await client.get(`/v1/programs/${w.programId}/webhook-events${query}`), 200);

  // Creating the location (in test) reported it active on three networks before any hook existed.
  const early = await list("?event=location.status");
  expect(early.count).toBe(3);
  expect(early.items.map((e) => [e.status, e.deliveries.length])).toEqual([["no_hooks", 0], ["no_hooks", 0], ["no_hooks", 0]]);

  const authHook = await expectStatus<{ id: string; secret: string }>(
    await client.post(`/v1/programs/${w.programId}/hooks`, { event: "transaction.auth", url: ok.url }),
    201,
  );
  const qualifiedHook = await expectStatus<{ id: string; secret: string }>(
    await client.post(`/v1/programs/${w.programId}/hooks`, { event: "transaction.auth.qualified", url: failing.url }),
    201,
  );
  await advanceDays(h, 1);
  const afterAdvance = h.services.clock.now().toISOString();
  const offer = await w.offer({ startDate: localIn(h, -1) });
  await expectStatus(await client.post(`/v1/offers/${offer.id}/locations/${w.locationId}`), 201);
  const tx = await expectStatus<{ id: string }>(await client.post("/v1/transactions/test", { cardId: w.cardId, locationId: w.locationId, amount: 20 }), 201);

  // The auth is delivered; the qualified event's hook answered 500, so it waits for its retry.
  let ofTx: Page = { items: [], count: 0 };
  await expect
    .poll(async () => {
      ofTx = await list(`?transactionId=${tx.id}`);
      return ofTx.items.map((e) => [e.event, e.status, e.deliveries.map((d) => d.attemptCount)]).sort();
    }, { timeout: 30_000 })
    .toEqual([
      ["transaction.auth", "delivered", [1]],
      ["transaction.auth.qualified", "pending", [1]],
    ]);
  for (const e of ofTx.items) {
    expect(e).toMatchObject({ programId: w.programId, transactionId: tx.id, payload: { id: e.id, event: e.event, created: e.created, data: { id: tx.id } } });
  }
  const qualified = ofTx.items.find((e) => e.event === "transaction.auth.qualified")!;
  expect(qualified.deliveries).toMatchObject([{ hookId: qualifiedHook.id, url: failing.url, status: "pending" }]);

  // Filters: by event, status and service time (from inclusive, to exclusive).
  expect((await list("?status=delivered&event=transaction.auth")).items.map((e) => e.id)).toEqual(
    ofTx.items.filter((e) => e.event === "transaction.auth").map((e) => e.id),
  );
  expect((await list("?status=pending")).items.map((e) => e.id)).toEqual([qualified.id]);
  // Before any hook: the brand's consent, the card's enrolment and the location's three networks.
  expect((await list("?status=no_hooks")).count).toBe(5);
  expect((await list("?status=failed")).count).toBe(0);
  expect((await list(`?from=${afterAdvance}`)).items.map((e) => e.event).sort()).toEqual(["transaction.auth", "transaction.auth.qualified"]);
  expect((await list(`?to=${afterAdvance}`)).items.map((e) => e.event).sort()).toEqual([
    "brand.consent",
    "card.linked",
    "location.status",
    "location.status",
    "location.status",
  ]);

  // Pages of two, newest first, following `last`, cover every event once.
  const all = await list();
  const seen: string[] = [];
  let start: string | undefined;
  do {
    const page = await list(`?limit=2${start ? `&start=${encodeURIComponent(start)}` : ""}`);
    expect(page.items.length).toBeLessThanOrEqual(2);
    expect(page.count).toBe(all.count);
    seen.push(...page.items.map((e) => e.id));
    start = page.last;
  } while (start);
  expect(seen).toEqual(all.items.map((e) => e.id));
  expect(new Set(seen).size).toBe(all.count);

  // Bad filters are 400 naming the field.
  for (const [query, field] of [
    ["?status=lost", "status"],
    ["?event=transaction.nope", "event"],
    ["?transactionId=42", "transactionId"],
    ["?from=yesterday", "from"],
    ["?to=2026-13-01T00:00:00Z", "to"],
    ["?limit=0", "limit"],
  ] as const) {
    expect(await expectError(await client.get(`/v1/programs/${w.programId}/webhook-events${query}`), 400, "invalid_request")).toMatch(new RegExp(`^${field}: `));
  }

  // One event: every attempt with the headers sent (the signature, never the secret) and the head of the answer.
  const detail = await expectStatus<Event>(await client.get(`/v1/webhook-events/${qualified.id}`), 200);
  const [attempt] = detail.deliveries[0]!.attempts!;
  expect(attempt).toMatchObject({ attempt: 1, responseCode: 500 });
  expect(attempt!.latencyMs).toBeGreaterThanOrEqual(0);
  expect(attempt!.responseBody).toBe("x".repeat(4_096));
  expect(attempt!.requestHeaders).toMatchObject({ "content-type": "application/json", "webhook-id": qualified.id });
  expect(attempt!.requestHeaders!["webhook-signature"]).toMatch(/^v1,/);
  expect(JSON.stringify(detail)).not.toContain(qualifiedHook.secret.slice(6));
  // The payload is the body as sent, and the recorded headers verify it.
  const sent = failing.received.find((r) => r.headers["webhook-id"] === qualified.id)!;
  expect(JSON.stringify(detail.payload)).toBe(sent.body);
  expect(new Webhook(qualifiedHook.secret).verify(JSON.stringify(detail.payload), attempt!.requestHeaders!)).toMatchObject({ id: qualified.id });
  const authEvent = ofTx.items.find((e) => e.event === "transaction.auth")!;
  const delivered = await expectStatus<Event>(await client.get(`/v1/webhook-events/${authEvent.id}`), 200);
  expect(delivered.deliveries[0]!.attempts).toMatchObject([{ responseCode: 200, responseBody: "thanks" }]);
  expect(delivered.deliveries[0]!.hookId).toBe(authHook.id);

  // Another account, or this account's live key: 404, as if they did not exist.
  const stranger = (await h.createAccount()).as("test");
  for (const c of [stranger, w.acct.as("live")]) {
    await expectError(await c.get(`/v1/programs/${w.programId}/webhook-events`), 404, "resource_not_found");
    await expectError(await c.get(`/v1/webhook-events/${qualified.id}`), 404, "resource_not_found");
  }
  await expectError(await client.get(`/v1/webhook-events/${crypto.randomUUID()}`), 404, "resource_not_found");
});
