// The networks as they behave, through the test purchase API as an integrator drives it: a clearing with no
// authorisation, a clearing above the authorisation by a tip (and refused beyond the bound), an incremental
// authorisation, an authorisation that expires uncleared on the clock (its cashback withdrawn, told by
// transaction.auth.expired), a clearing the network sends twice (recorded and rewarded once), a purchase
// billed in the cardholder's own currency (the transaction keeps the purchase's). Each in a scheme's native
// message, read back from GET /transactions/{id}/qualification.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHarness, expectError, expectStatus, type Harness } from "../../support/harness.ts";
import { advanceDays, localIn, world, type World } from "../../support/offers-world.ts";
import { startRoles, type RunningRoles } from "../../../src/app/roles.ts";

type Tx = {
  id: string;
  amount: number;
  currency: string;
  auth: boolean;
  cleared: boolean;
  expired: boolean;
  expiredAt: string | null;
  clearedAmount: number;
  authTransactionId: string | null;
  offer: { qualified: boolean; cashback: number; performanceFee: number; message: string[] };
  identifiers: Record<string, string | null>;
};
type Native = { nativeMessages: { stage: string; kind: string; value: Record<string, unknown> }[] };

let h: Harness;
let roles: RunningRoles;
beforeAll(async () => {
  h = await createHarness();
  roles = await startRoles(h.services, ["simulators", "qualifier", "workers"]);
});
afterAll(async () => {
  await roles.stop();
  await h.close();
});

/** A world with a live 10% offer (fee 2%) linked to its location. */
async function offering(): Promise<World> {
  const w = await world(h);
  const offer = await w.offer({ startDate: localIn(h, -1), feeSplit: 2 });
  await expectStatus(await w.client.post(`/v1/offers/${offer.id}/locations/${w.locationId}`), 201);
  return w;
}
const purchase = async (w: World, body: Record<string, unknown> = {}, cardId = w.cardId) =>
  expectStatus<Tx>(await w.client.post("/v1/transactions/test", { cardId, locationId: w.locationId, amount: 50, ...body }), 201);
const read = async (w: World, id: string) => expectStatus<Tx>(await w.client.get(`/v1/transactions/${id}`), 200);
const native = async (w: World, id: string) => (await expectStatus<Native>(await w.client.get(`/v1/transactions/${id}/qualification`), 200)).nativeMessages;
const events = async (w: World, event: string, transactionId: string) =>
  (await expectStatus<{ items: { payload: { data: Tx } }[] }>(await w.client.get(`/v1/programs/${w.programId}/webhook-events?event=${event}&transactionId=${transactionId}`), 200)).items.map(
    (e) => e.payload.data,
  );

describe("the networks as they behave, from the test purchase API", () => {
  it("makes a clearing with no authorisation: cleared, not authorised, qualified on its own amount", async () => {
    const w = await offering();
    const tx = await purchase(w, { stage: "clearing", amount: 30 });
    expect(tx).toMatchObject({ auth: false, cleared: true, clearedAmount: 30, authTransactionId: null, offer: { qualified: true, cashback: 3 } });
    // Visa's settlement with no auth code before it: the only message of the transaction.
    expect(await native(w, tx.id)).toMatchObject([{ stage: "clearing", kind: "SETTLEMENT", value: { authCode: null } }]);
    expect(tx.identifiers.visaAuthCode).toBeNull();
    expect((await events(w, "transaction.clearing.qualified", tx.id)).map((e) => e.id)).toEqual([tx.id]);
    expect(await expectError(await w.client.post(`/v1/transactions/${tx.id}/increment`, { amount: 5 }), 409, "conflict")).toBe(
      "transactionId: the purchase has cleared; an authorisation is incremented before it clears",
    );
    expect(await expectError(await w.client.post("/v1/transactions/test", { cardId: w.cardId, locationId: w.locationId, amount: 5, stage: "clearing", autoClear: false }), 400, "invalid_request")).toBe(
      "autoClear: applies to an authorisation: leave it out with stage clearing",
    );
  });

  it("clears above the authorisation by a tip up to 20%, a clearing of its own rewarded on what cleared; beyond the bound is 409", async () => {
    const w = await offering();
    const tx = await purchase(w);
    expect(await expectError(await w.client.post(`/v1/transactions/${tx.id}/clear`, { amount: 60.01 }), 409, "conflict")).toBe(
      "amount: clears more than the authorisation allows: at most 60 GBP (50 left of 50, plus a tip of up to 20% of it)",
    );
    const tip = await expectStatus<Tx>(await w.client.post(`/v1/transactions/${tx.id}/clear`, { amount: 60 }), 201);
    expect(tip).toMatchObject({ authTransactionId: tx.id, auth: false, cleared: true, amount: 60, offer: { qualified: true, cashback: 6, performanceFee: 1.2 } });
    expect(await read(w, tx.id)).toMatchObject({ clearedAmount: 60, cleared: false });
    expect(await expectError(await w.client.post(`/v1/transactions/${tx.id}/clear`, { amount: 1 }), 409, "conflict")).toBe("transactionId: the purchase is already cleared in full");
  });

  it("increments an authorisation before it clears: the purchase's amount grows and is decided again, then clears in one", async () => {
    const w = await offering();
    const tx = await purchase(w, { amount: 40 });
    const incremented = await expectStatus<Tx>(await w.client.post(`/v1/transactions/${tx.id}/increment`, { amount: 25 }), 200);
    expect(incremented).toMatchObject({ id: tx.id, amount: 65, offer: { qualified: true, cashback: 6.5 } });
    expect((await native(w, tx.id)).map((m) => m.kind)).toEqual(["AUTH", "INCREMENTAL_AUTH"]);
    const cleared = await expectStatus<Tx>(await w.client.post(`/v1/transactions/${tx.id}/clear`), 200);
    expect(cleared).toMatchObject({ id: tx.id, cleared: true, clearedAmount: 65, offer: { cashback: 6.5 } });
    // One transaction, one of each event: the auth's qualified event announced the first figure, the clearing's the last.
    expect((await events(w, "transaction.auth.qualified", tx.id)).map((e) => e.offer.cashback)).toEqual([4]);
    expect((await events(w, "transaction.clearing.qualified", tx.id)).map((e) => e.offer.cashback)).toEqual([6.5]);
  });

  it("records a clearing the network sends twice once, and rewards it once", async () => {
    const w = await offering();
    const tx = await purchase(w);
    const part = await expectStatus<Tx>(await w.client.post(`/v1/transactions/${tx.id}/clear`, { amount: 30, duplicate: true }), 201);
    // The card's next purchase comes after the clearing sent again on the card's partition: once it is recorded, so was that.
    await purchase(w, { amount: 5 });
    const after = await read(w, tx.id);
    expect(after.clearedAmount).toBe(30);
    const { items } = await expectStatus<{ items: Tx[] }>(await w.client.get(`/v1/programs/${w.programId}/transactions?limit=100`), 200);
    expect(items.filter((t) => t.authTransactionId === tx.id).map((t) => t.id)).toEqual([part.id]);
    expect(await events(w, "transaction.clearing", part.id)).toHaveLength(1);
  });

  it("expires an authorisation left uncleared after its days on the clock: expired, its cashback withdrawn, transaction.auth.expired", async () => {
    const w = await offering();
    const tx = await purchase(w, { autoClear: false, authExpiryDays: 2 });
    expect(tx).toMatchObject({ expired: false, expiredAt: null, offer: { qualified: true, cashback: 5 } });
    await advanceDays(h, 2);
    await expect.poll(async () => (await read(w, tx.id)).expired, { timeout: 15_000 }).toBe(true);
    const expired = await read(w, tx.id);
    expect(expired).toMatchObject({
      cleared: false,
      expiredAt: h.services.clock.now().toISOString(),
      offer: { qualified: false, cashback: 0, performanceFee: 0, message: ["The authorisation expired uncleared: the network withdrew it, and its cashback with it."] },
    });
    expect(await events(w, "transaction.auth.expired", tx.id)).toEqual([expired]);
    expect((await native(w, tx.id)).map((m) => m.kind)).toEqual(["AUTH", "AUTH_EXPIRY"]);
    expect(await expectError(await w.client.post(`/v1/transactions/${tx.id}/clear`), 409, "conflict")).toBe(
      "transactionId: the authorisation expired; the network withdrew what was left of it, so it cannot clear",
    );
  });

  it("expires an authorisation now on request; once part of it cleared, the clearing keeps its reward", async () => {
    const w = await offering();
    const tx = await purchase(w, { amount: 40 });
    const part = await expectStatus<Tx>(await w.client.post(`/v1/transactions/${tx.id}/clear`, { amount: 10 }), 201);
    const expired = await expectStatus<Tx>(await w.client.post(`/v1/transactions/${tx.id}/expire`), 200);
    expect(expired).toMatchObject({ expired: true, clearedAmount: 10, offer: { qualified: true, cashback: 4 } });
    expect(await read(w, part.id)).toMatchObject({ offer: { cashback: 1 } });
    expect(await expectStatus<Tx>(await w.client.post(`/v1/transactions/${tx.id}/expire`), 200)).toMatchObject({ id: tx.id, expired: true });
    const whole = await purchase(w);
    await expectStatus(await w.client.post(`/v1/transactions/${whole.id}/clear`), 200);
    expect(await expectError(await w.client.post(`/v1/transactions/${whole.id}/expire`), 409, "conflict")).toBe(
      "transactionId: the purchase is already cleared in full; nothing is left to expire",
    );
  });

  it("bills a purchase abroad in the cardholder's currency: the messages carry the billed amount, the transaction keeps the purchase's", async () => {
    const w = await offering();
    const usCard = await expectStatus<{ id: string }>(
      await w.client.post(`/v1/programs/${w.programId}/cards`, { number: "4444000000004016", expMonth: 12, expYear: 2030, countryCode: "USA", termsOfUse: true }),
      201,
    );
    const tx = await purchase(w, {}, usCard.id);
    const cleared = await expectStatus<Tx>(await w.client.post(`/v1/transactions/${tx.id}/clear`), 200);
    expect(cleared).toMatchObject({ amount: 50, currency: "GBP", cleared: true, offer: { cashback: 5 } });
    const [auth, settlement] = await native(w, tx.id);
    for (const m of [auth!, settlement!]) {
      expect(m.value).toMatchObject({ amount: 50, currencyCode: "GBP", billingCurrencyCode: "USD" });
      expect(m.value.billingAmount).toBeCloseTo(50 * Number(m.value.conversionRate), 2);
    }
    // A card billed in the location's own currency is not converted.
    expect((await native(w, (await purchase(w, { billingCurrency: "GBP" }, usCard.id)).id))[0]!.value).toMatchObject({ billingAmount: null, billingCurrencyCode: null });
  });
});
