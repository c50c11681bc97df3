// End to end: test purchases travel through the scheme simulators, the bus, the qualifier and the
// dispatcher to a real local HTTP receiver that verifies Standard Webhooks signatures; generated traffic
// clears in parts and refunds without naming the purchase, as networks do, and the qualifier links them. On the embedded
// defaults (PGlite, and PostgreSQL when there is one), and in the distributed mode's parts: the real Kafka
// bus (single-object encoded values, in a namespace of the harness's own) with the real PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import { expectStatus, type Harness } from "../support/harness.ts";
import type { Receiver } from "../support/receiver.ts";
import { localIn, world, type World } from "../support/offers-world.ts";
import { SHAPES, startEndToEnd } from "../support/end-to-end.ts";
import { roundMoney } from "../../src/domain/money.ts";

type Tx = {
  id: string;
  datetime: string;
  auth: boolean;
  cleared: boolean;
  expired: boolean;
  type: string;
  amount: number;
  originalTransactionId: string | null;
  refundTransactionId: string | null;
  authTransactionId: string | null;
  clearedAmount: number;
  offer: { id: string | null; cashback: number; performanceFee: number; qualified: boolean; qualificationDate: string | null; message: string[] };
  identifiers: Record<string, string | null>;
  card: { id: string };
  location: { id: string } | null;
};
type Event = { id: string; event: string; data: Tx };

describe.each(SHAPES)("qualifier and webhooks end to end ($engine, $bus)", (shape) => {
  let h: Harness;
  let receiver: Receiver;
  let stop: () => Promise<void>;

  beforeAll(async () => {
    ({ h, receiver, stop } = await startEndToEnd(shape));
  });
  afterAll(() => stop());

  const EVENTS = [
    "transaction.auth",
    "transaction.clearing",
    "transaction.refund",
    "transaction.auth.qualified",
    "transaction.clearing.qualified",
    "transaction.refund.qualified",
  ];

  /** A world with a hook for every transaction event, and each hook's signing secret by event. */
  async function setup(): Promise<World & { secrets: Record<string, string> }> {
    const w = await world(h);
    const secrets: Record<string, string> = {};
    for (const event of EVENTS) {
      const hook = await w.client.post(`/v1/programs/${w.programId}/hooks`, { event, url: receiver.url });
      secrets[event] = (await expectStatus<{ secret: string }>(hook, 201)).secret;
    }
    return { ...w, secrets };
  }

  /** Webhooks received for one transaction, verified with the hook's secret. */
  function received(transactionId: string): Event[] {
    return receiver.received
      .map((r) => ({ raw: r, body: JSON.parse(r.body) as Event }))
      .filter(({ body }) => body.data.id === transactionId)
      .map(({ raw, body }) => {
        expect(raw.headers["webhook-id"]).toBe(body.id);
        return body;
      });
  }

  async function eventsFor(transactionId: string, count: number): Promise<Event[]> {
    const deadline = Date.now() + 10_000;
    while (received(transactionId).length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    return received(transactionId);
  }

  const purchase = async (w: World, body: Record<string, unknown>) =>
    expectStatus<Tx>(await w.client.post("/v1/transactions/test", { cardId: w.cardId, locationId: w.locationId, amount: 40, ...body }), 201);

  const liveOffer = async (w: World, over: Record<string, unknown>) => {
    const offer = await w.offer({ startDate: localIn(h, -1), ...over });
    await expectStatus(await w.client.post(`/v1/offers/${offer.id}/locations/${w.locationId}`), 201);
    return offer;
  };

  it("qualifies a test purchase and delivers signed transaction.auth and .qualified webhooks with the offer result", async () => {
    expect(h.services.bus.kind).toBe(shape.bus);
    const w = await setup();
    const offer = await liveOffer(w, { type: { name: "discount", value: 10 }, feeSplit: 2 });
    const tx = await purchase(w, {});
    expect(tx).toMatchObject({ auth: true, cleared: false, type: "purchase", amount: 40, card: { id: w.cardId }, location: { id: w.locationId } });
    expect(tx.offer).toEqual({ id: offer.id, cashback: 4, performanceFee: 0.8, qualified: true, qualificationDate: null, message: [] });
    expect(tx.identifiers.MID).toEqual(expect.any(String));
    expect(tx.identifiers.visaAuthCode).toMatch(/^\w{6}$/);
    const events = await eventsFor(tx.id, 2);
    expect(events.map((e) => e.event).sort()).toEqual(["transaction.auth", "transaction.auth.qualified"]);
    for (const event of events) {
      const raw = receiver.received.find((r) => (JSON.parse(r.body) as Event).id === event.id)!;
      expect(new Webhook(w.secrets[event.event]!).verify(raw.body, raw.headers as Record<string, string>)).toEqual(event);
      expect(() => new Webhook(w.secrets["transaction.refund"]!).verify(raw.body, raw.headers as Record<string, string>)).toThrow();
    }
    expect(events[0]!.data.offer).toEqual(tx.offer);
  });

  it("sends exactly one webhook per stage for the offer with the higher award when two apply", async () => {
    const w = await setup();
    await liveOffer(w, { type: { name: "amount", value: 3 }, feeSplit: 0.5 });
    const big = await liveOffer(w, { name: "20% off", type: { name: "discount", value: 20 } });
    const tx = await purchase(w, {});
    expect(tx.offer).toMatchObject({ id: big.id, cashback: 8, qualified: true });
    const events = await eventsFor(tx.id, 2);
    await new Promise((r) => setTimeout(r, 200));
    expect(received(tx.id).filter((e) => e.event === "transaction.auth")).toHaveLength(1);
    expect(events.find((e) => e.event === "transaction.auth")!.data.offer.id).toBe(big.id);
  });

  it("reports a purchase that no offer rewards with zero cashback and the most recent offer's reason", async () => {
    const w = await setup();
    await liveOffer(w, { minTransactionAmount: 50 });
    const tx = await purchase(w, { amount: 20 });
    expect(tx.offer).toMatchObject({ qualified: false, cashback: 0, performanceFee: 0 });
    expect(tx.offer.message[0]).toMatch(/below the minimum transaction amount of 50/);
    const events = await eventsFor(tx.id, 1);
    expect(events.map((e) => e.event)).toEqual(["transaction.auth"]);
  });

  it("deactivates a card's activation at the limit, and the next purchase does not qualify", async () => {
    const w = await setup();
    const offer = await liveOffer(w, { activation: { enabled: true, qualifiedTransactionsLimit: 1 } });
    const before = await purchase(w, {});
    expect(before.offer).toMatchObject({ qualified: false });
    expect(before.offer.message[0]).toMatch(/not been activated/);
    await expectStatus(await w.client.post(`/v1/offers/${offer.id}/cards/${w.cardId}`), 201);
    const first = await purchase(w, {});
    expect(first.offer).toMatchObject({ id: offer.id, qualified: true });
    const cards = await expectStatus<{ items: { cardId: string; state: string; qualifiedTransactions: number }[] }>(
      await w.client.get(`/v1/offers/${offer.id}/cards`),
      200,
    );
    expect(cards.items[0]).toMatchObject({ cardId: w.cardId, state: "deactivated", qualifiedTransactions: 1 });
    const second = await purchase(w, {});
    expect(second.offer).toMatchObject({ qualified: false });
    expect(second.offer.message[0]).toMatch(/no longer activated/);
  });

  it("keeps auth and clearing as one transaction with two stages and one webhook each", async () => {
    const w = await setup();
    await liveOffer(w, {});
    const tx = await purchase(w, {});
    const cleared = await expectStatus<Tx>(await w.client.post(`/v1/transactions/${tx.id}/clear`), 200);
    expect(cleared).toMatchObject({ id: tx.id, auth: true, cleared: true });
    const events = await eventsFor(tx.id, 4);
    expect(events.map((e) => e.event).sort()).toEqual([
      "transaction.auth",
      "transaction.auth.qualified",
      "transaction.clearing",
      "transaction.clearing.qualified",
    ]);
    const again = await expectStatus<Tx>(await w.client.post(`/v1/transactions/${tx.id}/clear`), 200);
    expect(again.cleared).toBe(true);
    const list = await expectStatus<{ items: Tx[]; count: number }>(await w.client.get(`/v1/programs/${w.programId}/transactions`), 200);
    expect(list.count).toBe(1);
  });

  it("records a refund as a negative transaction linked to its purchase that reverses the award, told with transaction.refund.qualified", async () => {
    const w = await setup();
    await liveOffer(w, { type: { name: "discount", value: 10 }, feeSplit: 2, minTransactionAmount: 10 });
    const tx = await purchase(w, {});
    const refund = await expectStatus<Tx>(await w.client.post(`/v1/transactions/${tx.id}/refund`, { amount: 20 }), 201);
    expect(refund).toMatchObject({ type: "refund", amount: -20, originalTransactionId: tx.id });
    expect(refund.offer).toMatchObject({ cashback: -2, performanceFee: -0.4, qualified: true });
    const events = await eventsFor(refund.id, 2);
    expect(events.map((e) => e.event).sort()).toEqual(["transaction.refund", "transaction.refund.qualified"]);
    expect(events.find((e) => e.event === "transaction.refund.qualified")!.data).toMatchObject({ id: refund.id, offer: { cashback: -2, performanceFee: -0.4 } });
    // A purchase that earned nothing has nothing to reverse: its refund is told with transaction.refund alone.
    const small = await purchase(w, { amount: 5 });
    expect(small.offer.qualified).toBe(false);
    const plain = await expectStatus<Tx>(await w.client.post(`/v1/transactions/${small.id}/refund`), 201);
    // Its events were written with it (the outbox, one database transaction): all there is to see already.
    const written = await expectStatus<{ items: { event: string }[] }>(
      await w.client.get(`/v1/programs/${w.programId}/webhook-events?transactionId=${plain.id}`),
      200,
    );
    expect(written.items.map((e) => e.event)).toEqual(["transaction.refund"]);
  });

  it("applies targeting: a matching tag is eligible, another tag or none is not", async () => {
    const w = await setup();
    await liveOffer(w, { targeting: { name: "new" }, fees: { publisherFee: 1, serviceFee: 0.5 } });
    expect((await purchase(w, { targetingTag: "new" })).offer).toMatchObject({ qualified: true, cashback: 4, performanceFee: 0.4 });
    const lapsed = await purchase(w, { targetingTag: "lapsed" });
    expect(lapsed.offer).toMatchObject({ qualified: false });
    expect(lapsed.offer.message[0]).toMatch(/tagged lapsed/);
    expect((await purchase(w, {})).offer).toMatchObject({ qualified: false });
  });

  it("qualifies after the return period on the service clock and only then sends the .qualified webhooks", async () => {
    const w = await setup();
    await liveOffer(w, { returnPeriod: 14 });
    const tx = await purchase(w, {});
    expect(tx.offer).toMatchObject({ qualified: false, cashback: 4, qualificationDate: "2026-01-19" });
    expect(tx.offer.message[0]).toMatch(/qualifies on 2026-01-19/);
    expect((await eventsFor(tx.id, 1)).map((e) => e.event)).toEqual(["transaction.auth"]);
    // A part refunded within the period reverses an award not earned yet: no transaction.refund.qualified so far.
    const refund = await expectStatus<Tx>(await w.client.post(`/v1/transactions/${tx.id}/refund`, { amount: 10 }), 201);
    expect(refund.offer).toMatchObject({ qualified: false, cashback: -1 });
    expect((await eventsFor(refund.id, 1)).map((e) => e.event)).toEqual(["transaction.refund"]);
    // 14 days on: the network's clearing arrived after 48-72 h, and the return period is over.
    await expectStatus(await h.admin("POST", "/admin/clock/advance", { days: 14 }), 200);
    // The purchase earned its award now, and the refund's reversal of it stands now too.
    const reversed = await eventsFor(refund.id, 2);
    expect(reversed.map((e) => e.event).sort()).toEqual(["transaction.refund", "transaction.refund.qualified"]);
    expect(reversed.find((e) => e.event === "transaction.refund.qualified")!.data).toMatchObject({ offer: { qualified: true, cashback: -1, qualificationDate: null } });
    const events = await eventsFor(tx.id, 4);
    expect(events.map((e) => e.event).sort()).toEqual([
      "transaction.auth",
      "transaction.auth.qualified",
      "transaction.clearing",
      "transaction.clearing.qualified",
    ]);
    const after = await expectStatus<Tx>(await w.client.get(`/v1/transactions/${tx.id}`), 200);
    expect(after).toMatchObject({ cleared: true, offer: { qualified: true, qualificationDate: "2026-01-19", message: [] } });
  });

  it("clears an authorisation in parts: each clearing a transaction of its own with its webhooks, the purchase rewarded once", async () => {
    const w = await setup();
    const offer = await liveOffer(w, { type: { name: "discount", value: 10, maxRewardAmount: 3 }, feeSplit: 2 });
    const tx = await purchase(w, {});
    expect(tx.offer).toMatchObject({ id: offer.id, qualified: true, cashback: 3, performanceFee: 0.8 });
    const first = await expectStatus<Tx>(await w.client.post(`/v1/transactions/${tx.id}/clear`, { amount: 25 }), 201);
    expect(first).toMatchObject({ type: "purchase", authTransactionId: tx.id, auth: false, cleared: true, amount: 25, clearedAmount: 25 });
    // 10% of 25 on its own amount, within what the whole purchase earns (3, the offer's cap).
    expect(first.offer).toEqual({ id: offer.id, cashback: 2.5, performanceFee: 0.5, qualified: true, qualificationDate: null, message: [] });
    const rest = await expectStatus<Tx>(await w.client.post(`/v1/transactions/${tx.id}/clear`), 201);
    expect(rest).toMatchObject({ authTransactionId: tx.id, amount: 15 });
    // 10% of 15 is 1.5, but only 0.5 of the reward is left.
    expect(rest.offer).toMatchObject({ id: offer.id, cashback: 0.5, performanceFee: 0.3, qualified: true });
    for (const clearing of [first, rest]) {
      const events = await eventsFor(clearing.id, 2);
      expect(events.map((e) => e.event).sort()).toEqual(["transaction.clearing", "transaction.clearing.qualified"]);
      expect(events.every((e) => e.data.authTransactionId === tx.id && e.data.amount === clearing.amount)).toBe(true);
    }
    // The purchase keeps its auth webhooks alone, and shows what cleared.
    await new Promise((r) => setTimeout(r, 200));
    expect(received(tx.id).map((e) => e.event).sort()).toEqual(["transaction.auth", "transaction.auth.qualified"]);
    expect(await expectStatus<Tx>(await w.client.get(`/v1/transactions/${tx.id}`), 200)).toMatchObject({ cleared: false, clearedAmount: 40 });
  });

  it("takes the networks' own traffic: partial, multiple and tipped clearings, clearings with no authorisation and sent twice, increments, expiries, and refunds that name no purchase, linked by the matching rule", async () => {
    const w = await setup();
    await liveOffer(w, { type: { name: "discount", value: 10, maxRewardAmount: 4 } });
    // The Visa network knows the card (enrolment) and the location (onboarding) only from the bus.
    await expect
      .poll(
        async () =>
          (
            await h.services.db.query(
              `select 1 from simulator_cards c, simulator_merchants m where c.scheme = 'visa' and c.card_id = $1 and c.enrolled
               and m.scheme = 'visa' and m.location_id = $2 and m.onboarded`,
              [w.cardId, w.locationId],
            )
          ).length,
        { timeout: 30_000 },
      )
      .toBe(1);
    const started = await expectStatus<{ run: { id: string } }>(
      await h.admin("POST", "/admin/simulators/traffic/start", {
        rate: 40,
        seed: 11,
        durationSeconds: 1,
        schemes: ["visa"],
        programId: w.programId,
        unenrolledCards: 0,
        unknownMerchants: 0,
        notOnboardedLocations: 0,
        voids: 0,
        refunds: 0.3,
        unreferencedRefunds: 1,
        partialClearings: 0.15,
        multipleClearings: 0.15,
        clearingsWithoutAuth: 0.1,
        tips: 0.15,
        expiries: 0.1,
        incrementalAuths: 0.3,
        duplicateClearings: 0.3,
        crossBorder: 0.3,
      }),
      201,
    );
    await expect
      .poll(async () => (await expectStatus<{ run: { state: string } }>(await h.admin("GET", "/admin/simulators/traffic"), 200)).run.state, { timeout: 30_000 })
      .toBe("completed");
    const all = async (): Promise<Tx[]> => {
      const items: Tx[] = [];
      for (let start: string | undefined; ; ) {
        const page = await expectStatus<{ items: Tx[]; last?: string }>(
          await w.client.get(`/v1/programs/${w.programId}/transactions?limit=100${start ? `&start=${encodeURIComponent(start)}` : ""}`),
          200,
        );
        items.push(...page.items);
        if (!page.last) return items;
        start = page.last;
      }
    };
    const sent = async (): Promise<Record<string, number>> =>
      Object.fromEntries(
        (
          await h.services.db.query<{ kind: string; n: number }>(
            `select case when m.message_id like '%-RESENT' then 'resent' else m.kind end as kind, count(*)::int8 as n
             from simulator_messages m join simulator_purchases p on p.id = m.purchase_id where p.run_id = $1 group by 1`,
            [started.run.id],
          )
        ).map((r) => [r.kind, r.n]),
      );
    // Every authorisation recorded (a clearing with no authorisation comes when the network clears, below).
    await expect.poll(async () => (await all()).length === (await sent()).auth, { timeout: 30_000 }).toBe(true);
    // Clearings 48-72 h on, further parts a day apart, refunds 1-10 days after clearing, expiries after 7 days: all within 15 days.
    await expectStatus(await h.admin("POST", "/admin/clock/advance", { days: 15 }), 200);
    let txs: Tx[] = [];
    // Every clearing, refund and expiry the network sent is recorded — a clearing a stage of its purchase (with its auth or
    // without one) or a transaction of its own — and a clearing it sent again is not.
    let counted: Record<string, number> = {};
    await expect
      .poll(
        async () => {
          txs = await all();
          counted = await sent();
          const clearings = txs.filter((t) => t.type === "purchase" && t.cleared).length;
          return (
            clearings === (counted.clearing ?? -1) &&
            txs.filter((t) => t.type === "refund").length === (counted.refund ?? -1) &&
            txs.filter((t) => t.expired).length === (counted.expiry ?? -1)
          );
        },
        { timeout: 30_000, interval: 200 },
      )
      .toBe(true);
    for (const kind of ["increment", "expiry", "resent"]) expect(counted[kind], kind).toBeGreaterThan(0);
    // Cleared with no authorisation: a purchase of its own; expired: its cashback withdrawn.
    expect(txs.some((t) => t.type === "purchase" && !t.auth && t.cleared && t.authTransactionId === null)).toBe(true);
    // Expired with nothing cleared: the cashback withdrawn; once part of it cleared, those clearings keep theirs.
    expect(txs.filter((t) => t.expired && t.clearedAmount === 0).every((t) => !t.cleared && t.offer.cashback === 0)).toBe(true);
    expect(txs.some((t) => t.expired && t.clearedAmount > 0 && t.clearedAmount < t.amount)).toBe(true);
    // Each purchase's amount is what the network authorised in the end, its increments included.
    const authorised = await h.services.db.query<{ amount: number }>("select amount::float8 as amount from simulator_purchases where run_id = $1 order by amount", [started.run.id]);
    const recordedAmounts = txs.filter((t) => t.type === "purchase" && t.authTransactionId === null).map((t) => t.amount).sort((a, b) => a - b);
    expect(recordedAmounts).toEqual(authorised.map((r) => r.amount));
    const byId = new Map(txs.map((t) => [t.id, t]));
    const auths = txs.filter((t) => t.type === "purchase" && t.authTransactionId === null);
    expect(auths).toHaveLength(40);
    const parts = txs.filter((t) => t.authTransactionId !== null);
    const partsOf = (id: string) => parts.filter((p) => p.authTransactionId === id);
    expect(parts.length).toBeGreaterThan(0);
    expect(auths.some((a) => partsOf(a.id).length >= 2)).toBe(true);
    expect(auths.some((a) => partsOf(a.id).length === 1 && a.clearedAmount < a.amount)).toBe(true);
    expect(auths.some((a) => partsOf(a.id).length === 1 && a.clearedAmount > a.amount)).toBe(true);
    for (const auth of auths) {
      const own = partsOf(auth.id);
      if (own.length === 0) continue;
      // What the parts came to is what the purchase shows, at most 20% above its amount (a tip); they take its reward once.
      expect(roundMoney(own.reduce((sum, p) => sum + p.amount, 0), "GBP")).toBe(auth.clearedAmount);
      expect(auth.clearedAmount).toBeLessThanOrEqual(roundMoney(auth.amount * 1.2, "GBP"));
      expect(auth.cleared).toBe(false);
      expect(roundMoney(own.reduce((sum, p) => sum + p.offer.cashback, 0), "GBP")).toBeLessThanOrEqual(roundMoney(auth.offer.cashback * 1.2, "GBP"));
      expect(own.every((p) => !p.auth && p.cleared && p.location?.id === w.locationId)).toBe(true);
    }
    const refunds = txs.filter((t) => t.type === "refund");
    const linked = refunds.filter((r) => r.originalTransactionId !== null);
    expect(linked.length).toBeGreaterThan(0);
    for (const refund of linked) {
      const original = byId.get(refund.originalTransactionId!)!;
      // Matched by card, location, MID, amount and time: a refund of the whole purchase, after it.
      expect(original).toMatchObject({ type: "purchase", amount: -refund.amount, refundTransactionId: refund.id });
      expect(original.identifiers.MID).toBe(refund.identifiers.MID);
      expect(original.datetime <= refund.datetime).toBe(true);
    }
    // A partial refund that names no purchase matches none.
    expect(refunds.some((r) => r.originalTransactionId === null)).toBe(true);
  });
});
