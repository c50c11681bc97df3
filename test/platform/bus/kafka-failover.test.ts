// Failover on the real broker: two members of one consumer group, one in a process of its own; that
// process is killed with SIGKILL (no leave-group), and with Cardlink's default session timeout
// (KAFKA_SESSION_TIMEOUT_MS, 10 s) the survivor takes over its partitions and consumes everything
// published after the kill within seconds — with kafkajs's default 30 s it could not.
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Bus } from "../../../src/platform/bus/bus.ts";
import { createKafkaBus } from "../../../src/platform/bus/kafka.ts";
import { singleObjectCodec } from "../../../src/platform/bus/single-object-codec.ts";
import { loadConfig } from "../../../src/platform/config/index.ts";
import { haveInfra, infra } from "../../support/infra.ts";
import { deleteNamespace } from "../../support/kafka.ts";
import { ROOT, outputMatches, type RoleProcess } from "../../support/role-process.ts";
import { FAILOVER_SCHEMA } from "./fixtures/failover-schema.ts";

describe.skipIf(!haveInfra("kafkaBrokers"))("Kafka consumer group failover (real broker)", () => {
  const namespace = `failover-${randomUUID().slice(0, 8)}`;
  const topic = "failover";
  const group = "members";
  let bus: Bus | undefined;
  let member: RoleProcess | undefined;

  afterAll(async () => {
    if (member?.alive()) process.kill(-member.child.pid!, "SIGKILL");
    await bus?.close();
    await deleteNamespace(namespace);
  });

  it("moves a killed member's partitions to the survivor within the session timeout", async () => {
    const config = loadConfig({ KAFKA_BROKERS: infra.kafkaBrokers });
    bus = createKafkaBus({
      brokers: config.KAFKA_BROKERS!.split(","),
      codec: singleObjectCodec(),
      namespace,
      clientId: `failover-survivor-${process.pid}`,
      consumer: { sessionTimeout: config.KAFKA_SESSION_TIMEOUT_MS, heartbeatInterval: config.KAFKA_HEARTBEAT_INTERVAL_MS, maxWaitTimeInMs: 200 },
      now: () => new Date(),
    });
    await bus.createTopics([{ name: topic, partitions: 4, schema: FAILOVER_SCHEMA }]);
    const seen = new Set<number>();
    const partitions = new Set<number>();
    await bus.subscribe({
      groupId: group,
      topics: [topic],
      handler: async (m) => {
        seen.add((m.value as { n: number }).n);
        partitions.add(m.partition);
      },
    });

    // The second member joins; the group splits the four partitions between the two.
    const child = spawn(join(ROOT, "node_modules/.bin/tsx"), ["test/platform/bus/fixtures/group-member.ts"], {
      cwd: ROOT,
      env: { ...process.env, KAFKA_BROKERS: infra.kafkaBrokers, FAILOVER_NAMESPACE: namespace, FAILOVER_TOPIC: topic, FAILOVER_GROUP: group },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    member = { name: "group member", child, output: [], alive: () => child.exitCode === null && child.signalCode === null };
    const output = member.output;
    child.stdout!.on("data", (d: Buffer) => void output.push(d.toString()));
    child.stderr!.on("data", (d: Buffer) => void output.push(d.toString()));
    await outputMatches(member, /joined/, 120_000);

    process.kill(-member.child.pid!, "SIGKILL");
    const killed = performance.now();
    const count = 200;
    for (let n = 0; n < count; n++) await bus.publish(topic, `card-${n}`, { n });

    // Waits on the outcome, up to 25 s: the 10 s session timeout, a rebalance and room for a busy machine
    // (kafkajs's default 30 s session could not make it).
    const limitMs = 25_000;
    while (seen.size < count && performance.now() - killed < limitMs) await new Promise((r) => setTimeout(r, 100));
    const tookMs = Math.round(performance.now() - killed);
    console.log(`failover: ${seen.size}/${count} consumed ${tookMs} ms after the kill, from partitions ${[...partitions].sort().join(",")}`);
    expect(seen.size).toBe(count);
    expect(partitions.size).toBe(4);
  }, 240_000);
});
