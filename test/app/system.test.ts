// The composition root's one shutdown path. In process: a system's close stops the roles started on it,
// then closes its bus and its database, once. As real processes: `start` on SIGINT and a role on SIGTERM
// stop their parts in the reverse order they started — servers, roles, clock sync, the request log's writer,
// health watch, bus, database, DATA_DIR's lock — and exit 0 with DATA_DIR free for the next process; so does a scheme's
// simulator on Kafka, whose parts are its own store's.
import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { assembleSystem } from "../../src/app/system.ts";
import { serviceClock } from "../../src/app/runtime.ts";
import { loadConfig } from "../../src/platform/config/index.ts";
import { createEmbeddedLog } from "../../src/platform/bus/embedded-log.ts";
import { TOPICS } from "../../src/platform/bus/topics.ts";
import { openTestDb } from "../support/harness.ts";
import { haveInfra, infra } from "../support/infra.ts";
import { deleteNamespace } from "../support/kafka.ts";
import { freePort, spawnCardlink, startServer, type CardlinkProcess } from "../support/server-process.ts";

/** A system on an in-memory database and bus whose closes are recorded in `events`; `busFails` makes the bus's close throw. */
async function recordedSystem(events: string[], { busFails = false } = {}) {
  const config = loadConfig({ LOG_LEVEL: "silent", CLOCK_SPEED: "0" });
  const db = await openTestDb();
  const closeDb = db.close.bind(db);
  db.close = async () => {
    events.push("database");
    await closeDb();
  };
  const bus = createEmbeddedLog();
  const closeBus = bus.close.bind(bus);
  bus.close = async () => {
    events.push("bus");
    await closeBus();
    if (busFails) throw new Error("broker gone");
  };
  return { system: assembleSystem({ config, db, clock: serviceClock(db, config), bus }), db, bus };
}

describe("a system's close", () => {
  it("stops the roles running on it, then closes the bus, then the database, once", async () => {
    const events: string[] = [];
    const { system, db, bus } = await recordedSystem(events);
    await system.startRoles(["workers", "dispatcher"]);
    await Promise.all([system.close(), system.close()]);
    expect(events).toEqual(["bus", "database"]);
    await expect(db.query("select 1")).rejects.toThrow();
    await expect(bus.publish(TOPICS.visaTransactions.name, "k", {})).rejects.toThrow();
  });

  it("still closes the database when the bus fails to close, and says which part failed", async () => {
    const events: string[] = [];
    const { system, db } = await recordedSystem(events, { busFails: true });
    await expect(system.close()).rejects.toThrow("stopping the bus failed");
    expect(events).toEqual(["bus", "database"]);
    await expect(db.query("select 1")).rejects.toThrow();
  });
});

const stoppedParts = (output: string) =>
  output
    .split("\n")
    .filter((line) => line.includes('"msg":"stopped"'))
    .map((line) => (JSON.parse(line) as { part: string }).part);

async function outputIncludes(process: CardlinkProcess, text: string): Promise<void> {
  const deadline = Date.now() + 90_000;
  while (!process.output().includes(text)) {
    if (process.child.exitCode !== null) throw new Error(`exited with ${process.child.exitCode}:\n${process.output()}`);
    if (Date.now() > deadline) throw new Error(`no "${text}" after 90 s:\n${process.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("a process on a signal", () => {
  const dirs: string[] = [];
  let running: CardlinkProcess | undefined;
  const dataDir = () => {
    const dir = mkdtempSync(join(tmpdir(), "cardlink-system-"));
    dirs.push(dir);
    return dir;
  };
  afterEach(async () => {
    if (running && running.child.exitCode === null) {
      running.child.kill("SIGKILL");
      await running.exited;
    }
  });
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it("start: SIGINT stops the HTTP server, the roles, the clock sync, the request log, the health watch, the bus, the database and the lock in that order, and exits 0", async () => {
    const dir = dataDir();
    const server = await startServer({ DATA_DIR: dir });
    running = server;
    server.child.kill("SIGINT");
    expect(await server.exited, server.output()).toBe(0);
    expect(stoppedParts(server.output())).toEqual(["http server", "roles", "clock sync", "request log", "health watch", "bus", "database", "DATA_DIR lock"]);
    expect(server.output()).toContain('"msg":"drained"');
    expect(existsSync(join(dir, "cardlink.lock"))).toBe(false);
    await expect(fetch(`${server.url}/health`)).rejects.toThrow();
  }, 180_000);

  it("workers: SIGTERM closes the health port first, then the roles, the clock sync, the request log, the health watch, the bus, the database and the lock, and exits 0", async () => {
    const dir = dataDir();
    const healthPort = await freePort();
    const role = spawnCardlink(["workers"], { DATA_DIR: dir, HEALTH_PORT: String(healthPort) });
    running = role;
    await outputIncludes(role, '"msg":"role running"');
    expect((await fetch(`http://127.0.0.1:${healthPort}/health`)).status).toBe(200);
    expect(existsSync(join(dir, "cardlink.lock"))).toBe(true);
    role.child.kill("SIGTERM");
    expect(await role.exited, role.output()).toBe(0);
    expect(stoppedParts(role.output())).toEqual(["health port", "roles", "clock sync", "request log", "health watch", "bus", "database", "DATA_DIR lock"]);
    expect(existsSync(join(dir, "cardlink.lock"))).toBe(false);
    await expect(fetch(`http://127.0.0.1:${healthPort}/health`)).rejects.toThrow();
  }, 180_000);

  it.skipIf(!haveInfra("kafkaBrokers"))(
    "simulator on Kafka: SIGTERM closes the health port, then the network, the clock sync, the health watch, the bus, its store and its store's lock, and exits 0",
    async () => {
      const dir = dataDir();
      const healthPort = await freePort();
      const namespace = `system-test-${randomUUID().slice(0, 8)}`;
      const simulator = spawnCardlink(["simulator", "--scheme", "amex"], {
        KAFKA_BROKERS: infra.kafkaBrokers!,
        KAFKA_NAMESPACE: namespace,
        DATA_DIR: dir,
        HEALTH_PORT: String(healthPort),
      });
      running = simulator;
      try {
        await outputIncludes(simulator, '"msg":"simulator running"');
        expect((await fetch(`http://127.0.0.1:${healthPort}/health`)).status).toBe(200);
        const lock = join(dir, "simulators", "amex", "cardlink.lock");
        expect(existsSync(lock)).toBe(true);
        simulator.child.kill("SIGTERM");
        expect(await simulator.exited, simulator.output()).toBe(0);
        expect(stoppedParts(simulator.output())).toEqual(["health port", "roles", "clock sync", "health watch", "bus", "database", "DATA_DIR lock"]);
        expect(existsSync(lock)).toBe(false);
      } finally {
        await deleteNamespace(namespace);
      }
    },
    180_000,
  );
});
