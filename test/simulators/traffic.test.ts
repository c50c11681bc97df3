// Generated traffic through /admin: a run at a rate over the cards and locations the networks learnt of over the bus, with its
// noise, what it reports it sent, the same stream again for the same seed, and a run that survives a
// restart of the simulators without repeating or skipping purchases.
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { VisaTransaction } from "../../src/platform/bus/messages.ts";
import { transactionTopic } from "../../src/platform/bus/topics.ts";
import { startSimulators } from "../../simulators/host/hub.ts";
import type { TrafficStatus } from "../../src/services/simulator-control/control.ts";
import { expectError, expectStatus, type Client } from "../support/harness.ts";
import { readTopic, simulatorHarness, waitFor, type SimulatorHarness, type TopicReader } from "./helpers.ts";

let h: SimulatorHarness;
let visa: TopicReader<VisaTransaction>;
let programId: string;
let cardId: string;
let activeLocation: string;
let syncingLocation: string;

async function population(client: Client, live: boolean) {
  const program = await expectStatus<{ id: string }>(await client.post("/v1/programs", { name: "Traffic program" }), 201);
  const brand = await expectStatus<{ id: string }>(await client.post("/v1/brands", { name: "Corner Café" }), 201);
  await expectStatus(await h.admin("POST", `/admin/brands/${brand.id}/consent`, { decision: "approved" }), 200);
  const location = await expectStatus<{ id: string }>(
    // A live location the network knows from its onboarding request, not onboarded yet (the answer takes 1-2 weeks).
    await client.post(`/v1/programs/${program.id}/locations`, {
      address: "1 High Street",
      brandId: brand.id,
      city: "London",
      countryCode: "GBR",
      postcode: "N1 9GU",
      ...(live ? { status: "syncing" } : {}),
    }),
    201,
  );
  const card = await expectStatus<{ id: string }>(
    await client.post(`/v1/programs/${program.id}/cards`, {
      number: live ? "4000123456789017" : "4444000000004008",
      expMonth: 12,
      expYear: 2030,
      countryCode: "GBR",
      termsOfUse: true,
    }),
    201,
  );
  return { programId: program.id, locationId: location.id, cardId: card.id };
}

beforeAll(async () => {
  h = await simulatorHarness(["visa", "mastercard", "amex"], 3);
  visa = await readTopic(h, transactionTopic("visa"));
  const account = await h.createAccount();
  // The networks know the service's cards and locations only from the bus: enrolments, and onboarding
  // requests — answered at once for a test location, after 1 to 2 weeks for a live one.
  const test = await population(account.as("test"), false);
  const live = await population(account.as("live"), true);
  await waitFor(async () => {
    const known = await h.services.db.query<{ onboarded: boolean }>(
      "select onboarded from simulator_merchants where scheme = 'visa' and location_id = any($1::uuid[])",
      [[test.locationId, live.locationId]],
    );
    const cards = await h.services.db.query("select 1 from simulator_cards where scheme = 'visa' and card_id = any($1)", [[test.cardId, live.cardId]]);
    return known.filter((m) => m.onboarded).length === 1 && known.length === 2 && cards.length === 2;
  });
  programId = test.programId;
  cardId = test.cardId;
  activeLocation = test.locationId;
  syncingLocation = live.locationId;
});
afterAll(() => h.close());

const start = async (body: Record<string, unknown>) => expectStatus<TrafficStatus>(await h.admin("POST", "/admin/simulators/traffic/start", body), 201);
const status = async () => expectStatus<TrafficStatus>(await h.admin("GET", "/admin/simulators/traffic"), 200);
const ofRun = (status: TrafficStatus) => status.run!.id;
const authsOf = (ids: Set<string>) => visa.values.filter((v) => v.messageType === "AUTH" && ids.has(v.messageId));

async function runAuths(runId: string): Promise<VisaTransaction[]> {
  const rows = await h.services.db.query<{ message_id: string }>(
    "select m.message_id from simulator_messages m join simulator_purchases p on p.id = m.purchase_id where p.run_id = $1 and m.kind = 'auth' and p.scheme = 'visa'",
    [runId],
  );
  const ids = new Set(rows.map((r) => r.message_id));
  await waitFor(() => authsOf(ids).length === ids.size);
  return authsOf(ids);
}

describe("traffic runs", () => {
  it("refuses bad options, naming the field", async () => {
    const bad = async (body: unknown) => expectError(await h.admin("POST", "/admin/simulators/traffic/start", body), 400, "invalid_request");
    expect(await bad({ seed: 1 })).toBe("rate: required");
    expect(await bad({ rate: 0, seed: 1 })).toBe("rate: must be greater than 0");
    expect(await bad({ rate: 5, seed: 1.5 })).toBe("seed: must be a whole number");
    // A seed the bus cannot carry exactly is refused up front (schemathesis found the 500 it caused).
    expect(await bad({ rate: 5, seed: Number.MAX_SAFE_INTEGER })).toBe("seed: must be at most 4503599627370496");
    expect(await bad({ rate: 5, seed: 1, schemes: ["discover"] })).toBe("schemes.0: must be visa, mastercard or amex");
    expect(await bad({ rate: 5, seed: 1, unknownMerchants: 0.6, notOnboardedLocations: 0.6 })).toBe(
      "notOnboardedLocations: unknownMerchants + notOnboardedLocations must be at most 1",
    );
    expect(await bad({ rate: 5, seed: 1, refunds: 0.6, partialClearings: 0.5 })).toBe(
      "expiries: voids + refunds + partialClearings + multipleClearings + clearingsWithoutAuth + tips + expiries must be at most 1",
    );
    expect(await bad({ rate: 5, seed: 1, unreferencedRefunds: 1.5 })).toBe("unreferencedRefunds: must be between 0 and 1");
    expect(await bad({ rate: 5, seed: 1, speed: 2 })).toBe("speed: unknown field");
  });

  it("sends rate × duration purchases over the enrolled cards and onboarded locations, and counts what it sent", async () => {
    const started = await start({
      rate: 40,
      seed: 11,
      durationSeconds: 0.5,
      schemes: ["visa", "amex"],
      programId,
      unenrolledCards: 0,
      unknownMerchants: 0,
      notOnboardedLocations: 0,
    });
    expect(started.run).toMatchObject({ state: "running", options: { rate: 40, seed: 11, schemes: ["visa", "amex"] } });
    await waitFor(async () => {
      const s = await status();
      return s.counts.visa?.purchases === 10 && s.counts.amex?.purchases === 10;
    });
    const done = await status();
    expect(done.counts.visa).toEqual({ purchases: 10, planned: 10, sent: { auth: 10, clearing: 0, refund: 0, void: 0 }, dropped: 0, duplicated: 0 });
    expect(done.counts.mastercard).toBeUndefined();
    const auths = await runAuths(ofRun(done));
    expect(auths).toHaveLength(10);
    for (const auth of auths) {
      expect(auth).toMatchObject({ cardId, merchant: { name: "Corner Café", city: "London" } });
      expect(auth.merchant.vmid).toMatch(/^\d{6,8}$/);
    }
    // Its purchases all made, the run has ended; a stop leaves it as it ended.
    await waitFor(async () => (await status()).run?.state === "completed");
    const stopped = await expectStatus<TrafficStatus>(await h.admin("POST", "/admin/simulators/traffic/stop"), 200);
    expect(stopped.run).toMatchObject({ id: ofRun(done), state: "completed" });
  });

  it("stops a run without an end when asked", async () => {
    const run = await start({ rate: 20, seed: 13, schemes: ["visa"] });
    await waitFor(async () => ((await status()).counts.visa?.purchases ?? 0) > 0);
    const stopped = await expectStatus<TrafficStatus>(await h.admin("POST", "/admin/simulators/traffic/stop"), 200);
    expect(stopped.run).toMatchObject({ id: ofRun(run), state: "stopped", stopped: h.services.clock.now().toISOString() });
  });

  it("ends a run with a duration as completed, with its counts and rate, and it stays ended across a restart", async () => {
    const run = await start({ rate: 20, seed: 41, durationSeconds: 1, schemes: ["visa", "amex"] });
    await waitFor(async () => (await status()).run?.state === "completed");
    const done = await status();
    expect(done.run).toMatchObject({ id: ofRun(run), state: "completed" });
    expect(done.run!.stopped).not.toBeNull();
    expect([done.counts.visa?.purchases, done.counts.amex?.purchases]).toEqual([10, 10]);
    expect(done.achievedRate).toBeGreaterThan(0);

    // Restarted, the networks neither start it again nor log that they did, and make no purchase more.
    await h.simulators.stop();
    const lines: string[] = [];
    const log = pino({ level: "info" }, { write: (line: string) => void lines.push(line) });
    h.simulators = await startSimulators({ ...h.services, log, seed: 3, control: h.services.simulators }, ["visa", "mastercard", "amex"]);
    expect(lines.filter((l) => /traffic (started|run complete)/.test(l))).toEqual([]);
    const after = await status();
    expect(after.run).toEqual(done.run);
    expect([after.counts.visa?.purchases, after.counts.amex?.purchases]).toEqual([10, 10]);
    const made = await h.services.db.query<{ n: number }>("select count(*)::int as n from simulator_purchases where run_id = $1", [ofRun(run)]);
    expect(made).toEqual([{ n: 20 }]);
  });

  it("completes a run too short to make a single purchase", async () => {
    // 1 purchase a second shared by three networks for one second: none of them makes one.
    await start({ rate: 1, seed: 42, durationSeconds: 1 });
    await waitFor(async () => (await status()).run?.state === "completed");
    expect(Object.values((await status()).counts).map((c) => c?.purchases)).toEqual([0, 0, 0]);
  });

  it("mixes in cards the service never enrolled and locations the network has not onboarded", async () => {
    const run = await start({ rate: 20, seed: 12, durationSeconds: 1, schemes: ["visa"], unenrolledCards: 1, notOnboardedLocations: 1, unknownMerchants: 0 });
    await waitFor(async () => (await status()).counts.visa?.purchases === 20);
    const auths = await runAuths(ofRun(run));
    const cards = await h.services.db.query<{ id: string }>("select id from cards");
    const enrolled = new Set(cards.map((c) => c.id));
    expect(auths.some((a) => enrolled.has(a.cardId))).toBe(false);
    const merchants = await h.services.db.query<{ location_id: string }>(
      "select distinct location_id from simulator_purchases where run_id = $1",
      [ofRun(run)],
    );
    expect(merchants).toEqual([{ location_id: syncingLocation }]);
    for (const auth of auths) expect(auth.merchant).toMatchObject({ vmid: null, vsid: null });
    expect(activeLocation).not.toBe(syncingLocation);
  });

  it("makes the same purchases again for the same seed, under new ids, and others for another seed", async () => {
    const shape = (a: VisaTransaction) => [a.cardId, a.merchant.name, a.merchant.caid, a.amount, a.currencyCode, a.cardPresent, a.wallet, a.targetingTag];
    const runOnce = async (seed: number) => {
      const run = await start({ rate: 20, seed, durationSeconds: 1, schemes: ["visa"] });
      await waitFor(async () => (await status()).counts.visa?.purchases === 20);
      return runAuths(ofRun(run));
    };
    const first = await runOnce(21);
    const second = await runOnce(21);
    const other = await runOnce(22);
    const sorted = (xs: VisaTransaction[]) => xs.map((a) => JSON.stringify(shape(a))).sort();
    expect(sorted(second)).toEqual(sorted(first));
    const firstIds = new Set(first.map((a) => a.transactionId));
    expect(second.filter((a) => firstIds.has(a.transactionId))).toEqual([]);
    expect(sorted(other)).not.toEqual(sorted(first));
  });

  it("picks a run up where it was after the simulators restart: no purchase twice, none skipped", async () => {
    const run = await start({ rate: 20, seed: 31, durationSeconds: 2, schemes: ["visa"] });
    await waitFor(async () => ((await status()).counts.visa?.purchases ?? 0) >= 5);
    await h.simulators.stop();
    const partial = (await status()).counts.visa!.purchases;
    expect(partial).toBeLessThan(40);
    const again = await startSimulators({ ...h.services, seed: 3, control: h.services.simulators }, ["visa"]);
    try {
      await waitFor(async () => (await status()).counts.visa?.purchases === 40, 10_000);
      const ids = await h.services.db.query<{ id: string }>("select id from simulator_purchases where run_id = $1", [ofRun(run)]);
      expect(new Set(ids.map((r) => r.id)).size).toBe(40);
      await new Promise((r) => setTimeout(r, 300));
      expect((await status()).counts.visa!.purchases).toBe(40);
    } finally {
      await again.stop();
      h.simulators = await startSimulators({ ...h.services, seed: 3, control: h.services.simulators }, ["visa", "mastercard", "amex"]);
    }
  });
});
