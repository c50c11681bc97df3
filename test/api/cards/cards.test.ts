import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHarness, expectError, expectStatus, type Client, type Harness } from "../../support/harness.ts";
import { CARD_NUMBERS } from "../../support/fixtures.ts";

let h: Harness;
beforeAll(async () => {
  h = await createHarness(); // service clock frozen at 2026-01-05T12:00:00Z
});
afterAll(() => h.close());

type Card = Record<string, unknown> & { id: string; programId: string };

const program = async (client: Client) =>
  (await expectStatus<{ id: string }>(await client.post("/v1/programs", { name: "Cards" }), 201)).id;

const card = (number: string, extra: Record<string, unknown> = {}) => ({
  number,
  expMonth: 12,
  expYear: 2028,
  countryCode: "GBR",
  termsOfUse: true,
  ...extra,
});

describe("cards", () => {
  it("enrols a test card, keeping the first six and last four digits and the detected scheme", async () => {
    const client = (await h.createAccount()).as("test");
    const programId = await program(client);
    const created = await expectStatus<Card>(
      await client.post(`/v1/programs/${programId}/cards`, card("4444000000004008", { metadata: { userId: "u-1" } })),
      201,
    );
    expect(Object.keys(created).sort()).toEqual(
      [
        "id", "programId", "firstNumbers", "lastNumbers", "scheme", "expMonth", "expYear", "countryCode", "termsOfUse", "metadata",
        "status", "failure", "live", "created", "updated",
      ].sort(),
    );
    expect(created).toMatchObject({
      programId,
      firstNumbers: "444400",
      lastNumbers: "4008",
      scheme: "visa",
      expMonth: 12,
      expYear: 2028,
      countryCode: "GBR",
      termsOfUse: true,
      metadata: { userId: "u-1" },
      status: "linked",
      failure: null,
      live: false,
      created: "2026-01-05T12:00:00.000Z",
    });
    expect(await expectStatus<Card>(await client.get(`/v1/cards/${created.id}`), 200)).toEqual(created);
    for (const [number, scheme] of [
      ["5555000000005007", "mastercard"],
      ["340000000000306", "amex"],
      ["370000000000317", "amex"],
      ["4242424242424242", "visa"],
      ["5555555555554444", "mastercard"],
    ]) {
      const other = await expectStatus<Card>(await client.post(`/v1/programs/${programId}/cards`, card(number!)), 201);
      expect(other.scheme, number).toBe(scheme);
    }
  });

  it("records a failing test number as failed with its reason, tells card.linked or card.failed, and lets a failed card take part in nothing", async () => {
    const client = (await h.createAccount()).as("test");
    const programId = await program(client);
    const linked = await expectStatus<Card>(await client.post(`/v1/programs/${programId}/cards`, card("5555000000005007")), 201);
    const failed: Card[] = [];
    for (const [number, reason] of [
      ["4444000000004917", "issuer_declined"],
      ["5555000000005924", "card_not_supported"],
      ["370000000000390", "verification_failed"],
    ] as const) {
      const answer = await expectStatus<Card>(await client.post(`/v1/programs/${programId}/cards`, card(number)), 201);
      expect(answer, number).toMatchObject({ status: "failed", failure: { reason, message: expect.any(String) }, lastNumbers: number.slice(-4) });
      failed.push(answer);
    }
    // Each enrolment's event carries the card as answered.
    const events = async (event: string) =>
      (await expectStatus<{ items: { payload: { data: Card } }[] }>(await client.get(`/v1/programs/${programId}/webhook-events?event=${event}`), 200)).items
        .map((e) => e.payload.data)
        .sort((a, b) => (a.id < b.id ? -1 : 1));
    expect(await events("card.linked")).toEqual([linked]);
    expect(await events("card.failed")).toEqual([...failed].sort((a, b) => (a.id < b.id ? -1 : 1)));
    // Not linked: no purchase, no missing transaction request names it (409, saying why).
    const somewhere = "3f2b9c1e-8d4a-4b6e-9f1a-2c3d4e5f6a7b";
    expect(await expectError(await client.post("/v1/transactions/test", { cardId: failed[0]!.id, locationId: somewhere, amount: 10 }), 409, "conflict")).toMatch(
      /^cardId: the card .* failed enrolment \(issuer_declined\) and is not linked/,
    );
    await expectError(
      await client.post(`/v1/cards/${failed[1]!.id}/missing-transaction-requests`, { locationId: somewhere, transactionDate: "2026-01-04", amount: 10 }),
      409,
      "conflict",
    );
    // The network never knew it: only the linked card was sent to it.
    const told = await h.services.db.query<{ card_id: string }>(
      "select distinct value->>'cardId' as card_id from network_outbox where value->>'cardId' = any($1::text[])",
      [[linked, ...failed].map((c) => c.id)],
    );
    expect(told.map((t) => t.card_id)).toEqual([linked.id]);
    expect(await expectStatus<Card>(await client.get(`/v1/cards/${failed[2]!.id}`), 200)).toEqual(failed[2]);
    expect((await client.delete(`/v1/cards/${failed[2]!.id}`)).status).toBe(204);
  });

  it("never stores the full number anywhere in the database", async () => {
    const acct = await h.createAccount();
    const programId = await program(acct.as("live"));
    await expectStatus(await acct.as("live").post(`/v1/programs/${programId}/cards`, card(CARD_NUMBERS.live)), 201);
    const tables = await h.services.db.query<{ table_name: string }>(
      "select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'",
    );
    expect(tables.map((t) => t.table_name)).toContain("cards");
    for (const { table_name } of tables) {
      const rows = await h.services.db.query<{ row: string }>(`select t::text as row from "${table_name}" t`);
      for (const { row } of rows) expect(row, table_name).not.toContain(CARD_NUMBERS.live);
    }
    const [stored] = await h.services.db.query<Record<string, unknown>>("select * from cards where account_id = $1", [acct.id]);
    expect(stored).toMatchObject({ first_numbers: "400012", last_numbers: "9017", scheme: "visa" });
    expect(stored!.network_token).toMatch(/^ntk_[0-9A-Za-z]{32}$/);
  });

  it("accepts real-looking numbers with a live key and refuses the test numbers there", async () => {
    const acct = await h.createAccount();
    const live = acct.as("live");
    const programId = await program(live);
    const enrolled = await expectStatus<Card>(await live.post(`/v1/programs/${programId}/cards`, card("4000123456789017")), 201);
    expect(enrolled).toMatchObject({ live: true, scheme: "visa", firstNumbers: "400012", lastNumbers: "9017" });
    expect(
      await expectError(await live.post(`/v1/programs/${programId}/cards`, card("4444000000004008")), 400, "invalid_request"),
    ).toMatch(/^number: a live key does not accept test card numbers/);
    const testProgram = await program(acct.as("test"));
    expect(
      await expectError(await acct.as("test").post(`/v1/programs/${testProgram}/cards`, card("4000123456789017")), 400, "invalid_request"),
    ).toMatch(/^number: a test key accepts only test card numbers/);
  });

  it("names the field and the rule for every invalid input", async () => {
    const client = (await h.createAccount()).as("test");
    const programId = await program(client);
    const bad = async (body: unknown) =>
      expectError(await client.post(`/v1/programs/${programId}/cards`, body), 400, "invalid_request");
    expect(await bad({})).toMatch(/^number: required/);
    expect(await bad(card("4444000000004009"))).toMatch(/^number: fails the Luhn check/);
    expect(await bad(card("4444-0000-0000-4008"))).toMatch(/^number: must be 12 to 19 digits/);
    expect(await bad(card("6011111111111117"))).toMatch(/^number: is not a Visa, Mastercard or Amex/);
    expect(await bad(card(4444000000004008 as unknown as string))).toMatch(/^number:/);
    expect(await bad(card("4444000000004008", { expMonth: 13 }))).toMatch(/^expMonth: must be 1 to 12/);
    expect(await bad(card("4444000000004008", { expMonth: 1.5 }))).toMatch(/^expMonth: must be a whole number/);
    expect(await bad(card("4444000000004008", { expYear: 28 }))).toMatch(/^expYear: must be a four-digit year/);
    // The frozen service clock is in January 2026.
    expect(await bad(card("4444000000004008", { expMonth: 12, expYear: 2025 }))).toMatch(/^expYear: the card expired/);
    expect(await bad(card("4444000000004008", { countryCode: "GB" }))).toMatch(/^countryCode: must be an ISO 3166-1 alpha-3/);
    expect(await bad(card("4444000000004008", { countryCode: "XYZ" }))).toMatch(/^countryCode:/);
    expect(await bad(card("4444000000004008", { termsOfUse: false }))).toMatch(/^termsOfUse: must be true/);
    expect(await bad(card("4444000000004008", { termsOfUse: undefined }))).toMatch(/^termsOfUse: required/);
    expect(await bad(card("4444000000004008", { cvc: "123" }))).toMatch(/cvc: unknown field/);
    expect(await bad(card("4444000000004008", { metadata: [1] }))).toMatch(/^metadata:/);
    const message = await bad(card("4444000000004009"));
    expect(message).not.toContain("4444000000004009");
    expect(await expectError(await client.get("/v1/cards/123"), 400, "invalid_request")).toMatch(/^cardId: must be a UUID/);
  });

  it("accepts a card expiring in the current month of the service clock", async () => {
    const client = (await h.createAccount()).as("test");
    const programId = await program(client);
    await expectStatus(await client.post(`/v1/programs/${programId}/cards`, card("4444000000004008", { expMonth: 1, expYear: 2026 })), 201);
  });

  it("lists a program's cards in pages and deletes a card", async () => {
    const client = (await h.createAccount()).as("test");
    const programId = await program(client);
    const otherProgram = await program(client);
    const ids: string[] = [];
    for (const number of ["4444000000004008", "5555000000005007", "340000000000306"]) {
      ids.push((await expectStatus<Card>(await client.post(`/v1/programs/${programId}/cards`, card(number)), 201)).id);
    }
    await expectStatus(await client.post(`/v1/programs/${otherProgram}/cards`, card("4242424242424242")), 201);
    const first = await expectStatus<{ items: Card[]; count: number; last?: string }>(
      await client.get(`/v1/programs/${programId}/cards?limit=2`),
      200,
    );
    expect(first.count).toBe(3);
    expect(first.items).toHaveLength(2);
    const second = await expectStatus<{ items: Card[]; last?: string }>(
      await client.get(`/v1/programs/${programId}/cards?limit=2&start=${first.last}`),
      200,
    );
    expect(second.last).toBeUndefined();
    expect([...first.items, ...second.items].map((c) => c.id).sort()).toEqual([...ids].sort());

    const res = await client.delete(`/v1/cards/${ids[0]}`);
    expect(res.status).toBe(204);
    expect(await res.text()).toBe("");
    await expectError(await client.get(`/v1/cards/${ids[0]}`), 404, "resource_not_found");
    await expectError(await client.delete(`/v1/cards/${ids[0]}`), 404, "resource_not_found");
    expect((await expectStatus<{ count: number }>(await client.get(`/v1/programs/${programId}/cards`), 200)).count).toBe(2);
  });

  it("keeps cards to their account and environment", async () => {
    const owner = await h.createAccount();
    const stranger = await h.createAccount();
    const programId = await program(owner.as("test"));
    const created = await expectStatus<Card>(await owner.as("test").post(`/v1/programs/${programId}/cards`, card("4444000000004008")), 201);
    await expectError(await stranger.as("test").get(`/v1/cards/${created.id}`), 404, "resource_not_found");
    await expectError(await stranger.as("test").delete(`/v1/cards/${created.id}`), 404, "resource_not_found");
    await expectError(await owner.as("live").get(`/v1/cards/${created.id}`), 404, "resource_not_found");
    await expectError(await stranger.as("test").get(`/v1/programs/${programId}/cards`), 404, "resource_not_found");
    // Another account's program is a 404 even when the body is invalid.
    await expectError(await stranger.as("test").post(`/v1/programs/${programId}/cards`, {}), 404, "resource_not_found");
    await expectError(await owner.as("live").post(`/v1/programs/${programId}/cards`, card(CARD_NUMBERS.live)), 404, "resource_not_found");
    await expectStatus(await owner.as("test").get(`/v1/cards/${created.id}`), 200);
  });
});
