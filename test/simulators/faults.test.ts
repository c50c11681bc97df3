// Each fault, set through /admin, and its effect on what the simulated network publishes.
import { randomUUID } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { AmexTransaction, LookupReply, MastercardTransaction, OnboardingReply, VisaTransaction } from "../../src/platform/bus/messages.ts";
import { TOPICS, transactionTopic } from "../../src/platform/bus/topics.ts";
import { FaultDice } from "../../simulators/engine/faults.ts";
import { DAY_MS } from "../../src/domain/time-units.ts";
import { expectError, expectStatus } from "../support/harness.ts";
import { readTopic, sampleCard, sampleLocation, simulatorHarness, waitFor, type SimulatorHarness, type TopicReader } from "./helpers.ts";

let h: SimulatorHarness;
let visa: TopicReader<VisaTransaction>;
let mastercard: TopicReader<MastercardTransaction>;
let amex: TopicReader<AmexTransaction>;

beforeAll(async () => {
  h = await simulatorHarness(["visa", "mastercard", "amex"]);
  visa = await readTopic(h, transactionTopic("visa"));
  mastercard = await readTopic(h, transactionTopic("mastercard"));
  amex = await readTopic(h, transactionTopic("amex"));
});
afterAll(() => h.close());
afterEach(async () => {
  for (const scheme of ["visa", "mastercard", "amex"]) expect((await h.admin("DELETE", `/admin/simulators/${scheme}/faults`)).status).toBe(204);
});

const setFaults = async (scheme: string, faults: Record<string, unknown>) =>
  expectStatus<Record<string, unknown>>(await h.admin("PATCH", `/admin/simulators/${scheme}/faults`, faults), 200);

const ofPurchase = <T extends { messageId: string }>(reader: TopicReader<T>, transactionId: string) =>
  reader.values.filter((v) => v.messageId.startsWith(transactionId));

describe("fault settings through /admin", () => {
  it("reads, changes and removes a network's faults", async () => {
    const none = await expectStatus(await h.admin("GET", "/admin/simulators/visa/faults"), 200);
    expect(none).toEqual({
      latencyMs: 0,
      dropRate: 0,
      duplicateRate: 0,
      clearingBeforeAuthRate: 0,
      onboardingFailureRate: 0,
      lookupErrorRate: 0,
      lookupErrorCode: "network-request-failed",
    });
    expect(await setFaults("visa", { dropRate: 0.25 })).toMatchObject({ dropRate: 0.25, duplicateRate: 0 });
    expect(await setFaults("visa", { duplicateRate: 0.5 })).toMatchObject({ dropRate: 0.25, duplicateRate: 0.5 });
    expect(await expectStatus(await h.admin("GET", "/admin/simulators/mastercard/faults"), 200)).toEqual(none);
    expect((await h.admin("DELETE", "/admin/simulators/visa/faults")).status).toBe(204);
    expect(await expectStatus(await h.admin("GET", "/admin/simulators/visa/faults"), 200)).toEqual(none);
  });

  it("refuses out-of-range values, unknown fields and schemes, naming them", async () => {
    expect(await expectError(await h.admin("PATCH", "/admin/simulators/visa/faults", { dropRate: 2 }), 400, "invalid_request")).toBe(
      "dropRate: must be between 0 and 1",
    );
    expect(await expectError(await h.admin("PATCH", "/admin/simulators/visa/faults", { latencyMs: -1 }), 400, "invalid_request")).toBe(
      "latencyMs: must be between 0 and 60000",
    );
    expect(await expectError(await h.admin("PATCH", "/admin/simulators/visa/faults", { lookupErrorCode: "oops" }), 400, "invalid_request")).toMatch(
      /^lookupErrorCode: must be one of transaction-not-found, card-not-found/,
    );
    expect(await expectError(await h.admin("PATCH", "/admin/simulators/visa/faults", { dropsRate: 1 }), 400, "invalid_request")).toBe(
      "dropsRate: unknown field",
    );
    expect(await expectError(await h.admin("GET", "/admin/simulators/discover/faults"), 400, "invalid_request")).toBe(
      "scheme: must be visa, mastercard or amex",
    );
    expect((await h.request("GET", "/admin/simulators/visa/faults")).status).toBe(401);
  });
});

describe("what each fault does to what the network publishes", () => {
  it("latency holds every message back by latencyMs", async () => {
    await setFaults("amex", { latencyMs: 400 });
    const started = Date.now();
    const receipt = await h.services.simulators.purchase({ scheme: "amex", card: sampleCard("amex"), location: sampleLocation(), amount: 10 });
    await waitFor(() => ofPurchase(amex, receipt.transactionId).length === 1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
  });

  it("a dropped message never reaches the bus, but stays in the history a look-up searches", async () => {
    await setFaults("visa", { dropRate: 1 });
    const card = sampleCard("visa");
    const receipt = await h.services.simulators.purchase({ scheme: "visa", card, location: sampleLocation(), amount: 31.4, datetime: "2026-01-05T10:00:00" });
    await waitFor(async () => (await h.services.db.query("select 1 from simulator_messages where message_id = $1 and delivery = 'dropped'", [receipt.messageId])).length === 1);
    expect(ofPurchase(visa, receipt.transactionId)).toEqual([]);

    await h.admin("DELETE", "/admin/simulators/visa/faults");
    const replies = await readTopic<LookupReply>(h, TOPICS.lookupReplies.name);
    const requestId = randomUUID();
    await h.services.bus.publish(TOPICS.lookupRequests.name, card.id, {
      requestId,
      scheme: "visa",
      cardId: card.id,
      cardLastNumbers: card.lastFour,
      amount: 31.4,
      transactionDate: "2026-01-05",
      locationId: null,
      mids: [],
      requestedAt: h.services.clock.now().toISOString(),
    });
    await waitFor(() => replies.values.some((r) => r.requestId === requestId));
    const reply = replies.values.find((r) => r.requestId === requestId)!;
    expect(reply.outcome).toBe("SUCCEEDED");
    expect(reply.transactions[0]).toMatchObject({ transactionId: receipt.transactionId, amount: 31.4, type: "authorization" });
  });

  it("a duplicated message is published twice with the same message id", async () => {
    await setFaults("mastercard", { duplicateRate: 1 });
    const receipt = await h.services.simulators.purchase({ scheme: "mastercard", card: sampleCard("mastercard"), location: sampleLocation(), amount: 12 });
    await waitFor(() => ofPurchase(mastercard, receipt.transactionId).length === 2);
    expect(ofPurchase(mastercard, receipt.transactionId).map((v) => v.messageId)).toEqual([receipt.messageId, receipt.messageId]);
  });

  it("duplicates each message of commands that arrive together, keeping the card's order", async () => {
    await setFaults("mastercard", { duplicateRate: 1 });
    const card = sampleCard("mastercard");
    // Not awaited one by one: the network takes them off the bus together, as a batch.
    const receipts = await Promise.all(
      [1, 2, 3].map((amount) => h.services.simulators.purchase({ scheme: "mastercard", card, location: sampleLocation(), amount })),
    );
    const ids = new Set(receipts.map((r) => r.messageId));
    const ofCard = () => mastercard.values.filter((v) => ids.has(v.messageId)).map((v) => v.messageId);
    await waitFor(() => ofCard().length === 6);
    expect(ofCard()).toEqual(receipts.flatMap((r) => [r.messageId, r.messageId]));
  });

  it("clearing before auth publishes the clearing first, and no clearing later", async () => {
    await setFaults("visa", { clearingBeforeAuthRate: 1 });
    const receipt = await h.services.simulators.purchase({ scheme: "visa", card: sampleCard("visa"), location: sampleLocation(), amount: 9.99 });
    await waitFor(() => ofPurchase(visa, receipt.transactionId).length === 2);
    expect(ofPurchase(visa, receipt.transactionId).map((v) => v.messageType)).toEqual(["SETTLEMENT", "AUTH"]);
    await h.admin("DELETE", "/admin/simulators/visa/faults");
    await h.services.clock.advance(4 * DAY_MS);
    await new Promise((r) => setTimeout(r, 50));
    expect(ofPurchase(visa, receipt.transactionId)).toHaveLength(2);
  });

  it("an onboarding failure answers Not found, with a reason and no MIDs", async () => {
    await setFaults("mastercard", { onboardingFailureRate: 1 });
    const replies = await readTopic<OnboardingReply>(h, TOPICS.onboardingReplies.name);
    const locationId = randomUUID();
    await h.services.bus.publish(TOPICS.onboardingRequests.name, locationId, {
      requestId: randomUUID(),
      scheme: "mastercard",
      locationId,
      programId: randomUUID(),
      brandName: "Corner Café",
      address: "1 High Street",
      city: "London",
      postcode: "N1 9GU",
      countryCode: "GBR",
      mids: [],
      requestedAt: h.services.clock.now().toISOString(),
    });
    await waitFor(async () => (await h.services.db.query("select 1 from simulator_due where kind = 'onboarding-reply' and payload->'reply'->>'locationId' = $1", [locationId])).length === 1);
    await h.services.clock.advance(15 * DAY_MS);
    await waitFor(() => replies.values.some((r) => r.locationId === locationId));
    expect(replies.values.find((r) => r.locationId === locationId)).toMatchObject({
      status: "NOT_FOUND",
      mids: [],
      reason: "The network could not onboard the location (onboarding failure); a case has been opened.",
    });
  });

  it("a look-up error answers with the chosen error code", async () => {
    await setFaults("amex", { lookupErrorRate: 1, lookupErrorCode: "unexpected-error" });
    const replies = await readTopic<LookupReply>(h, TOPICS.lookupReplies.name);
    const cardId = randomUUID();
    await h.services.bus.publish(TOPICS.lookupRequests.name, cardId, {
      requestId: "lookup-error",
      scheme: "amex",
      cardId,
      cardLastNumbers: "0311",
      amount: 5,
      transactionDate: h.services.clock.now().toISOString().slice(0, 10),
      locationId: null,
      mids: [],
      requestedAt: h.services.clock.now().toISOString(),
    });
    await waitFor(() => replies.values.some((r) => r.requestId === "lookup-error"));
    expect(replies.values.find((r) => r.requestId === "lookup-error")).toMatchObject({
      outcome: "FAILED",
      error: { code: "unexpected-error", message: "The network could not process the look-up." },
      transactions: [],
    });
  });

  it("a rate between 0 and 1 affects a share of messages", async () => {
    await setFaults("visa", { dropRate: 0.5 });
    // One card: one partition, so the network handles the purchases in the order they were sent.
    const card = sampleCard("visa");
    const receipts = [];
    for (let i = 0; i < 40; i++) {
      receipts.push(await h.services.simulators.purchase({ scheme: "visa", card, location: sampleLocation(), amount: 1 }));
    }
    const ids = receipts.map((r) => r.messageId);
    const rows = async () => h.services.db.query<{ delivery: string }>("select delivery from simulator_messages where message_id = any($1)", [ids]);
    await waitFor(async () => (await rows()).length === 40);
    const dropped = (await rows()).filter((r) => r.delivery === "dropped").length;
    expect(dropped).toBeGreaterThan(8);
    expect(dropped).toBeLessThan(32);
    await waitFor(() => visa.values.filter((v) => ids.includes(v.messageId)).length === 40 - dropped);
  });
});

describe("fault draws", () => {
  it("are the same for the same seed and scheme, and differ for another seed", () => {
    const draws = (seed: number, scheme: "visa" | "amex") => {
      const dice = new FaultDice(seed, scheme);
      return Array.from({ length: 64 }, () => dice.roll(0.5));
    };
    expect(draws(5, "visa")).toEqual(draws(5, "visa"));
    expect(draws(5, "visa")).not.toEqual(draws(6, "visa"));
    expect(draws(5, "visa")).not.toEqual(draws(5, "amex"));
    const dice = new FaultDice(5, "visa");
    expect(Array.from({ length: 10 }, () => dice.roll(1))).toEqual(Array(10).fill(true));
    expect(Array.from({ length: 10 }, () => dice.roll(0))).toEqual(Array(10).fill(false));
  });
});
