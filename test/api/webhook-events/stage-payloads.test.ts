// A transaction event refers to its transaction and keeps the stage's own view of it (migration 036): its
// payload is the transaction as of that stage, byte for byte the body it had when events copied the record,
// however later stages (an increment, the clearing, a refund's link, the return period, an expiry) change the
// row — delivered, listed, read back, redelivered and linked to the request that made it alike. In a sandbox
// with a clock of its own (a month ahead of the service clock), whose time the records and the return period
// keep, while a redelivery is due on the dispatcher's (the service clock's).
// Then the view itself, for every shape a record takes (a place with or without a location, a brand or a
// geolocation, keys a stored copy has beyond the record's, fractional amounts, an expiry, a refund's link), on
// the pipeline's PGlite and on PostgreSQL when it is set; and an event written through the view, as the outbox
// was written before, keeps its whole payload.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectStatus, openTestDb, type Client } from "../../support/harness.ts";
import { haveInfra } from "../../support/infra.ts";
import type { Db } from "../../../src/platform/db.ts";
import { newId } from "../../../src/platform/ids.ts";
import { HOOK_EVENTS } from "../../../src/services/webhooks/index.ts";
import { writeTogether } from "../../../src/platform/write-together.ts";
import { toTransaction, type StoredTransactionRow } from "../../../src/services/transactions/transactions.ts";
import { emitStageEvents, transactionRowsPart, transactionStagesPart } from "../../../src/services/transactions/write.ts";
import { usePipeline } from "../../support/pipeline.ts";
import { startReceiver, type Receiver } from "../../support/receiver.ts";
import { CARD_NUMBERS } from "../../support/fixtures.ts";

const pipeline = usePipeline(["simulators", "qualifier", "dispatcher", "workers"]);
let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
  receiver.respondWith(200);
});
afterAll(async () => {
  await receiver.close();
});

type Tx = Record<string, unknown> & { id: string; amount: number; cleared: boolean; expired: boolean; refundTransactionId: string | null; offer: { qualified: boolean } };
interface Body {
  id: string;
  event: string;
  created: string;
  data: Tx;
}
interface Event {
  id: string;
  event: string;
  payload: Body;
}

/** Every transaction event a hook may be registered for. */
const EVENTS = HOOK_EVENTS.filter((e) => e.startsWith("transaction."));

/**
 * A value laid out as PostgreSQL's jsonb lays out an object (shorter keys first, then by their bytes): the
 * order of every webhook body's data, which was a jsonb copy of the record before and is a jsonb assembly now.
 */
const inJsonbOrder = (v: unknown): unknown =>
  Array.isArray(v)
    ? v.map(inJsonbOrder)
    : v !== null && typeof v === "object"
      ? Object.fromEntries(
          Object.entries(v)
            .sort(([a], [b]) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0))
            .map(([k, x]) => [k, inJsonbOrder(x)]),
        )
      : v;

/** The delivered bodies of one transaction's event, in the order they came. */
const bodies = (event: string, transactionId: string) =>
  receiver.received.map((r) => r.body).filter((b) => {
    const body = JSON.parse(b) as Body;
    return body.event === event && body.data.id === transactionId;
  });

async function delivered(event: string, transactionId: string, count = 1): Promise<string> {
  await expect.poll(() => bodies(event, transactionId).length, { timeout: 30_000 }).toBe(count);
  return bodies(event, transactionId)[count - 1]!;
}

/** The body an event of the record `expected` had when its data was the record's jsonb copy. */
function expectBody(raw: string, expected: Tx): void {
  const { id, event, created } = JSON.parse(raw) as Body;
  expect(raw).toBe(JSON.stringify({ id, event, created, data: inJsonbOrder(expected) }));
}

/** A sandbox of a fresh account at its own instant, with a program, a location, a card, an offer with a return period and a hook per transaction event. */
async function sandboxWorld() {
  const { h } = pipeline;
  const account = await h.createAccount();
  const sandbox = await expectStatus<{ id: string; keys: { test: string } }>(
    await account.as("test").post("/v1/sandboxes", { name: "stage-payloads", clock: { at: "2026-02-05T09:00:00Z" } }),
    201,
  );
  const client: Client = h.clientWithKey(sandbox.keys.test);
  const programId = (await expectStatus<{ id: string }>(await client.post("/v1/programs", { name: "Payloads" }), 201)).id;
  const brandId = (await expectStatus<{ id: string }>(await client.post("/v1/brands", { name: "Quay Coffee", logoUrl: "https://example.com/quay.png" }), 201)).id;
  const locationId = (
    await expectStatus<{ id: string }>(
      await client.post(`/v1/programs/${programId}/locations`, {
        brandId,
        address: "4 Quay Street",
        city: "Bristol",
        postcode: "BS1 4DB",
        countryCode: "GBR",
        geolocation: { latitude: 51.4545, longitude: -2.5879 },
        metadata: { store: { floor: 2, tags: ["quay"] } },
      }),
      201,
    )
  ).id;
  const cardId = (
    await expectStatus<{ id: string }>(
      await client.post(`/v1/programs/${programId}/cards`, {
        number: CARD_NUMBERS.test,
        expMonth: 12,
        expYear: 2030,
        countryCode: "GBR",
        termsOfUse: true,
        metadata: { userId: "u-42" },
      }),
      201,
    )
  ).id;
  const offer = await expectStatus<{ id: string }>(
    await client.post("/v1/offers", {
      brandId,
      countryCode: "GBR",
      name: "10% off, after two days",
      publisherId: sandbox.id,
      startDate: "2026-01-01T00:00:00",
      type: { name: "discount", value: 10 },
      returnPeriod: 2,
    }),
    201,
  );
  await expectStatus(await client.post(`/v1/offers/${offer.id}/locations/${locationId}`), 201);
  for (const event of EVENTS) await expectStatus(await client.post(`/v1/programs/${programId}/hooks`, { event, url: receiver.url }), 201);
  return { client, programId, locationId, cardId };
}

it("keeps each event's payload as of its stage, byte for byte, while later stages change the transaction", async () => {
  const { h } = pipeline;
  const { client, programId, locationId, cardId } = await sandboxWorld();
  const purchase = (body: Record<string, unknown>) =>
    client.post("/v1/transactions/test", { cardId, locationId, wallet: "APPLE_PAY", targetingTag: "new", cardPresent: false, autoClear: false, ...body });
  const made = await purchase({ amount: 20 });
  const authed = await expectStatus<Tx>(made.clone(), 201);
  expect(authed).toMatchObject({ amount: 20, cleared: false, offer: { qualified: false } });
  expectBody(await delivered("transaction.auth", authed.id), authed);
  // What the event keeps of it: its transaction's id and the stage's view, not a copy of the record.
  const [stored] = await h.services.db.query<{ transaction_id: string; data: Record<string, unknown> }>(
    "select transaction_id, data from outbox_events where transaction_id = $1 and event = 'transaction.auth'",
    [authed.id],
  );
  expect(Object.keys(stored!.data).sort()).toEqual(
    ["amount", "auth", "cleared", "clearedAmount", "expired", "expiredAt", "id", "identifiers", "offer", "refundTransactionId", "updated", "voided"],
  );

  // An increment (no event of its own) changes the amount and the offer result; the clearing the flags and
  // identifiers; a refund links itself to the purchase.
  const incremented = await expectStatus<Tx>(await client.post(`/v1/transactions/${authed.id}/increment`, { amount: 5 }), 200);
  expect(incremented.amount).toBe(25);
  const cleared = await expectStatus<Tx>(await client.post(`/v1/transactions/${authed.id}/clear`), 200);
  expect(cleared).toMatchObject({ cleared: true, clearedAmount: 25 });
  const refund = await expectStatus<Tx>(await client.post(`/v1/transactions/${authed.id}/refund`, { amount: 10 }), 201);
  const linked = await expectStatus<Tx>(await client.get(`/v1/transactions/${authed.id}`), 200);
  expect(linked.refundTransactionId).toBe(refund.id);
  expectBody(await delivered("transaction.clearing", authed.id), cleared);
  expectBody(await delivered("transaction.refund", refund.id), refund);

  // An authorisation withdrawn by the network.
  const other = await expectStatus<Tx>(await purchase({ amount: 12 }), 201);
  const expired = await expectStatus<Tx>(await client.post(`/v1/transactions/${other.id}/expire`), 200);
  expect(expired.expired).toBe(true);
  expectBody(await delivered("transaction.auth", other.id), other);
  expectBody(await delivered("transaction.auth.expired", other.id), expired);

  // The return period ends on the sandbox's clock: the purchase qualifies, and its refund's reversal with it.
  await expectStatus(await client.post("/v1/clock/advance", { days: 3 }), 200);
  await expect.poll(async () => (await expectStatus<Tx>(await client.get(`/v1/transactions/${authed.id}`), 200)).offer.qualified, { timeout: 30_000 }).toBe(true);
  const qualified = await expectStatus<Tx>(await client.get(`/v1/transactions/${authed.id}`), 200);
  const refundQualified = await expectStatus<Tx>(await client.get(`/v1/transactions/${refund.id}`), 200);
  expectBody(await delivered("transaction.auth.qualified", authed.id), qualified);
  expectBody(await delivered("transaction.clearing.qualified", authed.id), qualified);
  expectBody(await delivered("transaction.refund.qualified", refund.id), refundQualified);
  // Every event delivered once, still as it was: the earlier ones again, read after every later stage.
  expectBody(bodies("transaction.auth", authed.id)[0]!, authed);
  expectBody(bodies("transaction.clearing", authed.id)[0]!, cleared);
  expect(receiver.received).toHaveLength(8);

  // Listed and read back as delivered; the request that made the purchase caused its events.
  const asDelivered = (e: Event) => JSON.parse(bodies(e.event, e.payload.data.id)[0]!) as Body;
  const listed = await expectStatus<{ items: Event[] }>(await client.get(`/v1/programs/${programId}/webhook-events?transactionId=${authed.id}`), 200);
  expect(listed.items.map((e) => e.event).sort()).toEqual(["transaction.auth", "transaction.auth.qualified", "transaction.clearing", "transaction.clearing.qualified"]);
  for (const e of listed.items) expect(e.payload).toStrictEqual(asDelivered(e));
  const authEvent = listed.items.find((e) => e.event === "transaction.auth")!;
  expect((await expectStatus<Event>(await client.get(`/v1/webhook-events/${authEvent.id}`), 200)).payload).toStrictEqual(asDelivered(authEvent));
  await h.services.requestLog.flush();
  const caused = await expectStatus<{ items: Event[] }>(await client.get(`/v1/requests/${made.headers.get("Request-Id")}/webhook-events`), 200);
  expect(caused.items.map((e) => e.id).sort()).toEqual(listed.items.map((e) => e.id).sort());
  for (const e of caused.items) expect(e.payload).toStrictEqual(asDelivered(e));

  // Delivered again after every later stage: the very bytes of the first delivery.
  await expectStatus(await client.post(`/v1/webhook-events/${authEvent.id}/redeliver`), 202);
  const again = await delivered("transaction.auth", authed.id, 2);
  expect(again).toBe(bodies("transaction.auth", authed.id)[0]);
});

const AT = new Date("2027-03-01T09:15:08.123Z");

/** The view's payloads, on a database `open` gives (closed after, when it is the suite's own). */
function viewShapes(name: string, open: () => Promise<{ db: Db; close(): Promise<void> }>) {
  describe(`the outbox view's payloads (${name})`, () => {
    let db: Db;
    let close: () => Promise<void>;
    let owner: { accountId: string; programId: string };
    beforeAll(async () => {
      ({ db, close } = await open());
      owner = { accountId: newId(), programId: newId() };
      await db.query("insert into accounts (id, name, tier, email, created, updated) values ($1, 'stage views', 'standard', 'views@example.com', $2, $2)", [
        owner.accountId,
        AT,
      ]);
      await db.query("insert into programs (id, account_id, live, name, created, updated) values ($1, $2, false, 'views', $3, $3)", [owner.programId, owner.accountId, AT]);
    });
    afterAll(async () => {
      await db.query("delete from accounts where id = $1", [owner.accountId]);
      await close();
    });

    function row(over: Partial<StoredTransactionRow>): StoredTransactionRow {
      const id = newId();
      return {
        id,
        account_id: owner.accountId,
        live: false,
        program_id: owner.programId,
        card_id: null,
        location_id: null,
        brand_id: null,
        scheme: "visa",
        kind: "purchase",
        purchase_key: id,
        original_id: null,
        refund_id: null,
        auth_id: null,
        clearings: null,
        datetime: "2027-03-01T09:15:07",
        amount: 12.34,
        currency: "GBP",
        card_present: true,
        wallet: null,
        auth: true,
        cleared: false,
        voided: false,
        expired_at: null,
        targeting_tag: null,
        identifiers: { MID: "12345678", mastercardTransactionSequenceNumber: null, mastercardRefNumber: null, amexApprovalCode: null, visaAuthCode: "A1B2C3", mastercardAuthCode: null },
        card: { id: newId(), firstNumbers: "444400", lastNumbers: "4008", scheme: "visa", metadata: {} },
        brand: { id: newId(), name: "Quay Coffee", logoUrl: null },
        location: null,
        offer: { id: null, cashback: 0, performanceFee: 0, qualified: false, qualificationDate: null, message: ["No live offer applies."] },
        qualification_due: null,
        considered: null,
        native_messages: null,
        created: AT,
        updated: AT,
        ...over,
      } as StoredTransactionRow;
    }

    /** The record as an event copied it before: toTransaction's record through JSON (a jsonb copy). */
    const copied = (r: StoredTransactionRow) => JSON.parse(JSON.stringify(toTransaction(r))) as unknown;

    const payload = async (transactionId: string, event: string) =>
      (await db.query<{ data: unknown }>("select data from outbox where transaction_id = $1 and event = $2", [transactionId, event]))[0]?.data;

    it("assembles each stage's record, whatever the row's shape and whatever later stages change", async () => {
      const located = row({
        wallet: "APPLE_PAY",
        targeting_tag: "new",
        card_present: false,
        card: { id: newId(), firstNumbers: "444400", lastNumbers: "4008", scheme: "visa", metadata: { userId: "u-42", tags: ["a"] }, pan: "kept out" } as never,
        brand: { id: newId(), name: "Quay Coffee", logoUrl: "https://example.com/quay.png", extra: 1 } as never,
        location: {
          id: newId(),
          address: "4 Quay Street",
          city: "Bristol",
          postcode: "BS1 4DB",
          countryCode: "GBR",
          timezone: "Europe/London",
          geolocation: { latitude: 51.4545, longitude: -2.5879, altitude: 3 },
          metadata: { store: { floor: 2 } },
          mids: ["kept out"],
        } as never,
      });
      // A place without its geolocation and with a key it never had (an older row), and one with no location nor brand.
      const older = row({
        location: { id: newId(), address: "1 High Street", city: "London", postcode: "SW1A 1AA", countryCode: "GBR", geolocation: null } as never,
      });
      const submitted = row({ brand: null, location: null, auth: false, cleared: true, clearings: { amount: 12.34, count: 1, cashback: 1.23, performanceFee: 0.25 } });
      const refund = row({ kind: "refund", amount: -5.5, auth: false, cleared: true, original_id: located.id });
      await writeTogether(db, [transactionRowsPart([located, older, submitted, refund])]);
      const rows = [located, older, submitted, refund];
      for (const r of rows) expect(await emitStageEvents(db, r, ["transaction.auth"], AT)).toEqual(["transaction.auth"]);

      // Later stages: increments, a clearing, an expiry, a refund's link and an offer decided again.
      const later = new Date(AT.getTime() + 86_400_000);
      const changed = rows.map((r) => ({
        ...r,
        amount: r.amount + 5.25,
        cleared: true,
        expired_at: later,
        refund_id: r === located ? refund.id : null,
        clearings: { amount: 17.59, count: 1, cashback: 1.76, performanceFee: 0.35 },
        identifiers: { ...r.identifiers, visaAuthCode: "Z9Y8X7" },
        offer: { ...r.offer, id: newId(), qualified: true, cashback: 1.76, performanceFee: 0.35, message: [] },
        updated: later,
      }));
      await writeTogether(db, [transactionStagesPart(changed, new Map(), new Set(changed.map((r) => r.id)))]);
      for (const r of changed) await emitStageEvents(db, r, ["transaction.clearing"], later);

      for (const [i, r] of rows.entries()) {
        expect(await payload(r.id, "transaction.auth")).toStrictEqual(copied(r));
        expect(await payload(r.id, "transaction.clearing")).toStrictEqual(copied(changed[i]!));
      }
      const [stored] = await db.query<{ data: Record<string, unknown> }>("select data from outbox_events where transaction_id = $1 and event = 'transaction.auth'", [located.id]);
      expect(Object.keys(stored!.data)).not.toContain("location");
    });

    it("keeps the whole payload of an event written through the view, as the outbox was written before", async () => {
      const id = newId();
      const data = { id: newId(), note: "a script's event", nested: { n: 1.5 } };
      await db.query("insert into outbox (id, account_id, live, program_id, event, data, created) values ($1, $2, false, $3, 'transaction.auth', $4::jsonb, $5)", [
        id,
        owner.accountId,
        owner.programId,
        JSON.stringify(data),
        AT,
      ]);
      const [event] = await db.query<{ data: unknown; transaction_id: string | null; queued: Date | null }>("select data, transaction_id, queued from outbox where id = $1", [id]);
      expect(event).toMatchObject({ data, transaction_id: null });
      expect(event!.queued).not.toBeNull();
    });
  });
}

viewShapes("PGlite", async () => ({ db: pipeline.h.services.db, close: async () => undefined }));
if (haveInfra("databaseUrl")) {
  viewShapes("PostgreSQL", async () => {
    const db = await openTestDb("postgres");
    return { db, close: () => db.close() };
  });
}
