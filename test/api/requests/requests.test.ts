// The request log over HTTP: a 400 found again by its Request-Id with the body it sent (card number masked),
// secrets masked, bodies cut to the bound, the filters, the cursor and the follower's `after`/`wait`, the
// webhooks a request caused, one tenant and one environment never seeing another's, and the prune on each
// environment's own clock.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHarness, expectError, expectStatus, type Client, type Harness } from "../../support/harness.ts";
import { CARD_NUMBERS } from "../../support/fixtures.ts";
import type { RequestRecord } from "../../../src/services/request-log/index.ts";
import { BODY_LIMIT } from "../../../src/domain/request-log.ts";

interface Page<T> {
  items: T[];
  count: number;
  last?: string;
}

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

/** The records the writer holds, written now: what a reader sees a moment after the answers. */
const written = () => h.services.requestLog.flush();

const requestIdOf = (res: Response) => {
  const id = res.headers.get("Request-Id");
  if (!id) throw new Error("no Request-Id header");
  return id;
};

async function logged(client: Client, id: string): Promise<RequestRecord> {
  await written();
  return expectStatus<RequestRecord>(await client.get(`/v1/requests/${id}`), 200);
}

async function listed(client: Client, query = ""): Promise<Page<RequestRecord>> {
  await written();
  return expectStatus<Page<RequestRecord>>(await client.get(`/v1/requests${query}`), 200);
}

const card = (number: string) => ({ number, expMonth: 12, expYear: 2030, countryCode: "GBR", termsOfUse: true });

async function programOf(client: Client): Promise<string> {
  return (await expectStatus<{ id: string }>(await client.post("/v1/programs", { name: "Logged program" }), 201)).id;
}

describe("the request log", () => {
  it("finds a 400 again by the Request-Id of its answer, with the body it sent (card number masked) and the answer", async () => {
    const account = await h.createAccount();
    const client = account.as("test");
    const programId = await programOf(client);
    const refused = await client.post(`/v1/programs/${programId}/cards`, card("4444000000004009"));
    const message = await expectError(refused.clone(), 400, "invalid_request");
    const id = requestIdOf(refused);
    const record = await logged(client, id);
    expect(record).toMatchObject({
      id,
      method: "POST",
      path: `/v1/programs/${programId}/cards`,
      query: null,
      status: 400,
      errorCode: "invalid_request",
      live: false,
      source: "api",
      resourceId: null,
      created: "2026-01-05T12:00:00.000Z",
      request: { truncated: false },
      response: { truncated: false },
    });
    expect(record.latencyMs).toBeGreaterThanOrEqual(0);
    expect(JSON.parse(record.request.body!)).toEqual({ ...card("4444000000004009"), number: "************4009" });
    expect(JSON.parse(record.response.body!)).toEqual({ error: { code: "invalid_request", message, requestId: id } });
    // The key it presented, by id (the operator's list of the account's keys).
    const keys = await expectStatus<{ items: { id: string; environment: string }[] }>(await h.admin("GET", `/admin/accounts/${account.id}/keys`), 200);
    expect(record.keyId).toBe(keys.items.find((k) => k.environment === "test")!.id);

    // A card that is enrolled: its number is masked in the request, and the answer never had it.
    const enrolled = await client.post(`/v1/programs/${programId}/cards`, card(CARD_NUMBERS.test));
    const cardId = (await expectStatus<{ id: string }>(enrolled.clone(), 201)).id;
    const ok = await logged(client, requestIdOf(enrolled));
    expect(ok).toMatchObject({ status: 201, errorCode: null, resourceId: cardId });
    expect(ok.request.body).toContain('"number":"************4008"');
    expect(`${ok.request.body}${ok.response.body}`).not.toContain(CARD_NUMBERS.test);
  });

  it("masks secrets: the keys a new sandbox is answered with, a hook's signing secret sent and answered", async () => {
    const account = await h.createAccount();
    const client = account.as("test");
    const made = await client.post("/v1/sandboxes", { name: "masked" });
    const sandbox = await expectStatus<{ keys: { test: string; live: string } }>(made.clone(), 201);
    const record = await logged(client, requestIdOf(made));
    expect(record.response.body).not.toContain(sandbox.keys.test);
    expect(record.response.body).not.toContain(sandbox.keys.live);
    expect(record.response.body).toContain(`"test":"sk_test_****${sandbox.keys.test.slice(-4)}"`);

    const programId = await programOf(client);
    const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwMfKQ9r8GKYo=";
    const hook = await client.post(`/v1/programs/${programId}/hooks`, { event: "transaction.auth", url: "http://127.0.0.1:4000/hook", secret });
    await expectStatus(hook.clone(), 201);
    const hookRecord = await logged(client, requestIdOf(hook));
    expect(`${hookRecord.request.body}${hookRecord.response.body}`).not.toContain("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");
    expect(hookRecord.request.body).toContain('"secret":"****"');
  });

  it("keeps the first 16 KiB of a long body and says it is cut", async () => {
    const account = await h.createAccount();
    const res = await account.as("test").post("/v1/programs", { name: "n".repeat(BODY_LIMIT * 2) });
    await expectError(res.clone(), 400, "invalid_request");
    const record = await logged(account.as("test"), requestIdOf(res));
    expect(record.request.truncated).toBe(true);
    expect(record.request.body).toHaveLength(BODY_LIMIT);
    expect(record.request.body!.startsWith('{"name":"nnn')).toBe(true);
    expect(record.response.truncated).toBe(false);
  });

  it("lists newest first with filters by status, class, method, path and time, pages with the cursor, and reads oldest first", async () => {
    const account = await h.createAccount();
    const client = account.as("test");
    const programId = await programOf(client);
    await client.get(`/v1/programs/${programId}`);
    await client.post(`/v1/programs/${programId}/cards`, card("4444000000004009"));
    await client.get("/v1/nothing-here");
    await client.get("/v1/programs?limit=1");

    const all = await listed(client);
    expect(all.items.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      "GET /v1/programs 200",
      "GET /v1/nothing-here 404",
      `POST /v1/programs/${programId}/cards 400`,
      `GET /v1/programs/${programId} 200`,
      "POST /v1/programs 201",
    ]);
    expect(all.items[0]!.query).toBe("limit=1");
    expect((await listed(client, "?status=4xx")).items.map((r) => r.status)).toEqual([404, 400]);
    expect((await listed(client, "?status=404")).items.map((r) => r.errorCode)).toEqual(["route_not_found"]);
    expect((await listed(client, "?method=POST")).count).toBe(2);
    expect((await listed(client, "?path=/v1/programs")).count).toBe(4);
    expect((await listed(client, "?path=/v1/programs/*/cards")).items.map((r) => r.status)).toEqual([400]);
    expect((await listed(client, "?since=2026-01-05T12:00:00Z&until=2026-01-05T12:00:01Z")).count).toBe(5);
    expect((await listed(client, "?since=2026-01-05T12:00:01Z")).count).toBe(0);

    const first = await listed(client, "?limit=2");
    expect(first).toMatchObject({ count: 5, items: all.items.slice(0, 2) });
    const second = await listed(client, `?limit=2&start=${first.last}`);
    expect(second.items).toEqual(all.items.slice(2, 4));
    expect((await listed(client, "?order=asc")).items).toEqual([...all.items].reverse());
    // Reading the log is not logged: none of these reads is in it.
    expect((await listed(client)).count).toBe(5);
  });

  it("follows the log: `after` gives what was written since, and `wait` answers as soon as a request is written", async () => {
    const account = await h.createAccount();
    const client = account.as("test");
    const anchor = requestIdOf(await client.get("/v1/account"));
    await written();
    expect((await listed(client, `?order=asc&after=${anchor}`)).items).toEqual([]);

    // A long-poll of up to 30 s, answered by the request made while it waits.
    const polling = client.get(`/v1/requests?order=asc&after=${anchor}&wait=30`);
    const made = requestIdOf(await client.get("/v1/programs"));
    const page = await expectStatus<Page<RequestRecord>>(await polling, 200);
    expect(page.items.map((r) => r.id)).toEqual([made]);
    expect((await listed(client, `?order=asc&after=${made}`)).count).toBe(0);
  });

  it("answers 400 naming the filter that cannot be used", async () => {
    const client = (await h.createAccount()).as("test");
    expect(await expectError(await client.get("/v1/requests?status=4x"), 400, "invalid_request")).toMatch(/^status: /);
    expect(await expectError(await client.get("/v1/requests?wait=5"), 400, "invalid_request")).toMatch(/^wait: needs after/);
    expect(await expectError(await client.get("/v1/requests?wait=31&after=req_x"), 400, "invalid_request")).toMatch(/^wait: /);
    expect(await expectError(await client.get("/v1/requests?after=req_unknown0000000"), 400, "invalid_request")).toMatch(/^after: no request req_unknown0000000/);
    expect(await expectError(await client.get("/v1/requests?since=2026-01-05T12:00:00Z&until=2026-01-05T11:00:00Z"), 400, "invalid_request")).toBe(
      "until: must be after since",
    );
    expect(await expectError(await client.get("/v1/requests/not-a-request-id"), 400, "invalid_request")).toMatch(/^requestLogId: /);
  });

  it("keeps each tenant's and environment's records to itself; a sandbox's requests are the sandbox's", async () => {
    const owner = await h.createAccount();
    const stranger = await h.createAccount();
    const id = requestIdOf(await owner.as("test").get("/v1/account"));
    await written();
    await expectError(await stranger.as("test").get(`/v1/requests/${id}`), 404, "resource_not_found");
    await expectError(await owner.as("live").get(`/v1/requests/${id}`), 404, "resource_not_found");
    expect((await listed(stranger.as("test"))).count).toBe(0);
    expect((await listed(owner.as("live"))).count).toBe(0);
    await expectError(await stranger.as("test").get(`/v1/requests?after=${id}`), 400, "invalid_request");

    const sandbox = await expectStatus<{ id: string; keys: { test: string } }>(await owner.as("test").post("/v1/sandboxes", { name: "logged" }), 201);
    const viaHeader = requestIdOf(await h.clientWithKey(owner.keys.test, { "Cardlink-Sandbox": sandbox.id }).get("/v1/programs"));
    const withOwnKey = requestIdOf(await h.clientWithKey(sandbox.keys.test).get("/v1/account"));
    const inSandbox = await listed(h.clientWithKey(sandbox.keys.test));
    expect(inSandbox.items.map((r) => r.id)).toEqual([withOwnKey, viaHeader]);
    await expectError(await owner.as("test").get(`/v1/requests/${viaHeader}`), 404, "resource_not_found");
    expect((await listed(owner.as("test"))).items.map((r) => r.path)).toEqual(["/v1/sandboxes", "/v1/account"]);
  });

  it("links the webhook events a request caused: a test location's location.status events", async () => {
    const account = await h.createAccount();
    const client = account.as("test");
    const programId = await programOf(client);
    const brandId = (await expectStatus<{ id: string }>(await client.post("/v1/brands", { name: "Linked brand" }), 201)).id;
    const created = await client.post(`/v1/programs/${programId}/locations`, { brandId, address: "1 Log Street", city: "London", postcode: "E1 6AN", countryCode: "GBR" });
    const locationId = (await expectStatus<{ id: string }>(created.clone(), 201)).id;
    const record = await logged(client, requestIdOf(created));
    expect(record.resourceId).toBe(locationId);
    const events = await expectStatus<Page<{ event: string; payload: { data: { location: { id: string }; scheme: string } } }>>(
      await client.get(`/v1/requests/${record.id}/webhook-events`),
      200,
    );
    expect(events.count).toBe(3);
    expect(events.items.map((e) => [e.event, e.payload.data.location.id]).sort()).toEqual(Array(3).fill(["location.status", locationId]));
    // A read caused nothing.
    const read = await logged(client, requestIdOf(await client.get(`/v1/locations/${locationId}`)));
    expect(await expectStatus(await client.get(`/v1/requests/${read.id}/webhook-events`), 200)).toEqual({ items: [], count: 0 });
  });

  // Last: it moves the service clock of the whole harness.
  it("prunes records past the retention of their own environment's time: the service clock's, a sandbox's own", async () => {
    const account = await h.createAccount();
    // A sandbox whose time runs eight days behind the service clock's.
    const behind = await expectStatus<{ keys: { test: string } }>(
      await account.as("test").post("/v1/sandboxes", { name: "behind", clock: { at: "2025-12-28T12:00:00Z" }, expiresIn: 30 * 86_400 }),
      201,
    );
    const inside = h.clientWithKey(behind.keys.test);
    const own = requestIdOf(await account.as("test").get("/v1/account"));
    const sandboxed = requestIdOf(await inside.get("/v1/account"));
    expect((await logged(inside, sandboxed)).created).toBe("2025-12-28T12:00:00.000Z");
    // A sweep now: the sandbox's record is eight days before the service time but new in its own.
    await expectStatus(await h.admin("POST", "/admin/clock/advance", { seconds: 1 }), 200);
    await expectStatus(await inside.get(`/v1/requests/${sandboxed}`), 200);
    await expectStatus(await account.as("test").get(`/v1/requests/${own}`), 200);
    // Seven days and a bit later, both are past the retention of their environment's time.
    await expectStatus(await h.admin("POST", "/admin/clock/advance", { days: 7, minutes: 1 }), 200);
    await expectError(await inside.get(`/v1/requests/${sandboxed}`), 404, "resource_not_found");
    await expectError(await account.as("test").get(`/v1/requests/${own}`), 404, "resource_not_found");
  });
});
