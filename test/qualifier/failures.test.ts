// The qualifier under failure: a malformed message is dead-lettered and the consumer goes on; a
// database failure is retried without committing; a crash between the database commit and the offset
// commit rewards nothing twice and emits no second event.
import { describe, expect, it } from "vitest";
import { expectStatus, type Harness } from "../support/harness.ts";
import { useQualifierWorld } from "./world.ts";
import { localIn, world, type World } from "../support/offers-world.ts";
import type { Outcome } from "../../src/qualifier/index.ts";
import type { Bus, BusMessage } from "../../src/platform/bus/bus.ts";
import type { Db } from "../../src/platform/db.ts";
import { deadLetterTopic } from "../../src/platform/bus/dead-letter.ts";
import type { DeadLetter } from "../../src/platform/bus/messages.ts";
import { generatePools, PurchaseStream } from "../../simulators/engine/generator.ts";
import { ADAPTERS } from "../../simulators/schemes/index.ts";

let h: Harness;
const qualifier = useQualifierWorld((opened) => (h = opened));

/** The bus, with the qualifier's batch handler wrapped: `after` runs once the real handler has finished. */
function wrapHandler(bus: Bus, after: (batch: BusMessage[]) => void): Bus {
  return {
    kind: bus.kind,
    createTopics: (specs) => bus.createTopics(specs),
    publish: (topic, key, value) => bus.publish(topic, key, value),
    subscribe: (options) =>
      bus.subscribe({
        ...options,
        batchHandler: async (batch, handled) => {
          await options.batchHandler!(batch, handled);
          after(batch);
        },
      }),
    lag: (groupId, topics) => bus.lag(groupId, topics),
    close: () => bus.close(),
  };
}

async function liveWorld(): Promise<World> {
  const w = await world(h);
  const offer = await w.offer({ startDate: localIn(h, -1), type: { name: "amount", value: 5 } });
  await expectStatus(await w.client.post(`/v1/offers/${offer.id}/locations/${w.locationId}`), 201);
  return w;
}

const purchase = async (w: World) =>
  expectStatus<{ id: string; offer: { qualified: boolean } }>(
    await w.client.post("/v1/transactions/test", { cardId: w.cardId, locationId: w.locationId, amount: 40 }),
    201,
  );

const eventsOf = (transactionId: string) =>
  h.services.db.query<{ id: string; event: string }>("select id, event from outbox where data->>'id' = $1 order by event", [transactionId]);

describe("qualifier failures", () => {
  it("dead-letters a malformed message with its reason and goes on with the next", async () => {
    const outcomes: Outcome[] = [];
    await qualifier.start({ ...h.services, onOutcome: (o) => outcomes.push(o) });
    const letters: DeadLetter[] = [];
    const watcher = await h.services.bus.subscribe({
      groupId: "test-dead-letters",
      topics: [deadLetterTopic("visa.transactions")],
      handler: async (m) => void letters.push(m.value as DeadLetter),
    });
    const adapter = ADAPTERS.visa;
    const bad = new PurchaseStream(adapter, 3, generatePools(adapter, 3, { cards: 1, merchants: 1 })).next(new Date("2026-01-05T12:00:00Z")).purchase;
    const message = { ...adapter.auth(bad, new Date("2026-01-05T12:00:00Z")), transactionDateTime: "yesterday" };
    await h.services.bus.publish("visa.transactions", bad.card.id, message);
    const w = await liveWorld();
    expect((await purchase(w)).offer.qualified).toBe(true);
    await expect.poll(() => letters.length).toBe(1);
    expect(letters[0]).toMatchObject({ topic: "visa.transactions", failedBy: "qualifier", reason: "transactionDateTime: must be YYYY-MM-DDThh:mm:ss" });
    expect(JSON.parse(letters[0]!.payload)).toMatchObject({ messageId: message.messageId });
    await watcher.stop();
  });

  it("retries while the database fails and commits nothing until the message is applied", async () => {
    let failures = 2;
    const flaky: Db = {
      engine: h.services.db.engine,
      query: (text, params) => h.services.db.query(text, params),
      exec: (text) => h.services.db.exec(text),
      close: () => h.services.db.close(),
      listen: (channel, onNotify) => h.services.db.listen(channel, onNotify),
      tx: (fn) => (failures-- > 0 ? Promise.reject(new Error("connect ECONNREFUSED 127.0.0.1:5432")) : h.services.db.tx(fn)),
    };
    const outcomes: Outcome[] = [];
    await qualifier.start({ ...h.services, db: flaky, onOutcome: (o) => outcomes.push(o) });
    const w = await liveWorld();
    const tx = await purchase(w);
    expect(failures).toBeLessThan(0);
    expect(outcomes.filter((o) => o.kind === "recorded")).toHaveLength(1);
    expect((await eventsOf(tx.id)).map((e) => e.event)).toEqual(["transaction.auth", "transaction.auth.qualified"]);
  });

  it("rewards once and emits no second event when killed between the database commit and the offset commit", async () => {
    let crashes = 1;
    const outcomes: Outcome[] = [];
    const crashing = wrapHandler(h.services.bus, () => {
      if (crashes-- > 0) throw new Error("killed after the database commit, before the offset commit");
    });
    await qualifier.start({ ...h.services, bus: crashing, onOutcome: (o) => outcomes.push(o) });
    const w = await liveWorld();
    const tx = await purchase(w);
    // The same message came back and changed nothing.
    await expect.poll(() => outcomes.map((o) => o.kind)).toEqual(["recorded", "duplicate"]);
    const events = await eventsOf(tx.id);
    expect(events.map((e) => e.event)).toEqual(["transaction.auth", "transaction.auth.qualified"]);
    const [{ count }] = (await h.services.db.query<{ count: number }>("select count(*)::int as count from transactions where card_id = $1", [w.cardId])) as [
      { count: number },
    ];
    expect(count).toBe(1);
  });
});
