// GET /transactions/{id}/qualification: every offer the qualifier weighed for a purchase (the winner, one
// that paid less, one a rule rejected) and the scheme's native message of each stage — a clearing and a
// refund of their own keep their own; none of it reaches the Transaction record or its webhooks; only the
// caller's transactions.
import { expect, it } from "vitest";
import { expectStatus } from "../../support/harness.ts";
import { usePipeline } from "../../support/pipeline.ts";
import { localIn, world } from "../../support/offers-world.ts";

const pipeline = usePipeline(["simulators", "qualifier", "workers"]);

interface Qualification {
  transactionId: string;
  considered: { offerId: string; offerName: string | null; outcome: string; cashback: number | null; performanceFee: number | null; reason: string | null }[] | null;
  moreConsidered: number;
  nativeMessages: { stage: string; scheme: string; kind: string | null; value: Record<string, unknown> }[];
}

it("lists the winner, the offer that paid less and the rejected one, and keeps each stage's Visa message as sent", async () => {
  const { h } = pipeline;
  const w = await world(h);
  const tenPercent = await w.offer({ name: "10% off coffee", startDate: localIn(h, -1), type: { name: "discount", value: 10 } });
  const twoOff = await w.offer({ name: "2 off any drink", startDate: localIn(h, -1), type: { name: "amount", value: 2 } });
  const mastercardOnly = await w.offer({ name: "Mastercard weekend", startDate: localIn(h, -1), type: { name: "amount", value: 9 }, schemes: ["mastercard"] });
  for (const offer of [tenPercent, twoOff, mastercardOnly]) {
    await expectStatus(await w.client.post(`/v1/offers/${offer.id}/locations/${w.locationId}`), 201);
  }
  const purchase = () => w.client.post("/v1/transactions/test", { cardId: w.cardId, locationId: w.locationId, amount: 40 });
  const qualificationOf = async (id: string) => expectStatus<Qualification>(await w.client.get(`/v1/transactions/${id}/qualification`), 200);

  const tx = await expectStatus<Record<string, unknown> & { id: string; offer: { id: string; cashback: number } }>(await purchase(), 201);
  expect(tx.offer).toMatchObject({ id: tenPercent.id, cashback: 4 });
  const q = await qualificationOf(tx.id);
  expect(q.transactionId).toBe(tx.id);
  expect(q.considered).toEqual([
    { offerId: tenPercent.id, offerName: "10% off coffee", outcome: "won", cashback: 4, performanceFee: expect.any(Number), reason: null },
    {
      offerId: twoOff.id,
      offerName: "2 off any drink",
      outcome: "lost",
      cashback: 2,
      performanceFee: expect.any(Number),
      reason: "Paid less than the winning offer: cashback 2 vs 4 GBP.",
    },
    {
      offerId: mastercardOnly.id,
      offerName: "Mastercard weekend",
      outcome: "rejected",
      cashback: null,
      performanceFee: null,
      reason: "The offer is not available on visa cards.",
    },
  ]);
  expect(q.moreConsidered).toBe(0);
  // The Visa message itself: Visa's field names (vmid, vsid, CAID, authCode), not the normalised record's.
  expect(q.nativeMessages).toHaveLength(1);
  const [auth] = q.nativeMessages;
  expect(auth).toMatchObject({ stage: "auth", scheme: "visa", kind: "AUTH" });
  expect(auth!.value).toMatchObject({
    messageType: "AUTH",
    cardId: w.cardId,
    amount: 40,
    currencyCode: "GBP",
    merchant: { vmid: expect.any(String), vsid: expect.any(String), caid: expect.any(String), acquirerBin: expect.any(String) },
  });
  expect(auth!.value.transactionId).toMatch(/^\d{15}$/);
  // In the scheme's own field order (the message's schema), not the store's.
  expect(Object.keys(auth!.value).slice(0, 3)).toEqual(["messageId", "messageType", "transactionId"]);
  expect(Object.keys(auth!.value.merchant as object).slice(0, 3)).toEqual(["vmid", "vsid", "caid"]);

  // The public record and its webhooks stay as they were: no offers considered, no native message.
  const record = await expectStatus<Record<string, unknown>>(await w.client.get(`/v1/transactions/${tx.id}`), 200);
  expect(Object.keys(record).sort()).toEqual(Object.keys(tx).sort());
  expect(Object.keys(record)).not.toContain("considered");
  const events = await h.services.db.query<{ data: Record<string, unknown> }>("select data from outbox where data->>'id' = $1", [tx.id]);
  expect(events.length).toBeGreaterThan(0);
  for (const e of events) expect(Object.keys(e.data).sort()).toEqual(Object.keys(record).sort());

  // The clearing of the whole amount is a stage of the same row: it keeps its own SETTLEMENT beside the AUTH.
  await expectStatus(await w.client.post(`/v1/transactions/${tx.id}/clear`), 200);
  const cleared = await qualificationOf(tx.id);
  expect(cleared.nativeMessages.map((m) => [m.stage, m.kind])).toEqual([
    ["auth", "AUTH"],
    ["clearing", "SETTLEMENT"],
  ]);
  expect(cleared.nativeMessages[0]!.value).toEqual(auth!.value);
  expect(cleared.considered).toEqual(q.considered);

  // A refund is a row of its own with its own message, not decided against offers.
  const refund = await expectStatus<{ id: string }>(await w.client.post(`/v1/transactions/${tx.id}/refund`, { amount: 5 }), 201);
  const refunded = await qualificationOf(refund.id);
  expect(refunded.considered).toBeNull();
  expect(refunded.nativeMessages).toMatchObject([{ stage: "refund", scheme: "visa", kind: "REFUND", value: { messageType: "REFUND", amount: -5 } }]);

  // A clearing of part of an authorisation is a row of its own, decided on the authorisation's offer alone.
  const other = await expectStatus<{ id: string }>(await purchase(), 201);
  const part = await expectStatus<{ id: string }>(await w.client.post(`/v1/transactions/${other.id}/clear`, { amount: 25 }), 201);
  const partQ = await qualificationOf(part.id);
  expect(partQ.considered).toMatchObject([{ offerId: tenPercent.id, outcome: "won", cashback: 2.5 }]);
  expect(partQ.nativeMessages).toMatchObject([{ stage: "clearing", kind: "SETTLEMENT", value: { messageType: "SETTLEMENT", amount: 25 } }]);

  // A deleted offer keeps its place by id, without a name.
  await expectStatus(await w.client.delete(`/v1/offers/${mastercardOnly.id}`), 204);
  const afterDelete = await qualificationOf(tx.id);
  expect(afterDelete.considered![2]).toMatchObject({ offerId: mastercardOnly.id, offerName: null, outcome: "rejected" });

  // Another account's transaction, and the other environment, are not found; a malformed id is named.
  const stranger = await h.createAccount();
  expect((await stranger.as("test").get(`/v1/transactions/${tx.id}/qualification`)).status).toBe(404);
  expect((await w.acct.as("live").get(`/v1/transactions/${tx.id}/qualification`)).status).toBe(404);
  const bad = await w.client.get("/v1/transactions/not-an-id/qualification");
  expect(bad.status).toBe(400);
  expect(await bad.text()).toContain("transactionId");
});
