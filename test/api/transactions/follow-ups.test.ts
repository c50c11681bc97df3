// Clear, void and refund of a test purchase are refused at the API with 409 naming the reason when
// they cannot apply, instead of 202 and a dead-lettered command; nothing reaches the dead-letter topic.
// A purchase clears in whole or in parts (each part a transaction of its own); refunds and purchases name each other.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHarness, expectError, expectStatus, type Harness } from "../../support/harness.ts";
import { world, type World } from "../../support/offers-world.ts";
import { startRoles, type RunningRoles } from "../../../src/app/roles.ts";
import { commandTopic } from "../../../src/platform/bus/topics.ts";
import { SCHEMES } from "../../../src/domain/scheme.ts";
import { deadLetterTopic } from "../../../src/platform/bus/dead-letter.ts";
import { clearingOf, leftToClear, leftToRefund, refundOf, voidRefusal } from "../../../src/domain/purchase-follow-ups.ts";

type Tx = { id: string; amount: number; cleared: boolean; voided: boolean; type: string };

let h: Harness;
let roles: RunningRoles;
const deadLetters: unknown[] = [];

beforeAll(async () => {
  h = await createHarness();
  roles = await startRoles(h.services, ["simulators", "qualifier", "workers"]);
  const sub = await h.services.bus.subscribe({
    groupId: "follow-ups-test",
    topics: SCHEMES.map((scheme) => deadLetterTopic(commandTopic(scheme))),
    handler: async (message) => {
      deadLetters.push(message.value);
    },
  });
  subscriptions.push(() => sub.stop());
});
const subscriptions: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const stop of subscriptions) await stop();
  await roles.stop();
  await h.close();
});

const purchase = async (w: World, amount = 40) =>
  expectStatus<Tx>(await w.client.post("/v1/transactions/test", { cardId: w.cardId, locationId: w.locationId, amount }), 201);

describe("the follow-up rules (src/domain/purchase-follow-ups.ts)", () => {
  const p = { state: "authorized" as const, amount: 40, currency: "GBP", refunded: 0 };
  it("refund what is left by default, refuse more than remains, a fully refunded or a voided purchase", () => {
    expect(refundOf(p, null)).toEqual({ amount: 40 });
    expect(refundOf({ ...p, refunded: 15.5 }, null)).toEqual({ amount: 24.5 });
    expect(refundOf({ ...p, refunded: 30 }, 10.004)).toEqual({ amount: 10 });
    expect(refundOf({ ...p, refunded: 30 }, 10.01)).toEqual({ refusal: { field: "amount", reason: "refunds more than remains: 10 GBP of 40 is left to refund" } });
    expect(refundOf({ ...p, refunded: 40 }, null)).toEqual({ refusal: { field: "transactionId", reason: "the purchase is already fully refunded" } });
    expect(refundOf({ ...p, state: "voided" }, 1)).toMatchObject({ refusal: { reason: "the purchase was voided; there is nothing to refund" } });
    expect(leftToRefund({ ...p, amount: 1000, currency: "JPY", refunded: 333.4 })).toBe(667);
  });
  it("void only before clearing, clear only without a void", () => {
    expect(voidRefusal({ state: "authorized" })).toBeUndefined();
    expect(voidRefusal({ state: "cleared" })?.reason).toBe("the purchase has cleared; refund it instead of voiding it");
    expect(voidRefusal({ state: "authorized", cleared: 10 })?.reason).toBe("the purchase has cleared; refund it instead of voiding it");
    expect(clearingOf({ ...p, state: "cleared" }, null)).toEqual({ done: true });
    expect(clearingOf({ ...p, state: "voided" }, null)).toMatchObject({ refusal: { reason: "the purchase was voided; it cannot clear" } });
  });
  it("clear the whole amount at once, part of it, or in several clearings up to it", () => {
    expect(clearingOf(p, null)).toEqual({ amount: 40, whole: true, last: true });
    expect(clearingOf(p, 40)).toEqual({ amount: 40, whole: true, last: true });
    expect(clearingOf(p, 25.004)).toEqual({ amount: 25, whole: false, last: false });
    expect(clearingOf({ ...p, cleared: 25 }, null)).toEqual({ amount: 15, whole: false, last: true });
    expect(clearingOf({ ...p, cleared: 25 }, 23.01)).toEqual({
      refusal: { field: "amount", reason: "clears more than the authorisation allows: at most 23 GBP (15 left of 40, plus a tip of up to 20% of it)" },
    });
    expect(clearingOf({ ...p, cleared: 40 }, 1)).toEqual({ refusal: { field: "transactionId", reason: "the purchase is already cleared in full" } });
    expect(clearingOf(p, 0)).toEqual({ refusal: { field: "amount", reason: "must be more than 0 GBP" } });
    expect(leftToClear({ ...p, cleared: 12.5 })).toBe(27.5);
    expect(leftToClear({ ...p, state: "cleared" })).toBe(0);
  });
});

describe("POST /transactions/{id}/refund, /void and /clear", () => {
  it("refunds in parts up to the amount, then answers 409 naming the reason", async () => {
    const w = await world(h);
    const tx = await purchase(w);
    await expectStatus(await w.client.post(`/v1/transactions/${tx.id}/refund`, { amount: 15 }), 201);
    expect(await expectError(await w.client.post(`/v1/transactions/${tx.id}/refund`, { amount: 30 }), 409, "conflict")).toBe(
      "amount: refunds more than remains: 25 GBP of 40 is left to refund",
    );
    const rest = await expectStatus<Tx>(await w.client.post(`/v1/transactions/${tx.id}/refund`, {}), 201);
    expect(rest.amount).toBe(-25);
    expect(await expectError(await w.client.post(`/v1/transactions/${tx.id}/refund`, {}), 409, "conflict")).toBe(
      "transactionId: the purchase is already fully refunded",
    );
  });

  it("voids an authorised purchase; then refund and clear are 409 and a second void answers it again", async () => {
    const w = await world(h);
    const tx = await purchase(w);
    const voided = await expectStatus<Tx>(await w.client.post(`/v1/transactions/${tx.id}/void`), 200);
    expect(voided).toMatchObject({ id: tx.id, voided: true, cleared: false });
    expect((await expectStatus<Tx>(await w.client.post(`/v1/transactions/${tx.id}/void`), 200)).voided).toBe(true);
    expect(await expectError(await w.client.post(`/v1/transactions/${tx.id}/refund`, {}), 409, "conflict")).toBe(
      "transactionId: the purchase was voided; there is nothing to refund",
    );
    expect(await expectError(await w.client.post(`/v1/transactions/${tx.id}/clear`), 409, "conflict")).toBe(
      "transactionId: the purchase was voided; it cannot clear",
    );
  });

  it("refuses to void a cleared purchase", async () => {
    const w = await world(h);
    const tx = await purchase(w);
    await expectStatus(await w.client.post(`/v1/transactions/${tx.id}/clear`), 200);
    expect(await expectError(await w.client.post(`/v1/transactions/${tx.id}/void`), 409, "conflict")).toBe(
      "transactionId: the purchase has cleared; refund it instead of voiding it",
    );
  });

  it("clears part of a purchase as a transaction of its own, then the rest, and no more", async () => {
    type Clearing = Tx & { auth: boolean; authTransactionId: string | null; clearedAmount: number; card: { id: string }; location: { id: string } };
    const w = await world(h);
    const tx = await purchase(w);
    const part = await expectStatus<Clearing>(await w.client.post(`/v1/transactions/${tx.id}/clear`, { amount: 15 }), 201);
    expect(part).toMatchObject({ type: "purchase", authTransactionId: tx.id, auth: false, cleared: true, amount: 15, clearedAmount: 15 });
    expect(part).toMatchObject({ card: { id: w.cardId }, location: { id: w.locationId } });
    expect(part.id).not.toBe(tx.id);
    expect(await expectStatus<Clearing>(await w.client.get(`/v1/transactions/${part.id}`), 200)).toEqual(part);
    expect(await expectError(await w.client.post(`/v1/transactions/${tx.id}/void`), 409, "conflict")).toBe(
      "transactionId: the purchase has cleared; refund it instead of voiding it",
    );
    expect(await expectError(await w.client.post(`/v1/transactions/${tx.id}/clear`, { amount: 33.01 }), 409, "conflict")).toBe(
      "amount: clears more than the authorisation allows: at most 33 GBP (25 left of 40, plus a tip of up to 20% of it)",
    );
    const rest = await expectStatus<Clearing>(await w.client.post(`/v1/transactions/${tx.id}/clear`, {}), 201);
    expect(rest).toMatchObject({ authTransactionId: tx.id, amount: 25 });
    expect(new Set([tx.id, part.id, rest.id]).size).toBe(3);
    expect(await expectStatus<Clearing>(await w.client.get(`/v1/transactions/${tx.id}`), 200)).toMatchObject({ cleared: false, clearedAmount: 40 });
    expect(await expectError(await w.client.post(`/v1/transactions/${tx.id}/clear`, { amount: 1 }), 409, "conflict")).toBe(
      "transactionId: the purchase is already cleared in full",
    );
    // Without an amount, a purchase cleared in full is answered again.
    expect(await expectStatus<Clearing>(await w.client.post(`/v1/transactions/${tx.id}/clear`), 200)).toMatchObject({ id: tx.id, clearedAmount: 40 });
    // A clearing of its own is not a purchase made with POST /transactions/test.
    expect(await expectError(await w.client.post(`/v1/transactions/${part.id}/clear`), 400, "invalid_request")).toMatch(/^transactionId: /);
  });

  it("clears the whole amount given at once as the purchase's own stage", async () => {
    const w = await world(h);
    const tx = await purchase(w);
    const cleared = await expectStatus<Tx & { clearedAmount: number; authTransactionId: string | null }>(
      await w.client.post(`/v1/transactions/${tx.id}/clear`, { amount: 40 }),
      200,
    );
    expect(cleared).toMatchObject({ id: tx.id, cleared: true, clearedAmount: 40, authTransactionId: null });
  });

  it("refuses a clearing amount finer than cents or not above 0, naming the field", async () => {
    const w = await world(h);
    const tx = await purchase(w);
    expect(await expectError(await w.client.post(`/v1/transactions/${tx.id}/clear`, { amount: 1.234 }), 400, "invalid_request")).toMatch(/^amount: /);
    expect(await expectError(await w.client.post(`/v1/transactions/${tx.id}/clear`, { amount: 0 }), 400, "invalid_request")).toMatch(/^amount: /);
    expect(await expectError(await w.client.post(`/v1/transactions/${tx.id}/clear`, { amount: 5, extra: 1 }), 400, "invalid_request")).toMatch(/extra/);
  });

  it("links a refund to its purchase both ways", async () => {
    const w = await world(h);
    const tx = await purchase(w);
    const refund = await expectStatus<Tx & { originalTransactionId: string }>(await w.client.post(`/v1/transactions/${tx.id}/refund`, { amount: 10 }), 201);
    expect(refund.originalTransactionId).toBe(tx.id);
    const second = await expectStatus<Tx>(await w.client.post(`/v1/transactions/${tx.id}/refund`, {}), 201);
    // The purchase names its first refund.
    const after = await expectStatus<{ refundTransactionId: string | null }>(await w.client.get(`/v1/transactions/${tx.id}`), 200);
    expect(after.refundTransactionId).toBe(refund.id);
    expect(second.id).not.toBe(refund.id);
  });

  it("sent nothing that the network dead-lettered", async () => {
    // Every refused follow-up above was refused before it was sent.
    await new Promise((r) => setTimeout(r, 300));
    expect(deadLetters).toEqual([]);
  });
});
