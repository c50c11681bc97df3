// A simulator as its own role on the real Kafka broker, with each value codec (single-object encoding
// from the schema files; the schema registry when there is one): it registers every topic's schema,
// takes a test purchase command from the bus and publishes the Visa auth there. Each run has a namespace
// of its own, so the simulator's consumer group is not shared with other test files.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Bus, BusMessage } from "../../src/platform/bus/bus.ts";
import { registryCodec } from "../../src/platform/bus/kafka.ts";
import type { VisaTransaction } from "../../src/platform/bus/messages.ts";
import { topicSpecs, transactionTopic } from "../../src/platform/bus/topics.ts";
import { createClock } from "../../src/platform/clock/index.ts";
import { createLogger } from "../../src/platform/log.ts";
import type { Db } from "../../src/platform/db.ts";
import { createSimulatorControl } from "../../src/services/simulator-control/control.ts";
import { startSimulators, type RunningSimulators } from "../../simulators/host/hub.ts";
import { openTestDb } from "../support/harness.ts";
import { haveInfra, infra } from "../support/infra.ts";
import { sampleCard, sampleLocation, waitFor } from "./helpers.ts";
import { createTestKafkaBus, type TestKafkaBus } from "../support/kafka.ts";

const variants: { name: string; available: () => boolean; open: (now: () => Date) => TestKafkaBus }[] = [
  { name: "values single-object encoded", available: () => haveInfra("kafkaBrokers"), open: (now) => createTestKafkaBus(now, { label: "simulator" }) },
  {
    name: "with the schema registry",
    available: () => haveInfra("kafkaBrokers", "schemaRegistryUrl"),
    open: (now) => createTestKafkaBus(now, { label: "simulator-registry", codec: registryCodec(infra.schemaRegistryUrl!) }),
  },
];

for (const { name, available, open } of variants) describe.skipIf(!available())(`visa simulator on Kafka, ${name}`, () => {
  let kafka: TestKafkaBus;
  let bus: Bus;
  let db: Db;
  let simulators: RunningSimulators;
  const clock = createClock({ speed: 0, start: new Date("2026-01-05T12:00:00Z") });

  beforeAll(async () => {
    kafka = open(() => clock.now());
    bus = kafka.bus;
    await bus.createTopics(topicSpecs());
    db = await openTestDb();
    const control = createSimulatorControl({ db, bus, clock });
    simulators = await startSimulators({ db, bus, clock, log: createLogger({ LOG_LEVEL: "silent" }), seed: 1, control }, ["visa"]);
  });
  afterAll(async () => {
    await simulators?.stop();
    await kafka?.drop();
    await db?.close();
  });

  it("publishes the auth of a purchase commanded through the bus", async () => {
    const control = createSimulatorControl({ db, bus, clock });
    const card = sampleCard("visa");
    const receipt = await control.purchase({ scheme: "visa", card, location: sampleLocation(), amount: 12.34 });
    const seen: BusMessage<VisaTransaction>[] = [];
    const reader = await bus.subscribe({
      groupId: `visa-reader-${card.id}`,
      topics: [transactionTopic("visa")],
      handler: async (m) => {
        if (m.key === card.id) seen.push(m as BusMessage<VisaTransaction>);
      },
    });
    await waitFor(() => seen.length === 1, 30_000);
    await reader.stop();
    expect(seen[0]!.value).toMatchObject({ messageId: receipt.messageId, messageType: "AUTH", amount: 12.34, cardId: card.id, transactionId: receipt.transactionId });
  });
});
