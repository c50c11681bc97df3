// Missing transaction requests over the API: validation (windows on the service clock, amounts,
// locations of the card's program), the test environment's six amounts and its answer from the test
// network, get and list with filters, retention, and 404s for other accounts and environments.
import { describe, expect, it } from "vitest";
import { usePipeline } from "../../support/pipeline.ts";
import { expectError, expectStatus } from "../../support/harness.ts";
import { advanceDays, expect400, world } from "../../support/offers-world.ts";

type Request = {
  id: string;
  status: string;
  scheme: string;
  amount: number;
  transactionDate: string;
  estimatedCompletionDate: string;
  created: string;
  cardLastNumbers: string;
  result: null | { error?: { code: string; message: string }; transactions?: Record<string, unknown>[] };
};

// The test network answers over the bus: simulators and workers run beside the API.
const pipeline = usePipeline(["simulators", "workers"]);
const day = (h: { services: { clock: { now(): Date } } }, back: number) =>
  new Date(h.services.clock.now().getTime() - back * 86_400_000).toISOString().slice(0, 10);

describe("missing transaction requests in the test environment", () => {
  it.each([
    [10.01, "transaction-not-found"],
    [10.02, "card-not-found"],
    [10.03, "card-not-linked-to-program"],
    [10.04, "program-not-found"],
    [10.05, "network-request-failed"],
    [10.06, "unexpected-error"],
  ])("amount %s ends failed with %s at once, with its event", async (amount, code) => {
    const { h } = pipeline;
    const w = await world(h);
    const created = await expectStatus<Request>(
      await w.client.post(`/v1/cards/${w.cardId}/missing-transaction-requests`, { locationId: w.locationId, transactionDate: day(h, 1), amount }),
      201,
    );
    expect(created).toMatchObject({ status: "failed", amount, scheme: "visa", live: false, cardLastNumbers: "4008", result: { error: { code } } });
    expect(created.estimatedCompletionDate).toBe(created.created);
    const [event] = await h.services.db.query<{ event: string; data: Request }>("select event, data from outbox where data->>'id' = $1", [created.id]);
    expect(event).toMatchObject({ event: "missing-transaction-request.failed", data: { id: created.id, status: "failed", result: { error: { code } } } });
  });

  it("any other amount ends successful with the transaction the card's test network reports, in the scheme's fields", async () => {
    const { h } = pipeline;
    const w = await world(h);
    const visa = await expectStatus<Request>(
      await w.client.post(`/v1/cards/${w.cardId}/missing-transaction-requests`, { locationId: w.locationId, transactionDate: day(h, 2), amount: 42.5 }),
      201,
    );
    expect(visa).toMatchObject({
      status: "successful",
      transactionDate: day(h, 2),
      result: {
        transactions: [
          {
            amount: 42.5,
            date: day(h, 2),
            networkStatus: "SUCCEED",
            matchScore: 100,
            type: "settlement",
            vmid: expect.stringMatching(/^\d{8}$/),
            vsid: expect.stringMatching(/^\d{7,8}$/),
            visaStoreName: expect.any(String),
            visaAcquiringMid: expect.any(String),
            visaBin: expect.any(String),
            merchantName: expect.any(String),
            merchantCity: expect.any(String),
          },
          { type: "authorization" },
        ],
      },
    });
    const location = await expectStatus<{ status: { visa: { mids: Record<string, string>[] } } }>(await w.client.get(`/v1/locations/${w.locationId}`), 200);
    // The test network reports the location under the MIDs the location has.
    expect(visa.result!.transactions![0]).toMatchObject(location.status.visa.mids[0]!);
    const [event] = await h.services.db.query<{ event: string }>("select event from outbox where data->>'id' = $1", [visa.id]);
    expect(event!.event).toBe("missing-transaction-request.succeeded");

    const mastercard = await w.card("5555000000005007");
    const mc = await expectStatus<Request>(
      await w.client.post(`/v1/cards/${mastercard}/missing-transaction-requests`, { locationId: w.locationId, transactionDate: day(h, 0), amount: 0 }),
      201,
    );
    expect(mc.result!.transactions![0]).toEqual({
      amount: 0,
      date: day(h, 0),
      networkStatus: "SUCCEED",
      matchScore: 100,
      merchantName: expect.any(String),
      merchantCity: expect.any(String),
      mcLocationId: expect.stringMatching(/^\d+$/),
      mcAcquiringMid: expect.any(String),
    });
    const amex = await w.card("340000000000306");
    const ax = await expectStatus<Request>(
      await w.client.post(`/v1/cards/${amex}/missing-transaction-requests`, { locationId: w.locationId, transactionDate: `${day(h, 3)}T09:30:00Z`, amount: 7 }),
      201,
    );
    expect(ax).toMatchObject({ status: "successful", scheme: "amex", transactionDate: day(h, 3) });
    expect(ax.result!.transactions![0]).toMatchObject({ seNumber: expect.stringMatching(/^\d{10}$/) });
    expect(ax.result!.transactions![0]).not.toHaveProperty("vmid");
  });

  it("refuses dates outside the card's scheme window, the future, negative amounts and extra decimals, naming the field", async () => {
    const { h } = pipeline;
    const w = await world(h);
    const amex = await w.card("340000000000306");
    const mastercard = await w.card("5555000000005007");
    const ask = (cardId: string, body: Record<string, unknown>) =>
      w.client.post(`/v1/cards/${cardId}/missing-transaction-requests`, { locationId: w.locationId, transactionDate: day(h, 1), amount: 5, ...body });
    await expect400(await ask(amex, { transactionDate: day(h, 31) }), "transactionDate: must be within the last 30 days: amex searches 30 days back");
    await expectStatus(await ask(amex, { transactionDate: day(h, 30) }), 201);
    for (const card of [w.cardId, mastercard]) {
      await expectStatus(await ask(card, { transactionDate: day(h, 89) }), 201);
      await expect400(await ask(card, { transactionDate: day(h, 91) }), "searches 90 days back");
    }
    await expect400(await ask(w.cardId, { transactionDate: day(h, -1) }), "transactionDate: must not be in the future");
    await expect400(await ask(w.cardId, { transactionDate: new Date(h.services.clock.now().getTime() + 3_600_000).toISOString() }), "transactionDate: must not be in the future");
    await expect400(await ask(w.cardId, { transactionDate: "yesterday" }), "transactionDate: must be an ISO 8601 date");
    await expect400(await ask(w.cardId, { amount: -0.01 }), "amount: must be 0 or greater");
    await expect400(await ask(w.cardId, { amount: 1.005 }), "amount: must have at most 2 decimal places in GBP");
    await expect400(await ask(w.cardId, { amount: "5" }), "amount:");
    await expect400(await ask(w.cardId, { locationId: undefined }), "locationId: must be a UUID");
    // A location of another program of the same account: 400 naming locationId.
    const other = (await expectStatus<{ id: string }>(await w.client.post("/v1/programs", { name: "Other" }), 201)).id;
    const elsewhere = await w.location(w.brandId, "GBR", other);
    await expect400(await ask(w.cardId, { locationId: elsewhere }), "locationId: the location belongs to another program");
  });

  it("answers 404 for another account's or the other environment's cards, locations and requests", async () => {
    const { h } = pipeline;
    const w = await world(h);
    const stranger = await world(h);
    const body = { locationId: w.locationId, transactionDate: day(h, 1), amount: 10.01 };
    const mine = await expectStatus<Request>(await w.client.post(`/v1/cards/${w.cardId}/missing-transaction-requests`, body), 201);
    await expectError(await stranger.client.post(`/v1/cards/${w.cardId}/missing-transaction-requests`, { ...body, locationId: stranger.locationId }), 404, "resource_not_found");
    await expectError(await w.client.post(`/v1/cards/${w.cardId}/missing-transaction-requests`, { ...body, locationId: stranger.locationId }), 404, "resource_not_found");
    await expectError(await stranger.client.get(`/v1/missing-transaction-requests/${mine.id}`), 404, "resource_not_found");
    await expectError(await w.acct.as("live").get(`/v1/missing-transaction-requests/${mine.id}`), 404, "resource_not_found");
    await expectError(await stranger.client.get(`/v1/programs/${w.programId}/missing-transaction-requests`), 404, "resource_not_found");
  });

  it("gets a request and lists the program's newest first, with filters, a cursor and 90 days of retention", async () => {
    const { h } = pipeline;
    const w = await world(h);
    const mastercard = await w.card("5555000000005007");
    const ask = async (cardId: string, back: number, amount: number) =>
      expectStatus<Request>(
        await w.client.post(`/v1/cards/${cardId}/missing-transaction-requests`, { locationId: w.locationId, transactionDate: day(h, back), amount }),
        201,
      );
    const old = await ask(w.cardId, 80, 10.01);
    await advanceDays(h, 1);
    const failed = await ask(mastercard, 1, 10.02);
    await advanceDays(h, 1);
    const succeeded = await ask(w.cardId, 1, 12);
    expect(await expectStatus(await w.client.get(`/v1/missing-transaction-requests/${succeeded.id}`), 200)).toEqual(succeeded);

    type Page = { items: Request[]; count: number; last?: string };
    const list = async (query = "") => expectStatus<Page>(await w.client.get(`/v1/programs/${w.programId}/missing-transaction-requests${query}`), 200);
    expect((await list()).items.map((r) => r.id)).toEqual([succeeded.id, failed.id, old.id]);
    expect((await list("?status=failed")).items.map((r) => r.id)).toEqual([failed.id, old.id]);
    expect((await list(`?cardId=${mastercard}`)).items.map((r) => r.id)).toEqual([failed.id]);
    expect((await list("?scheme=visa&status=successful")).items.map((r) => r.id)).toEqual([succeeded.id]);
    expect((await list(`?locationId=${w.locationId}`)).count).toBe(3);
    const first = await list("?limit=2");
    expect(first).toMatchObject({ count: 3, items: [{ id: succeeded.id }, { id: failed.id }] });
    expect((await list(`?limit=2&start=${first.last}`)).items.map((r) => r.id)).toEqual([old.id]);
    await expect400(await w.client.get(`/v1/programs/${w.programId}/missing-transaction-requests?status=done`), "status: must be pending");
    await expect400(await w.client.get(`/v1/programs/${w.programId}/missing-transaction-requests?scheme=discover`), "scheme:");

    // The transaction of `old` is 82 days old now; 9 days on it is past the 90 days the list keeps.
    await advanceDays(h, 9);
    expect((await list()).items.map((r) => r.id)).toEqual([succeeded.id, failed.id]);
    await expectStatus(await w.client.get(`/v1/missing-transaction-requests/${old.id}`), 200);
  });
});
