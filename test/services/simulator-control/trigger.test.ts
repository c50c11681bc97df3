// `POST /v1/trigger`: every event fired through the real path (simulator, bus, qualifier, outbox,
// dispatcher) on fixtures made once and reused, delivered signed to a real local receiver; and every
// delivered body is exactly what the OpenAPI `webhooks` section describes (the same zod schemas).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import { expectError, expectStatus, type TestAccount } from "../../support/harness.ts";
import { usePipeline } from "../../support/pipeline.ts";
import { startReceiver, type Receiver } from "../../support/receiver.ts";
import { TRIGGER_EVENTS } from "../../../src/services/simulator-control/trigger.ts";
import { WEBHOOK_EVENTS, eventSchema, type DescribedEvent } from "../../../src/api/webhook-payloads.ts";

const pipeline = usePipeline(["simulators", "qualifier", "dispatcher", "workers"]);
let receiver: Receiver;
let acct: TestAccount;
type Fixtures = { programId: string; brandId: string; locationId: string; cardId: string; offerId: string };
type Result = {
  event: string;
  eventIds: string[];
  summary: string;
  resources: Fixtures & {
    transactionId?: string;
    newLocationId?: string;
    purchaseId?: string;
    newBrandId?: string;
    newCardId?: string;
    marketplaceOfferId?: string;
    addedOfferId?: string;
  };
  dispatched: boolean;
  deliveries: { hookId: string; url: string; status: string; attempts: number; responseCode: number | null }[];
};
let fixtures: Fixtures;
const secrets = new Map<string, string>();

beforeAll(async () => {
  receiver = await startReceiver();
  acct = await pipeline.h.createAccount();
  fixtures = await expectStatus<Fixtures>(await acct.as("test").post("/v1/trigger/fixtures"), 200);
  for (const event of TRIGGER_EVENTS) {
    const hook = await expectStatus<{ id: string; secret: string }>(
      await acct.as("test").post(`/v1/programs/${fixtures.programId}/hooks`, { event, url: receiver.url }),
      201,
    );
    secrets.set(event, hook.secret);
  }
});
afterAll(() => receiver.close());

const fire = async (event: string) => expectStatus<Result>(await acct.as("test").post("/v1/trigger", { event }), 200);

/** The verified bodies the receiver got for these event ids. */
const deliveredBodies = (event: string, ids: string[]) =>
  receiver.received
    .filter((r) => ids.includes(String(r.headers["webhook-id"])))
    .map((r) => new Webhook(secrets.get(event)!).verify(r.body, r.headers as Record<string, string>) as Record<string, unknown>);

describe("POST /v1/trigger", () => {
  it("makes the fixtures once and reuses them", async () => {
    expect(await expectStatus<Fixtures>(await acct.as("test").post("/v1/trigger/fixtures"), 200)).toEqual(fixtures);
    const programs = await expectStatus<{ items: { id: string; metadata: unknown }[] }>(await acct.as("test").get("/v1/programs"), 200);
    expect(programs.items.filter((p) => p.id === fixtures.programId)).toEqual([expect.objectContaining({ metadata: { cardlinkFixtures: true } })]);
    expect(programs.items).toHaveLength(1);
  });

  it.each(TRIGGER_EVENTS)("fires %s through the pipeline and reports the signed delivery", async (event) => {
    const result = await fire(event);
    expect(result).toMatchObject({ event, dispatched: true, resources: fixtures });
    expect(result.eventIds).toHaveLength(event === "location.status" ? 3 : event === "program.status" ? 2 : 1);
    expect(result.deliveries).toHaveLength(result.eventIds.length);
    for (const d of result.deliveries) expect(d).toMatchObject({ url: receiver.url, status: "succeeded", attempts: 1, responseCode: 200 });
    const bodies = deliveredBodies(event, result.eventIds);
    expect(bodies).toHaveLength(result.eventIds.length);
    for (const body of bodies) {
      expect(body.event).toBe(event);
      // The payload is exactly the documented one: parsing keeps every field and adds none.
      expect(eventSchema(event as DescribedEvent).parse(body)).toEqual(body);
    }
    const data = bodies[0]!.data as {
      id: string;
      offer?: { qualified: boolean; cashback: number; message: string[] };
      location?: { id: string };
      status?: string;
      failure?: { reason: string } | null;
      consent?: string;
    };
    if (event.startsWith("transaction.")) {
      expect(data.id).toBe(result.resources.transactionId);
      // A purchase below the offer's minimum, or an authorisation whose cashback its expiry withdrew, is not qualified.
      expect(data.offer!.qualified).toBe(event !== "transaction.auth" && event !== "transaction.auth.expired");
    }
    if (event === "transaction.auth") expect(result.summary).toMatch(/not qualified: .*minTransactionAmount|not qualified: .*minimum/i);
    if (event === "transaction.auth.expired") expect(data).toMatchObject({ expired: true, offer: { cashback: 0 } });
    if (event === "location.status") expect(data.location!.id).toBe(result.resources.newLocationId);
    if (event === "offer.extended") expect(data.id).toBe(fixtures.offerId);
    if (event === "transaction.refund.qualified") expect(data.offer!.cashback).toBeLessThan(0);
    if (event === "brand.consent") expect(data).toMatchObject({ id: result.resources.newBrandId, consent: "approved" });
    if (event === "card.linked") expect(data).toMatchObject({ id: result.resources.newCardId, status: "linked", failure: null });
    if (event === "card.failed") expect(data).toMatchObject({ id: result.resources.newCardId, status: "failed", failure: { reason: "issuer_declined" } });
    if (event === "program.status") expect(bodies.map((b) => (b.data as { status: string }).status).sort()).toEqual(["idle", "syncing"]);
    if (event.startsWith("marketplace.offer.")) expect(data).toMatchObject({ id: result.resources.addedOfferId, status: "live" });
  });

  it("keeps the fixtures marketplace offer to the account that fired it", async () => {
    const fired = await fire("marketplace.offer.live");
    const other = (await pipeline.h.createAccount()).as("test");
    const listed = await expectStatus<{ items: { id: string }[] }>(await other.get("/v1/marketplace-offers?availability=all&brandName=Cardlink%20fixtures%20marketplace"), 200);
    expect(listed.items).toEqual([]);
    const { programId } = await expectStatus<Fixtures>(await other.post("/v1/trigger/fixtures"), 200);
    await expectError(await other.post(`/v1/marketplace-offers/${fired.resources.marketplaceOfferId}/programs/${programId}`), 404, "resource_not_found");
    const own = await expectStatus<{ items: { id: string }[] }>(await acct.as("test").get("/v1/marketplace-offers?availability=all&brandName=Cardlink%20fixtures%20marketplace"), 200);
    expect(own.items.map((m) => m.id)).toContain(fired.resources.marketplaceOfferId);
  });

  it("reports no delivery when no hook listens, and refuses a live key and an unknown event", async () => {
    const other = await pipeline.h.createAccount();
    const result = await expectStatus<Result>(await other.as("test").post("/v1/trigger", { event: "transaction.auth.qualified" }), 200);
    expect(result).toMatchObject({ dispatched: true, deliveries: [] });
    expect(result.summary).toMatch(/^purchase 42 GBP, qualified for offer/);
    expect(await expectError(await other.as("live").post("/v1/trigger", { event: "offer.extended" }), 400, "invalid_request")).toMatch(/test key/);
    expect(await expectError(await other.as("test").post("/v1/trigger", { event: "card.created" }), 400, "invalid_request")).toMatch(/^event: must be one of/);
  });

  it("takes overrides: scheme, amount, targeting, datetime, a program, and answers the transaction as recorded", async () => {
    const other = await pipeline.h.createAccount();
    const client = other.as("test");
    const { id: programId } = await expectStatus<{ id: string }>(await client.post("/v1/programs", { name: "Overrides" }), 201);
    const result = await expectStatus<Result & { transaction: Record<string, unknown> }>(
      await client.post("/v1/trigger", {
        event: "transaction.auth.qualified",
        scheme: "mastercard",
        amount: 12.5,
        currency: "GBP",
        programId,
        targeting: "lapsed",
        datetime: "2026-01-05T09:15:00",
      }),
      200,
    );
    expect(result.resources.programId).toBe(programId);
    expect(result.transaction).toMatchObject({
      id: result.resources.transactionId,
      programId,
      amount: 12.5,
      currency: "GBP",
      targetingTag: "lapsed",
      datetime: "2026-01-05T09:15:00",
      card: { id: result.resources.cardId, scheme: "mastercard" },
      offer: { qualified: true, cashback: 1.25 },
    });
    const refund = await expectStatus<Result & { transaction: { type: string; originalTransactionId: string; amount: number } }>(
      await client.post("/v1/trigger", { event: "transaction.refund", cardId: result.resources.cardId, amount: 20 }),
      200,
    );
    expect(refund.resources).toMatchObject({ programId, cardId: result.resources.cardId });
    expect(refund.transaction).toMatchObject({ type: "refund", originalTransactionId: refund.resources.purchaseId });

    // A location of the caller's own brand is used as it is: the fixtures offer is not linked to it.
    const { id: brandId } = await expectStatus<{ id: string }>(await client.post("/v1/brands", { name: "Own brand" }), 201);
    const own = await expectStatus<{ id: string }>(
      await client.post(`/v1/programs/${programId}/locations`, { brandId, address: "9 Own Street", city: "Leeds", postcode: "LS1 2HL", countryCode: "GBR" }),
      201,
    );
    const atOwn = await expectStatus<Result & { transaction: Record<string, unknown> }>(
      await client.post("/v1/trigger", { event: "transaction.auth", locationId: own.id, cardId: result.resources.cardId }),
      200,
    );
    expect(atOwn.resources).toMatchObject({ programId, locationId: own.id, cardId: result.resources.cardId });
    expect(atOwn.transaction).toMatchObject({ location: { id: own.id }, offer: { qualified: false } });
    const cards = await expectStatus<{ items: { id: string }[] }>(await client.get(`/v1/programs/${programId}/cards`), 200);
    expect(cards.items.map((c) => c.id)).toEqual([result.resources.cardId]);
  });

  it("refuses an override the event does not take, a currency the location does not use and a mismatched scheme", async () => {
    const client = (await pipeline.h.createAccount()).as("test");
    const refused = async (body: Record<string, unknown>) => expectError(await client.post("/v1/trigger", body), 400, "invalid_request");
    expect(await refused({ event: "offer.extended", scheme: "visa" })).toBe("scheme: does not apply to offer.extended");
    expect(await refused({ event: "transaction.auth", currency: "EUR" })).toMatch(/^currency: .*GBP/);
    expect(await refused({ event: "missing-transaction-request.failed", amount: 42 })).toMatch(/^amount: the test network fails requests of 10.01/);
    const { cardId } = await expectStatus<Fixtures>(await client.post("/v1/trigger/fixtures"), 200);
    expect(await refused({ event: "transaction.auth", cardId, scheme: "amex" })).toMatch(/^scheme: the card .* is a visa card/);
    expect(await refused({ event: "transaction.auth", datetime: "tomorrow" })).toMatch(/^datetime: must be a real local date-time/);
  });

  it("answers 409 at once when a .qualified event is asked of a purchase recorded as not qualified", async () => {
    const client = (await pipeline.h.createAccount()).as("test");
    // Years before the fixtures offer started: recorded, not qualified, so transaction.auth.qualified never comes.
    const message = await expectError(await client.post("/v1/trigger", { event: "transaction.auth.qualified", datetime: "2020-01-06T12:00:00" }), 409, "conflict");
    expect(message).toMatch(/^trigger: the transaction \S+ was recorded but did not qualify, so there is no transaction.auth.qualified event \(purchase 42 GBP, not qualified: /);
  });

  it("describes every event it can fire in the OpenAPI webhooks section", async () => {
    const doc = await expectStatus<{ webhooks: Record<string, { post: { parameters: { name: string }[] } }> }>(
      await pipeline.h.request("GET", "/v1/openapi.json"),
      200,
    );
    for (const event of TRIGGER_EVENTS) {
      expect(Object.keys(WEBHOOK_EVENTS)).toContain(event);
      expect(doc.webhooks[event]!.post.parameters.map((p) => p.name)).toEqual(["webhook-id", "webhook-timestamp", "webhook-signature"]);
    }
  });
});
