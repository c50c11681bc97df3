// A consumer not written here reads Cardlink's topics: the Visa, Mastercard and Amex simulators publish
// purchases and their clearings on the real Kafka through the schema registry (Confluent wire format,
// subjects `<topic>-value`), and Confluent's own Python client (confluent-kafka, pinned in
// requirements.txt, in a virtual environment this test makes once under the stack's cache) consumes the
// three transaction topics with its AvroDeserializer. Every decoded value must equal what the
// simulators sent, field for field.
import { execFile } from "node:child_process";
import { createHash, randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Bus } from "../../src/platform/bus/bus.ts";
import { registryCodec } from "../../src/platform/bus/kafka.ts";
import { topicSpecs, transactionTopic } from "../../src/platform/bus/topics.ts";
import { createClock } from "../../src/platform/clock/index.ts";
import { createLogger } from "../../src/platform/log.ts";
import type { Db } from "../../src/platform/db.ts";
import { createSimulatorControl } from "../../src/services/simulator-control/control.ts";
import { startSimulators, type RunningSimulators } from "../../simulators/host/hub.ts";
import type { Scheme } from "../../simulators/engine/types.ts";
import { openTestDb } from "../support/harness.ts";
import { haveInfra, infra } from "../support/infra.ts";
import { createTestKafkaBus, type TestKafkaBus } from "../support/kafka.ts";
import { sampleCard, sampleLocation, waitFor } from "../simulators/helpers.ts";

const run = promisify(execFile);
const HERE = fileURLToPath(new URL(".", import.meta.url));
const REQUIREMENTS = join(HERE, "requirements.txt");
const SCHEMES: Scheme[] = ["visa", "mastercard", "amex"];
const PURCHASES_PER_SCHEME = 2;

interface Sent {
  topic: string;
  key: string;
  value: Record<string, unknown>;
}

/** The venv for the pinned requirements, made once per requirements file (a changed pin makes a new one). */
async function confluentPython(): Promise<string> {
  const pins = createHash("sha256").update(readFileSync(REQUIREMENTS)).digest("hex").slice(0, 12);
  const home = process.env.CARDLINK_STACK_HOME ?? join(homedir(), ".cache/cardlink-stack");
  const venv = join(home, "python", `confluent-client-${pins}`);
  const python = join(venv, "bin/python");
  if (existsSync(python)) return python;
  // Built beside its final place and renamed into it, so a run stopped half-way leaves no broken venv.
  const building = `${venv}.${process.pid}`;
  mkdirSync(join(home, "python"), { recursive: true });
  rmSync(building, { recursive: true, force: true });
  await run("python3", ["-m", "venv", building]);
  await run(join(building, "bin/pip"), ["install", "--quiet", "--disable-pip-version-check", "-r", REQUIREMENTS], { timeout: 300_000 });
  try {
    renameSync(building, venv);
  } catch (err) {
    // Another run finished the same venv first: use theirs.
    rmSync(building, { recursive: true, force: true });
    if (!existsSync(python)) throw err;
  }
  return python;
}

describe.skipIf(!haveInfra("kafkaBrokers", "schemaRegistryUrl"))("Confluent's Python client reads the transaction topics through the registry", () => {
  let kafka: TestKafkaBus;
  let db: Db;
  let simulators: RunningSimulators;
  let python: string;
  const sent: Sent[] = [];
  const clock = createClock({ speed: 0, start: new Date("2026-01-05T12:00:00Z") });
  const topics = new Set(SCHEMES.map(transactionTopic));

  beforeAll(async () => {
    python = await confluentPython();
    kafka = createTestKafkaBus(() => clock.now(), { label: "interop", codec: registryCodec(infra.schemaRegistryUrl!) });
    const { bus } = kafka;
    await bus.createTopics(topicSpecs());
    // The simulators publish through this bus, which keeps each transaction message as it was sent.
    const recording: Bus = {
      kind: bus.kind,
      createTopics: (specs) => bus.createTopics(specs),
      async publish(topic, key, value) {
        const published = await bus.publish(topic, key, value);
        if (topics.has(topic)) sent.push({ topic, key, value: value as Record<string, unknown> });
        return published;
      },
      subscribe: (options) => bus.subscribe(options),
      lag: (groupId, topics) => bus.lag(groupId, topics),
      close: () => bus.close(),
    };
    db = await openTestDb();
    const control = createSimulatorControl({ db, bus: recording, clock });
    simulators = await startSimulators({ db, bus: recording, clock, log: createLogger({ LOG_LEVEL: "silent" }), seed: 1, control }, SCHEMES);

    const amounts = [12.34, 250];
    for (const scheme of SCHEMES) {
      for (const amount of amounts.slice(0, PURCHASES_PER_SCHEME)) {
        const card = sampleCard(scheme);
        const receipt = await control.purchase({ scheme, card, location: sampleLocation(), amount, currency: "GBP" });
        await control.clear({ scheme, cardId: card.id, purchaseId: receipt.purchaseId });
      }
    }
    await waitFor(() => sent.length === SCHEMES.length * PURCHASES_PER_SCHEME * 2, 60_000);
  }, 400_000);

  afterAll(async () => {
    await simulators?.stop();
    await kafka?.drop();
    await db?.close();
  });

  it("decodes every Visa, Mastercard and Amex message to the values the simulators sent", { timeout: 120_000 }, async () => {
    const names = [...topics].map((t) => `${kafka.namespace}.${t}`);
    const { stdout } = await run(
      python,
      [join(HERE, "confluent_consumer.py"), infra.kafkaBrokers!, infra.schemaRegistryUrl!, `interop-${randomUUID()}`, String(sent.length), "90", ...names],
      { timeout: 110_000, maxBuffer: 16 * 2 ** 20 },
    );
    const decoded = stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Sent);

    expect(decoded).toHaveLength(sent.length);
    const byMessage = (m: Sent) => `${m.topic}/${String(m.value.messageId)}`;
    const expected = new Map(sent.map((m) => [byMessage(m), m]));
    for (const message of decoded) {
      const topic = message.topic.slice(kafka.namespace.length + 1);
      const original = expected.get(byMessage({ ...message, topic }));
      expect(original, `${message.topic}: message ${String(message.value.messageId)} was not sent`).toBeDefined();
      expect(message.key).toBe(original!.key);
      // JSON on both sides: the Python client's dict against the simulator's object.
      expect(message.value).toEqual(JSON.parse(JSON.stringify(original!.value)));
    }
    // Both steps of each purchase, for each scheme: its auth and its clearing.
    for (const scheme of SCHEMES) {
      const types = decoded.filter((m) => m.topic.endsWith(`.${transactionTopic(scheme)}`)).map((m) => String(m.value.messageType));
      expect(types, scheme).toHaveLength(PURCHASES_PER_SCHEME * 2);
      expect(new Set(types).size, `${scheme}: ${types.join(", ")}`).toBe(2);
    }
  });
});
