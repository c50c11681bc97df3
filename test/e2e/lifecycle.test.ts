// End to end: the live location sync and missing transaction requests travel from the API over the bus
// to the scheme simulators and back through the lifecycle workers and the dispatcher to a real local
// receiver that verifies Standard Webhooks signatures. On the embedded defaults, and on the real
// PostgreSQL and Kafka when they are there.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import { expectError, expectStatus, type Harness } from "../support/harness.ts";
import type { Receiver } from "../support/receiver.ts";
import { advanceDays, world, type World } from "../support/offers-world.ts";
import { insightsClient } from "../support/mid-insights.ts";
import { SHAPES, startEndToEnd } from "../support/end-to-end.ts";

type Scheme = "visa" | "mastercard" | "amex";
type NetworkState = { status: string; mids: Record<string, string>[]; case?: { id: string; reason: string; opened: string } };
type Location = { id: string; status: Record<Scheme, NetworkState> };
type Program = { id: string; status: string; sync: null | { id: string; status: string; locations: number; ended: string | null; requests: Record<string, number> } };
type Event = { id: string; event: string; data: Record<string, unknown> & { location?: Location; scheme?: Scheme; status?: string; id?: string } };
type MissingRequest = { id: string; status: string; estimatedCompletionDate: string; result: null | { transactions?: Record<string, unknown>[]; error?: { code: string } } };

const SCHEMES: Scheme[] = ["visa", "mastercard", "amex"];
const EVENTS = ["location.status", "missing-transaction-request.succeeded", "missing-transaction-request.failed"];

describe.each(SHAPES)("the network lifecycle end to end ($engine, $bus)", (shape) => {
  let h: Harness;
  let receiver: Receiver;
  let stop: () => Promise<void>;

  beforeAll(async () => {
    ({ h, receiver, stop } = await startEndToEnd(shape));
  });
  afterAll(() => stop());

  /** A live world of a premium account, with a hook for every lifecycle event and their secrets. */
  async function liveWorld(): Promise<World & { secrets: Record<string, string> }> {
    const w = await world(h, "live");
    await expectStatus(await h.admin("PATCH", `/admin/accounts/${w.acct.id}`, { tier: "premium" }), 200);
    const secrets: Record<string, string> = {};
    for (const event of EVENTS) {
      secrets[event] = (await expectStatus<{ secret: string }>(await w.client.post(`/v1/programs/${w.programId}/hooks`, { event, url: receiver.url }), 201)).secret;
    }
    return { ...w, secrets };
  }

  /** The verified webhooks of the program that match `where`, waiting until there are `count` (or 30 s). */
  async function events(w: { programId: string; secrets: Record<string, string> }, count: number, where: (e: Event) => boolean): Promise<Event[]> {
    const matching = () =>
      receiver.received
        .map((raw) => ({ raw, body: JSON.parse(raw.body) as Event }))
        .filter(({ body }) => where(body))
        .map(({ raw, body }) => {
          expect(new Webhook(w.secrets[body.event]!).verify(raw.body, raw.headers as Record<string, string>)).toEqual(body);
          return body;
        });
    const deadline = Date.now() + 30_000;
    while (matching().length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    return matching();
  }
  const ofLocation = (id: string) => (e: Event) => e.event === "location.status" && e.data.location?.id === id;

  const getLocation = async (w: World, id: string) => expectStatus<Location>(await w.client.get(`/v1/locations/${id}`), 200);
  const getProgram = async (w: World) => expectStatus<Program>(await w.client.get(`/v1/programs/${w.programId}`), 200);
  const newLocation = async (w: World, body: Record<string, unknown> = {}) =>
    expectStatus<Location>(
      await w.client.post(`/v1/programs/${w.programId}/locations`, { address: "9 Station Road", brandId: w.brandId, city: "York", countryCode: "GBR", postcode: "YO1 6GA", ...body }),
      201,
    );

  it("syncs a live program: PATCH, onboarding over the bus, Active after the networks' 1 to 2 weeks, events, MID insights with their origin", { timeout: 120_000 }, async () => {
    const w = await liveWorld();
    const supplied = { visa: [{ vmid: "12345678", vsid: "7654321" }], mastercard: [{ mcLocationId: "424242" }], amex: [{ seNumber: "1234567890" }] };
    const withMids = await newLocation(w, { mids: supplied });
    for (const scheme of SCHEMES) expect((await getLocation(w, w.locationId)).status[scheme].status).toBe("Idle");

    const started = await expectStatus<Program>(await w.client.patch(`/v1/programs/${w.programId}`, { status: "syncing" }), 200);
    expect(started).toMatchObject({ status: "syncing", sync: { status: "running", locations: 2, ended: null, requests: { total: 6, pending: 6, active: 0, notFound: 0 } } });
    for (const scheme of SCHEMES) expect((await getLocation(w, w.locationId)).status[scheme].status).toBe("Syncing");
    // One sync at a time: a second PATCH names the running one; a location added now waits for the next sync.
    const refused = await expectError(await w.client.patch(`/v1/programs/${w.programId}`, { status: "syncing" }), 409, "conflict");
    expect(refused).toContain(`sync ${started.sync!.id} of this program is running`);
    expect(await expectError(await w.client.post(`/v1/programs/${w.programId}/locations`, { address: "3 Mill Lane", brandId: w.brandId, city: "York", countryCode: "GBR", postcode: "YO1 6GA", status: "syncing" }), 409, "conflict")).toContain(started.sync!.id);
    const later = await newLocation(w);

    // Client MIDs make it the shortest sync: a week. The other location's answers take longer.
    await advanceDays(h, 7);
    const fast = await events(w, 3, ofLocation(withMids.id));
    expect(fast.map((e) => [e.data.scheme, e.data.status]).sort()).toEqual(SCHEMES.map((s) => [s, "location.active"]).sort());
    expect((await getProgram(w)).sync!.requests).toMatchObject({ pending: 3, active: 3 });
    const location = await getLocation(w, withMids.id);
    expect(location.status.visa).toMatchObject({ status: "Active", mids: [expect.objectContaining(supplied.visa[0])] });
    expect(location.status.amex).toMatchObject({ status: "Active", mids: [{ seNumber: "1234567890" }] });

    await advanceDays(h, 8);
    const slow = await events(w, 3, ofLocation(w.locationId));
    expect(slow.map((e) => [e.data.scheme, e.data.status]).sort()).toEqual(SCHEMES.map((s) => [s, "location.active"]).sort());
    const done = await getProgram(w);
    expect(done).toMatchObject({ status: "idle", sync: { id: started.sync!.id, status: "completed", requests: { total: 6, pending: 0, active: 6 } } });
    expect((await getLocation(w, later.id)).status.visa.status).toBe("Idle");
    const active = await getLocation(w, w.locationId);
    expect(active.status.visa.mids).toEqual([
      { vmid: expect.stringMatching(/^\d{8}$/), vsid: expect.stringMatching(/^\d{7,8}$/), visaAcquiringMid: expect.stringMatching(/^\d{15}$/), visaBin: expect.stringMatching(/^4\d{5}$/) },
    ]);
    expect(active.status.amex.mids).toEqual([{ seNumber: expect.stringMatching(/^\d{10}$/) }]);

    type Insight = { locationId: string; scheme: string; status: string; origin: string; onboardedAt: string; sourcedAt: string; vmid?: string; seNumber?: string };
    const insights = (await expectStatus<{ items: Insight[] }>(await insightsClient(h, w.acct.keys.live).get(`/v1/programs/${w.programId}/mid-insights`), 200)).items;
    expect(insights).toHaveLength(6);
    for (const i of insights) expect(i).toMatchObject({ status: "onboarded", onboardedAt: expect.any(String) });
    expect(insights.filter((i) => i.locationId === w.locationId).map((i) => i.origin)).toEqual(["address-match", "address-match", "address-match"]);
    expect(insights.filter((i) => i.locationId === withMids.id).map((i) => i.origin)).toEqual(["customer-provided-mid", "customer-provided-mid", "customer-provided-mid"]);
    expect(insights.find((i) => i.locationId === withMids.id && i.scheme === "visa")).toMatchObject({ vmid: "12345678" });

    // The next sync takes what was Idle: the onboarding-failure fault makes Mastercard open a case, and an
    // address with no street number is found by no network.
    await h.services.simulators.setFaults("mastercard", { onboardingFailureRate: 1 });
    try {
      const nowhere = await newLocation(w, { address: "Station Road" });
      await expectStatus(await w.client.patch(`/v1/programs/${w.programId}`, { status: "syncing" }), 200);
      await advanceDays(h, 15);
      const answers = await events(w, 3, ofLocation(later.id));
      expect(answers.map((e) => [e.data.scheme, e.data.status]).sort()).toEqual([
        ["amex", "location.active"],
        ["mastercard", "location.failed"],
        ["visa", "location.active"],
      ]);
      const failed = await getLocation(w, later.id);
      expect(failed.status.mastercard).toMatchObject({ status: "Not found", mids: [], case: { id: expect.any(String), reason: expect.stringContaining("onboarding failure"), opened: expect.any(String) } });
      expect(failed.status.visa.case).toBeUndefined();
      expect((await events(w, 3, ofLocation(nowhere.id))).map((e) => e.data.status)).toEqual(["location.failed", "location.failed", "location.failed"]);
      expect((await getLocation(w, nowhere.id)).status.amex.case!.reason).toContain("no street or unit number");
      expect((await getProgram(w)).sync).toMatchObject({ status: "completed", locations: 2, requests: { total: 6, active: 2, notFound: 4 } });
      const mcInsights = await expectStatus<{ count: number }>(await insightsClient(h, w.acct.keys.live).get(`/v1/programs/${w.programId}/mid-insights?locationId=${later.id}&select=count`), 200);
      expect(mcInsights.count).toBe(2);
    } finally {
      await h.services.simulators.clearFaults("mastercard");
    }
  });

  it("keeps a live request pending until 4 days after the transaction, then the network answers from a purchase it made", { timeout: 120_000 }, async () => {
    const w = await liveWorld();
    const day = (offsetDays: number) => new Date(h.services.clock.now().getTime() + offsetDays * 86_400_000).toISOString().slice(0, 10);
    // A purchase the Visa network really made at the (not yet synced) location, as network traffic would.
    const card = await expectStatus<{ firstNumbers: string; lastNumbers: string }>(await w.client.get(`/v1/cards/${w.cardId}`), 200);
    await h.services.simulators.purchase({
      scheme: "visa",
      card: { id: w.cardId, firstSix: card.firstNumbers, lastFour: card.lastNumbers },
      location: { id: w.locationId, name: "Coffee House", address: "1 High Street", city: "London", postcode: "SW1A 1AA", countryCode: "GBR" },
      amount: 23.4,
      datetime: `${day(-1)}T10:15:00`,
    });
    // The network has authorised it (on Kafka the command takes a moment) before the clock moves.
    const deadline = Date.now() + 30_000;
    while ((await h.services.db.query("select 1 from simulator_purchases where card_id = $1", [w.cardId])).length === 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 25));
    }

    const ask = (body: Record<string, unknown>) =>
      w.client.post(`/v1/cards/${w.cardId}/missing-transaction-requests`, { locationId: w.locationId, transactionDate: day(-1), amount: 23.4, ...body });
    const created = await expectStatus<MissingRequest>(await ask({}), 201);
    expect(created).toMatchObject({ status: "pending", result: null, estimatedCompletionDate: `${day(3)}T00:00:00.000Z` });
    await advanceDays(h, 2);
    expect((await expectStatus<MissingRequest>(await w.client.get(`/v1/missing-transaction-requests/${created.id}`), 200)).status).toBe("pending");
    await advanceDays(h, 2);

    const [succeeded] = await events(w, 1, (e) => e.event === "missing-transaction-request.succeeded" && e.data.id === created.id);
    expect(succeeded!.data).toMatchObject({ id: created.id, status: "successful" });
    const answered = await expectStatus<MissingRequest>(await w.client.get(`/v1/missing-transaction-requests/${created.id}`), 200);
    // It cleared 48 to 72 hours after the auth: Visa reports the settlement and the authorization.
    expect(answered.result!.transactions!.map((t) => t.type)).toEqual(["settlement", "authorization"]);
    expect(answered.result!.transactions![0]).toMatchObject({ amount: 23.4, date: day(-5), networkStatus: "SUCCEED", matchScore: 100, type: "settlement", vmid: expect.stringMatching(/^\d{8}$/) });
    const vmid = answered.result!.transactions![0]!.vmid as string;
    // The MID the look-up found is the location's now, and a MID insight with its origin.
    expect((await getLocation(w, w.locationId)).status.visa.mids).toEqual([expect.objectContaining({ vmid })]);
    const insights = await expectStatus<{ items: Record<string, unknown>[] }>(await insightsClient(h, w.acct.keys.live).get(`/v1/programs/${w.programId}/mid-insights?origin=missing-transaction-lookup`), 200);
    expect(insights.items).toEqual([expect.objectContaining({ locationId: w.locationId, vmid, origin: "missing-transaction-lookup", sourcedAt: expect.any(String) })]);

    // Older than 4 days: processing at once. Nothing at that amount: transaction-not-found.
    const none = await expectStatus<MissingRequest>(await ask({ transactionDate: day(-6), amount: 99 }), 201);
    expect(none.status).toBe("processing");
    const [notFound] = await events(w, 1, (e) => e.event === "missing-transaction-request.failed" && e.data.id === none.id);
    expect(notFound!.data).toMatchObject({ status: "failed", result: { error: { code: "transaction-not-found" } } });

    // A look-up error at the network: network-request-failed.
    await h.services.simulators.setFaults("visa", { lookupErrorRate: 1 });
    try {
      const broken = await expectStatus<MissingRequest>(await ask({ transactionDate: day(-6) }), 201);
      const [failed] = await events(w, 1, (e) => e.event === "missing-transaction-request.failed" && e.data.id === broken.id);
      expect(failed!.data).toMatchObject({ status: "failed", result: { error: { code: "network-request-failed" } } });
    } finally {
      await h.services.simulators.clearFaults("visa");
    }
  });
});
