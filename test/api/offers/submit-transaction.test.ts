// Publisher-submitted transactions for oaas offers: decided by the offer's rules (the offer considered kept
// for the qualification read), recorded once per reference (two submissions of one reference at once
// too), counted on the card's activation up to the offer's limit, reported with the clearing webhooks.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHarness, expectError, expectStatus, type Harness } from "../../support/harness.ts";
import { localIn, world } from "../../support/offers-world.ts";

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

type Tx = { id: string; cleared: boolean; auth: boolean; location: unknown; brand: { id: string } | null; offer: { id: string; qualified: boolean; cashback: number; message: string[] } };

async function oaasWorld() {
  const w = await world(h);
  const offer = await w.offer({
    startDate: localIn(h, -1),
    transactionSource: "oaas",
    targeting: { name: "new" },
    fees: { publisherFee: 1, serviceFee: 0.5 },
    type: { name: "discount", value: 10 },
  });
  expect(offer.locationsTotal).toBe(-1);
  const submit = (body: Record<string, unknown>) =>
    w.client.post(`/v1/offers/${offer.id}/transactions`, { cardId: w.cardId, amount: 50, datetime: localIn(h, 0), targetingTag: "new", reference: "order-1", ...body });
  return { w, offer, submit };
}

describe("POST /offers/{offerId}/transactions (oaas)", () => {
  it("decides the purchase against the offer, records it cleared without a location, and emits the clearing events", async () => {
    const { w, offer, submit } = await oaasWorld();
    const tx = await expectStatus<Tx>(await submit({}), 201);
    expect(tx).toMatchObject({ cleared: true, auth: false, location: null, brand: { id: w.brandId }, offer: { id: offer.id, qualified: true, cashback: 5 } });
    const events = await h.services.db.query<{ event: string }>("select event from outbox where data->>'id' = $1 order by event", [tx.id]);
    expect(events.map((e) => e.event)).toEqual(["transaction.clearing", "transaction.clearing.qualified"]);
    const again = await expectStatus<Tx>(await submit({ amount: 999 }), 200);
    expect(again).toEqual(tx);
  });

  it("applies targeting to the publisher's tag", async () => {
    const { w, offer, submit } = await oaasWorld();
    const lapsed = await expectStatus<Tx>(await submit({ targetingTag: "lapsed", reference: "order-2" }), 201);
    expect(lapsed.offer).toMatchObject({ qualified: false, cashback: 0 });
    expect(lapsed.offer.message[0]).toMatch(/targets new customers/);
    // Its qualification: the one offer weighed, rejected by that rule; no network sent a message.
    const q = await expectStatus<{ considered: unknown[]; nativeMessages: unknown[] }>(await w.client.get(`/v1/transactions/${lapsed.id}/qualification`), 200);
    expect(q.considered).toEqual([
      { offerId: offer.id, offerName: "10% off coffee", outcome: "rejected", cashback: null, performanceFee: null, reason: lapsed.offer.message[0] },
    ]);
    expect(q.nativeMessages).toEqual([]);
  });

  it("counts qualified submissions on the card's activation and deactivates the offer at its limit", async () => {
    const w = await world(h);
    const offer = await w.offer({ startDate: localIn(h, -1), transactionSource: "oaas", fees: { publisherFee: 1, serviceFee: 0.5 }, activation: { enabled: true, qualifiedTransactionsLimit: 2 } });
    const submitTo = (reference: string) => w.client.post(`/v1/offers/${offer.id}/transactions`, { cardId: w.cardId, amount: 50, datetime: localIn(h, 0), reference });
    const before = await expectStatus<Tx>(await submitTo("a-0"), 201);
    expect(before.offer).toMatchObject({ qualified: false, message: ["The offer has not been activated on this card."] });
    await expectStatus(await w.client.post(`/v1/offers/${offer.id}/cards/${w.cardId}`), 201);
    const results = [];
    for (const reference of ["a-1", "a-2", "a-3"]) results.push((await expectStatus<Tx>(await submitTo(reference), 201)).offer);
    expect(results.map((r) => r.qualified)).toEqual([true, true, false]);
    expect(results[2]!.message).toEqual(["The offer is no longer activated on this card."]);
    const cards = await expectStatus<{ items: unknown[] }>(await w.client.get(`/v1/offers/${offer.id}/cards?cardId=${w.cardId}`), 200);
    expect(cards.items).toEqual([expect.objectContaining({ state: "deactivated", qualifiedTransactions: 2, deactivationReason: "limit" })]);
  });

  it("records one transaction when one reference is submitted twice at once", async () => {
    const { submit } = await oaasWorld();
    const answers = await Promise.all([submit({ reference: "twice" }), submit({ reference: "twice" })]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 201]);
    const [first, second] = await Promise.all(answers.map((a) => a.json() as Promise<Tx>));
    expect(second).toEqual(first);
    const events = await h.services.db.query<{ event: string }>("select event from outbox where data->>'id' = $1 order by event", [first!.id]);
    expect(events.map((e) => e.event)).toEqual(["transaction.clearing", "transaction.clearing.qualified"]);
  });

  it("refuses offers that are not oaas, unknown cards and bad input, naming the field", async () => {
    const { w, submit } = await oaasWorld();
    const networkOffer = await w.offer({ startDate: localIn(h, -1) });
    expect(await expectError(await w.client.post(`/v1/offers/${networkOffer.id}/transactions`, { cardId: w.cardId, amount: 5, datetime: localIn(h, 0), reference: "x" }), 400, "invalid_request")).toMatch(/^offerId: .*oaas/);
    await expectError(await submit({ cardId: "3f2b9c1e-8d4a-4b6e-9f1a-2c3d4e5f6a7b" }), 404, "resource_not_found");
    expect(await expectError(await submit({ amount: 0 }), 400, "invalid_request")).toMatch(/^amount:/);
    expect(await expectError(await submit({ datetime: "soon" }), 400, "invalid_request")).toMatch(/^datetime:/);
    expect(await expectError(await submit({ reference: undefined }), 400, "invalid_request")).toMatch(/^reference: required/);
  });
});
