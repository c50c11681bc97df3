// The qualifier over batches: decisions in order per card inside one batch (activation counts), a
// process killed in the middle of a batch (nothing half-written, nothing twice after the redelivery),
// a later stage's identifiers merged into the record and its webhook, each stage's native message kept on
// its row, and the MID insight's last transaction read in the location's time zone.
import { describe, expect, it } from "vitest";
import { expectStatus, type Harness } from "../support/harness.ts";
import { useQualifierWorld } from "./world.ts";
import { localIn, world, type World } from "../support/offers-world.ts";
import { startQualifier, type Outcome } from "../../src/qualifier/index.ts";
import type { Db } from "../../src/platform/db.ts";
import { instantOf } from "../../src/domain/local-dates.ts";
import { recordOnboardingReply } from "../../src/services/mid-insights/writers.ts";
import { ADAPTERS } from "../../simulators/schemes/index.ts";
import { emptyMids, type Purchase } from "../../simulators/engine/types.ts";

let h: Harness;
const qualifier = useQualifierWorld((opened) => (h = opened));

type VisaMids = { vmid: string; vsid: string; visaAcquiringMid: string; visaBin: string };
type LocationView = { timezone: string; status: { visa: { mids: VisaMids[] } } };

/** The location once the test network has answered its onboarding request with its Visa MIDs. */
async function onboarded(w: World, locationId: string): Promise<LocationView> {
  let location: LocationView | undefined;
  await expect
    .poll(
      async () => {
        location = await expectStatus<LocationView>(await w.client.get(`/v1/locations/${locationId}`), 200);
        return location.status.visa.mids.length;
      },
      { timeout: 30_000 },
    )
    .toBeGreaterThan(0);
  return location!;
}

/** A Visa auth for the world's card at its location, as the network sends it. */
async function visaAuth(w: World, n: number, amount = 40) {
  return ADAPTERS.visa.auth(await visaPurchase(w, n, amount), h.services.clock.now());
}

/** A Visa purchase of the world's card at its location, as the network holds it. */
async function visaPurchase(w: World, n: number, amount = 40): Promise<Purchase> {
  const location = await onboarded(w, w.locationId);
  const card = await expectStatus<{ id: string; firstNumbers: string; lastNumbers: string }>(await w.client.get(`/v1/cards/${w.cardId}`), 200);
  const now = h.services.clock.now();
  const purchase: Purchase = {
    id: `batch-${w.cardId}-${n}`,
    scheme: "visa",
    card: { id: card.id, firstSix: card.firstNumbers, lastFour: card.lastNumbers },
    merchant: {
      key: w.locationId,
      locationId: w.locationId,
      name: "Coffee House",
      address: "1 High Street",
      city: "London",
      postcode: "SW1A 1AA",
      countryCode: "GBR",
      timezone: location.timezone,
      mcc: "5814",
      mids: { ...emptyMids(), ...location.status.visa.mids[0]!, merchantName: "COFFEE HOUSE LONDON" },
    },
    amount,
    currency: "GBP",
    localDateTime: localIn(h, 0, location.timezone),
    authorizedAt: now.toISOString(),
    cardPresent: true,
    wallet: null,
    targetingTag: null,
  };
  return purchase;
}

const outboxOf = (cardId: string) =>
  h.services.db.query<{ event: string; transaction_id: string }>(
    "select event, data->>'id' as transaction_id from outbox where data->'card'->>'id' = $1 order by created, event",
    [cardId],
  );

describe("qualifier batches", () => {
  it("counts activations in order inside one batch, and a kill in the middle of the batch leaves nothing half-written", async () => {
    const w = await world(h);
    const offer = await w.offer({ startDate: localIn(h, -1), type: { name: "amount", value: 5 }, activation: { enabled: true, qualifiedTransactionsLimit: 2 } });
    await expectStatus(await w.client.post(`/v1/offers/${offer.id}/locations/${w.locationId}`), 201);
    await expectStatus(await w.client.post(`/v1/offers/${offer.id}/cards/${w.cardId}`), 201);
    // Four purchases of one card waiting on the bus: one batch.
    for (let n = 0; n < 4; n++) await h.services.bus.publish("visa.transactions", w.cardId, await visaAuth(w, n));

    // The first process dies in the middle of the batch's database transaction: its write (the transactions,
    // their outbox events and the message marks, one statement) has run, then the process is gone before the commit.
    let killed = false;
    const dying: Db = {
      ...h.services.db,
      engine: h.services.db.engine,
      query: (text, params) => h.services.db.query(text, params),
      exec: (text) => h.services.db.exec(text),
      close: () => h.services.db.close(),
      tx: (fn) =>
        h.services.db.tx((db) =>
          fn({
            ...db,
            engine: db.engine,
            exec: (text) => db.exec(text),
            close: () => db.close(),
            tx: (inner) => db.tx(inner),
            query: async (text, params) => {
              if (/insert into outbox_events/.test(text)) {
                await db.query(text, params);
                killed = true;
                throw new Error("killed in the middle of the batch");
              }
              return db.query(text, params);
            },
          }),
        ),
    };
    const first = await startQualifier({ ...h.services, db: dying });
    await expect.poll(() => killed, { timeout: 30_000 }).toBe(true);
    await first.stop();
    const [{ count: halfWritten }] = (await h.services.db.query<{ count: number }>("select count(*)::int as count from transactions where card_id = $1", [w.cardId])) as [
      { count: number },
    ];
    expect(halfWritten).toBe(0);

    // The next process gets the whole batch again.
    const outcomes: Outcome[] = [];
    await qualifier.start({ ...h.services, onOutcome: (o) => outcomes.push(o) });
    await expect.poll(() => outcomes.length, { timeout: 30_000 }).toBe(4);
    expect(outcomes.map((o) => o.kind)).toEqual(["recorded", "recorded", "recorded", "recorded"]);
    const rows = await h.services.db.query<{ id: string; qualified: boolean; datetime: string }>(
      "select id, (offer->>'qualified')::boolean as qualified, datetime from transactions where card_id = $1",
      [w.cardId],
    );
    const order = outcomes.map((o) => (o.kind === "recorded" ? o.transactionId : ""));
    const qualified = order.map((id) => rows.find((r) => r.id === id)!.qualified);
    // The limit of 2 is reached by the second purchase of the batch: the next two no longer qualify.
    expect(qualified).toEqual([true, true, false, false]);
    const [activation] = await h.services.db.query<{ state: string; qualified_transactions: number; deactivation_reason: string }>(
      "select state, qualified_transactions, deactivation_reason from offer_activations where offer_id = $1 and card_id = $2",
      [offer.id, w.cardId],
    );
    expect(activation).toEqual({ state: "deactivated", qualified_transactions: 2, deactivation_reason: "limit" });
    const events = await outboxOf(w.cardId);
    expect(events.filter((e) => e.event === "transaction.auth")).toHaveLength(4);
    expect(events.filter((e) => e.event === "transaction.auth.qualified")).toHaveLength(2);
  });

  it("links an unreferenced refund and decides two clearings of one auth in the batch that records them, the purchase rewarded once", async () => {
    const w = await world(h);
    const offer = await w.offer({ startDate: localIn(h, -1), type: { name: "amount", value: 5 } });
    await expectStatus(await w.client.post(`/v1/offers/${offer.id}/locations/${w.locationId}`), 201);
    const split = await visaPurchase(w, 10, 40);
    const refunded = await visaPurchase(w, 11, 25);
    const now = h.services.clock.now();
    const later = new Date(now.getTime() + 3_600_000);
    const messages = [
      ADAPTERS.visa.auth(split, now),
      ADAPTERS.visa.auth(refunded, now),
      ADAPTERS.visa.clearing(split, later, { clearingId: "part-1", amount: 30 }),
      ADAPTERS.visa.clearing(split, later, { clearingId: "part-2", amount: 10 }),
      // The network does not say which purchase the refund is for.
      ADAPTERS.visa.refund(refunded, "refund-1", 25, later, false),
    ];
    // Waiting on the bus together: one batch.
    for (const m of messages) await h.services.bus.publish("visa.transactions", w.cardId, m);
    const outcomes: Outcome[] = [];
    await qualifier.start({ ...h.services, onOutcome: (o) => outcomes.push(o) });
    await expect.poll(() => outcomes.length, { timeout: 30_000 }).toBe(5);
    const ids = outcomes.map((o) => (o.kind === "recorded" ? o.transactionId : o.kind));
    const get = async (id: string) => expectStatus<Record<string, unknown> & { offer: { qualified: boolean; cashback: number } }>(await w.client.get(`/v1/transactions/${id}`), 200);
    const [auth, other, first, second, refund] = await Promise.all(ids.map(get));
    expect(auth).toMatchObject({ id: ids[0], amount: 40, auth: true, cleared: false, clearedAmount: 40, offer: { qualified: true, cashback: 5 } });
    expect(first).toMatchObject({ authTransactionId: ids[0], amount: 30, auth: false, cleared: true, offer: { qualified: true, cashback: 5 } });
    expect(second).toMatchObject({ authTransactionId: ids[0], amount: 10, offer: { qualified: false, cashback: 0 } });
    expect(new Set(ids).size).toBe(5);
    // Matched by card, location, MID, amount and time to the purchase recorded a moment before in the same batch.
    expect(refund).toMatchObject({ type: "refund", amount: -25, originalTransactionId: ids[1], offer: { cashback: -5 } });
    expect(other).toMatchObject({ refundTransactionId: ids[4] });
    const events = await outboxOf(w.cardId);
    expect(events.filter((e) => e.event === "transaction.clearing").map((e) => e.transaction_id).sort()).toEqual([ids[2], ids[3]].sort());
    expect(events.filter((e) => e.event === "transaction.clearing.qualified").map((e) => e.transaction_id)).toEqual([ids[2]]);
  });

  it("keeps each stage's native message as received on the row it records, the first of a stage, in a batch and after it", async () => {
    const w = await world(h);
    const offer = await w.offer({ startDate: localIn(h, -1), type: { name: "amount", value: 5 } });
    await expectStatus(await w.client.post(`/v1/offers/${offer.id}/locations/${w.locationId}`), 201);
    const purchase = await visaPurchase(w, 20, 40);
    const now = h.services.clock.now();
    const later = new Date(now.getTime() + 3_600_000);
    const auth = ADAPTERS.visa.auth(purchase, now);
    const settlement = ADAPTERS.visa.clearing(purchase, later);
    // The network sends the auth again under a new message id: the row keeps the first.
    const resent = (n: number) => ({ ...auth, messageId: `${auth.messageId}-again-${n}`, processedAt: later.toISOString() });
    for (const m of [auth, resent(1), settlement]) await h.services.bus.publish("visa.transactions", w.cardId, m);
    const outcomes: Outcome[] = [];
    await qualifier.start({ ...h.services, onOutcome: (o) => outcomes.push(o) });
    await expect.poll(() => outcomes.length, { timeout: 30_000 }).toBe(3);
    const recordedFirst = outcomes[0]!;
    const id = recordedFirst.kind === "recorded" ? recordedFirst.transactionId : "";
    expect(outcomes.map((o) => (o.kind === "recorded" ? o.transactionId : o.kind))).toEqual([id, id, id]);
    type Qualification = { considered: { offerId: string; outcome: string; cashback: number | null }[]; nativeMessages: { stage: string; kind: string; value: unknown }[] };
    const read = async () => expectStatus<Qualification>(await w.client.get(`/v1/transactions/${id}/qualification`), 200);
    const asSent = (m: unknown) => JSON.parse(JSON.stringify(m)) as unknown;
    const expected = [
      { stage: "auth", scheme: "visa", kind: "AUTH", value: asSent(auth) },
      { stage: "clearing", scheme: "visa", kind: "SETTLEMENT", value: asSent(settlement) },
    ];
    const first = await read();
    expect(first.nativeMessages).toEqual(expected);
    expect(first.considered).toEqual([{ offerId: offer.id, offerName: "10% off coffee", outcome: "won", cashback: 5, performanceFee: expect.any(Number), reason: null }]);

    // A later batch's resend of a stage updates the row and leaves the stage's message as it was.
    await h.services.bus.publish("visa.transactions", w.cardId, resent(2));
    await expect.poll(() => outcomes.length, { timeout: 30_000 }).toBe(4);
    expect(outcomes[3]).toMatchObject({ kind: "recorded", transactionId: id });
    expect((await read()).nativeMessages).toEqual(expected);
  });

  it("merges a later stage's identifiers: the Mastercard clearing's sequence number reaches the record and the clearing webhook", async () => {
    await qualifier.start(h.services);
    const w = await world(h);
    const cardId = await w.card("5555000000005007");
    const tx = await expectStatus<{ id: string; identifiers: Record<string, string | null> }>(
      await w.client.post("/v1/transactions/test", { cardId, locationId: w.locationId, amount: 40 }),
      201,
    );
    expect(tx.identifiers.mastercardTransactionSequenceNumber).toBeNull();
    const authCode = tx.identifiers.mastercardAuthCode;
    expect(authCode).not.toBeNull();
    const cleared = await expectStatus<{ identifiers: Record<string, string | null> }>(await w.client.post(`/v1/transactions/${tx.id}/clear`), 200);
    expect(cleared.identifiers.mastercardTransactionSequenceNumber).toEqual(expect.any(String));
    expect(cleared.identifiers.mastercardAuthCode).toBe(authCode);
    const [clearing] = await h.services.db.query<{ data: { identifiers: Record<string, string | null> } }>(
      "select data from outbox where data->>'id' = $1 and event = 'transaction.clearing'",
      [tx.id],
    );
    expect(clearing!.data.identifiers.mastercardTransactionSequenceNumber).toBe(cleared.identifiers.mastercardTransactionSequenceNumber);
    expect(clearing!.data.identifiers.mastercardAuthCode).toBe(authCode);
  });

  it("takes a MID insight's lastSeenTransactionDate from the purchase's local time in the location's time zone", async () => {
    await qualifier.start(h.services);
    const w = await world(h);
    const brandId = await w.brand("Tokyo Coffee");
    const locationId = await w.location(brandId, "JPN");
    const location = await onboarded(w, locationId);
    expect(location.timezone).toBe("Asia/Tokyo");
    const now = h.services.clock.now();
    const { vmid, vsid } = location.status.visa.mids[0]!;
    const insight = await recordOnboardingReply(
      h.services.db,
      { locationId, scheme: "visa", identifiers: { vmid, vsid }, origin: "address-match", at: now },
      now,
    );
    const tx = await expectStatus<{ id: string; datetime: string }>(
      await w.client.post("/v1/transactions/test", { cardId: w.cardId, locationId, amount: 40 }),
      201,
    );
    const [seen] = await h.services.db.query<{ last_seen_transaction_date: Date; last_seen_transaction_id: string }>(
      "select last_seen_transaction_date, last_seen_transaction_id from mid_insights where id = $1",
      [insight.id],
    );
    expect(seen!.last_seen_transaction_id).toBe(tx.id);
    // Tokyo is UTC+9: read as UTC, the date would be nine hours late.
    expect(seen!.last_seen_transaction_date.toISOString()).toBe(instantOf(tx.datetime, "Asia/Tokyo").toISOString());
  });
});
