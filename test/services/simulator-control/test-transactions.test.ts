// A test purchase is written before it is published: with the database down nothing reaches the bus (503);
// with the bus down it is accepted durably (202 "accepted") and the workers' relay makes it, once, when
// the bus is back. A published purchase is marked so by the next round's insert, or on its own within a
// second, so the relay never sends it again.
import { describe, expect, it } from "vitest";
import { expectError, expectStatus } from "../../support/harness.ts";
import { usePipeline } from "../../support/pipeline.ts";
import { world } from "../../support/offers-world.ts";
import { commandTopic } from "../../../src/platform/bus/topics.ts";
import { SCHEMES } from "../../../src/domain/scheme.ts";
import { relayTestPurchases } from "../../../src/services/simulator-control/test-transactions.ts";

const pipeline = usePipeline(["simulators", "qualifier", "workers"]);
const COMMAND_TOPICS = SCHEMES.map(commandTopic);

/** Makes the bus refuse simulator commands (as kafkajs does with the broker gone) until the returned undo. */
function refuseCommands() {
  const { bus } = pipeline.h.services;
  const publish = bus.publish;
  let refused = 0;
  bus.publish = async (topic, key, value) => {
    if (!COMMAND_TOPICS.includes(topic)) return publish(topic, key, value);
    refused++;
    throw Object.assign(new Error("Connection error: connect ECONNREFUSED 127.0.0.1:9092"), { name: "KafkaJSConnectionError" });
  };
  return { refused: () => refused, undo: () => void (bus.publish = publish) };
}

describe("test purchases once published", () => {
  it("marks each published purchase, with the next round's insert or on its own, so the relay sends none again", async () => {
    const { h } = pipeline;
    const w = await world(h);
    const ids: string[] = [];
    // The first one's mark goes with the second one's insert; the last one's on its own.
    for (const amount of [12, 13]) {
      ids.push((await expectStatus<{ id: string }>(await w.client.post("/v1/transactions/test", { cardId: w.cardId, locationId: w.locationId, amount }), 201)).id);
    }
    const marked = async () =>
      (await h.services.db.query<{ n: number }>("select count(*)::int as n from test_purchases where transaction_id = any($1::uuid[]) and published and command is null", [ids]))[0]!.n;
    await expect.poll(marked, { timeout: 10_000 }).toBe(2);
    await h.services.db.query("update test_purchases set publish_after = now() where transaction_id = any($1::uuid[])", [ids]);
    expect(await relayTestPurchases(h.services)).toBe(0);
  });
});

describe("test purchases when a dependency is down", () => {
  it("accepts a purchase while the bus is down (202) and the relay makes it once when the bus is back", async () => {
    const { h } = pipeline;
    const w = await world(h);
    const refusing = refuseCommands();
    let accepted: { id: string; status: string };
    try {
      accepted = await expectStatus(await w.client.post("/v1/transactions/test", { cardId: w.cardId, locationId: w.locationId, amount: 12 }), 202);
    } finally {
      refusing.undo();
    }
    expect(accepted.status).toBe("accepted");
    expect(refusing.refused()).toBe(1);
    await expectError(await w.client.get(`/v1/transactions/${accepted.id}`), 404, "resource_not_found");

    // Not before its request's time is up, then once.
    expect(await relayTestPurchases(h.services)).toBe(0);
    await h.services.db.query("update test_purchases set publish_after = now() where transaction_id = $1", [accepted.id]);
    expect(await relayTestPurchases(h.services)).toBe(1);
    expect(await relayTestPurchases(h.services)).toBe(0);
    let found: Response | undefined;
    for (let i = 0; i < 200 && found?.status !== 200; i++) {
      found = await w.client.get(`/v1/transactions/${accepted.id}`);
      if (found.status !== 200) await new Promise((r) => setTimeout(r, 25));
    }
    expect(await expectStatus<{ amount: number }>(found!, 200)).toMatchObject({ amount: 12 });
  });

  it("answers 503 and publishes nothing when its row cannot be written", async () => {
    const { h } = pipeline;
    const w = await world(h);
    const { db, bus } = h.services;
    const query = db.query.bind(db);
    const publish = bus.publish;
    let published = 0;
    bus.publish = (topic, key, value) => {
      if (COMMAND_TOPICS.includes(topic)) published++;
      return publish(topic, key, value);
    };
    db.query = (async (text: string, params?: unknown[]) => {
      if (/insert into test_purchases/.test(text)) throw Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });
      return query(text, params);
    }) as typeof db.query;
    try {
      const res = await w.client.post("/v1/transactions/test", { cardId: w.cardId, locationId: w.locationId, amount: 12 });
      expect(res.headers.get("Retry-After")).toBe("5");
      await expectError(res, 503, "service_unavailable");
    } finally {
      db.query = query;
      bus.publish = publish;
    }
    expect(published).toBe(0);
  });
});
