// The distributed mode as docker-compose runs it: `migrate`, then `api`, `qualifier`, `dispatcher`,
// `workers` and `simulator --scheme visa|mastercard|amex` as separate processes of the real CLI on the real
// Kafka (values single-object encoded, or through the registry when SCHEMA_REGISTRY_URL is set) and a fresh
// PostgreSQL database — which the simulators never open: they get no DATABASE_URL, only a database of their
// own (SIMULATOR_DATABASE_URL), and learn the service clock's advances over the bus. A test purchase made over the api process's HTTP port comes back as signed webhooks
// on a local receiver; so do a live program's sync and a live missing-transaction request after advances
// of the service clock, which every process follows.
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { freePort } from "../support/role-process.ts";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { localAt } from "../../src/domain/local-dates.ts";
import { openPostgres, type Db } from "../../src/platform/db.ts";
import { CARD_NUMBERS } from "../support/fixtures.ts";
import { haveInfra, infra } from "../support/infra.ts";
import { deleteNamespace } from "../support/kafka.ts";
import { startReceiver, type Receiver } from "../support/receiver.ts";
import { hopFigures } from "../../src/platform/metrics/index.ts";
import { sample } from "../support/metrics.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
// What `npx tsx` runs (the Dockerfile's entrypoint is `npx tsx src/main.ts`), without npm in between.
const TSX = join(ROOT, "node_modules/.bin/tsx");
const ADMIN_TOKEN = `adm_${randomBytes(16).toString("hex")}`;

interface Role {
  name: string;
  child: ChildProcess;
  output: string[];
}

describe.skipIf(!haveInfra("kafkaBrokers", "databaseUrl"))("one role per process on Kafka and PostgreSQL", () => {
  const database = `cardlink_roles_${randomBytes(4).toString("hex")}`;
  const simulatorDatabase = `${database}_simulators`;
  // Topics and consumer groups of this run's own, as a fresh deployment has: the simulators read
  // simulator.settings from its start (their store is new), which must not hold another run's clock.
  const namespace = `roles-${randomBytes(4).toString("hex")}`;
  const dataDir = mkdtempSync(join(tmpdir(), "cardlink-roles-"));
  const roles: Role[] = [];
  let server: Db;
  let receiver: Receiver;
  let api: string;
  let env: Record<string, string | undefined>;
  /** Each role's HEALTH_PORT (health, readiness and /metrics). */
  const healthPorts = new Map<string, number>();

  /** Runs `tsx src/main.ts <args>` in a process group of its own, so a stop reaches tsx's node child too. */
  function run(name: string, args: string[], roleEnv = env): Role {
    const port = healthPorts.get(name);
    const childEnv = port ? { ...roleEnv, HEALTH_PORT: String(port) } : roleEnv;
    const child = spawn(TSX, ["src/main.ts", ...args], { cwd: ROOT, env: childEnv, stdio: ["ignore", "pipe", "pipe"], detached: true });
    const role = { name, child, output: [] as string[] };
    const keep = (d: Buffer) => void role.output.push(d.toString());
    child.stdout!.on("data", keep);
    child.stderr!.on("data", keep);
    roles.push(role);
    return role;
  }

  /** Resolves when the role's output matches `ready`; fails if the role exits first or takes over 60 s. */
  function until(role: Role, ready: RegExp): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => fail(new Error(`${role.name}: not ready after 60 s:\n${role.output.join("")}`)), 60_000);
      const check = () => {
        if (ready.test(role.output.join(""))) done();
      };
      const exited = (code: number | null) => fail(new Error(`${role.name}: exited with ${code}:\n${role.output.join("")}`));
      function done() {
        clearTimeout(timer);
        role.child.stdout!.off("data", check);
        role.child.off("exit", exited);
        resolve();
      }
      function fail(err: Error) {
        done();
        reject(err);
      }
      role.child.stdout!.on("data", check);
      role.child.once("exit", exited);
      check();
    });
  }

  async function stop(role: Role): Promise<void> {
    const { child } = role;
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    process.kill(-child.pid!, "SIGTERM");
    const timer = setTimeout(() => process.kill(-child.pid!, "SIGKILL"), 15_000);
    await exited;
    clearTimeout(timer);
  }

  beforeAll(async () => {
    server = openPostgres(infra.databaseUrl!, { max: 1 });
    await server.exec(`create database ${database}`);
    await server.exec(`create database ${simulatorDatabase}`);
    const url = new URL(infra.databaseUrl!);
    url.pathname = `/${database}`;
    const simulatorUrl = new URL(infra.databaseUrl!);
    simulatorUrl.pathname = `/${simulatorDatabase}`;
    const port = await freePort();
    api = `http://127.0.0.1:${port}`;
    env = { ...process.env, DATABASE_URL: url.toString(), DATA_DIR: dataDir, PORT: String(port), ADMIN_TOKEN, LOG_LEVEL: "info", KAFKA_NAMESPACE: namespace };
    const simulatorEnv = { ...env, DATABASE_URL: undefined, SIMULATOR_DATABASE_URL: simulatorUrl.toString() };
    receiver = await startReceiver();
    for (const name of ["api", "qualifier", "dispatcher", "workers", "simulator"]) healthPorts.set(name, await freePort());

    // As compose orders it: migrate runs to completion before any role starts.
    const migrate = run("migrate", ["migrate"]);
    const code = await new Promise<number | null>((resolve) => migrate.child.once("exit", resolve));
    expect(code, migrate.output.join("")).toBe(0);
    await Promise.all([
      until(run("api", ["api"]), /"msg":"api listening"/),
      until(run("qualifier", ["qualifier"]), /"msg":"role running"/),
      until(run("dispatcher", ["dispatcher"]), /"msg":"role running"/),
      until(run("workers", ["workers"]), /"msg":"role running"/),
      until(run("simulator", ["simulator", "--scheme", "visa"], simulatorEnv), /"msg":"simulator running"/),
      until(run("simulator-mastercard", ["simulator", "--scheme", "mastercard"], simulatorEnv), /"msg":"simulator running"/),
      until(run("simulator-amex", ["simulator", "--scheme", "amex"], simulatorEnv), /"msg":"simulator running"/),
    ]);
  }, 120_000);

  it("says which Kafka value codec the bus roles use", () => {
    const codec = infra.schemaRegistryUrl ? '"codec":"schema registry"' : '"codec":"single-object"';
    for (const name of ["qualifier", "simulator"]) expect(roles.find((r) => r.name === name)!.output.join("")).toContain(codec);
  });

  it("runs the simulators on a database of their own", () => {
    for (const name of ["simulator", "simulator-mastercard", "simulator-amex"]) {
      expect(roles.find((r) => r.name === name)!.output.join("")).toContain('"store":"PostgreSQL (SIMULATOR_DATABASE_URL)"');
    }
  });

  afterAll(async () => {
    await Promise.all(roles.map(stop));
    await receiver?.close();
    await deleteNamespace(namespace);
    await server?.exec(`drop database if exists ${database} with (force)`);
    await server?.exec(`drop database if exists ${simulatorDatabase} with (force)`);
    await server?.close();
    rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  const call = async <T = Record<string, unknown>>(method: string, path: string, headers: Record<string, string>, body?: unknown, status = [200, 201]) => {
    const res = await fetch(api + path, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    if (!status.includes(res.status)) throw new Error(`${method} ${path}: HTTP ${res.status} ${text}`);
    return { status: res.status, body: JSON.parse(text) as T };
  };

  it("qualifies a test purchase made through the api process and delivers its signed webhooks", { timeout: 90_000 }, async () => {
    const account = (await call<{ id: string; keys: { test: string } }>("POST", "/admin/accounts", { Authorization: `Bearer ${ADMIN_TOKEN}` }, { name: "Roles", tier: "standard" })).body;
    const key = { "Cardlink-Key": account.keys.test };
    const post = async (path: string, body: unknown) => (await call<{ id: string; secret: string }>("POST", path, key, body)).body;
    const program = await post("/v1/programs", { name: "Distributed" });
    const brand = await post("/v1/brands", { name: "Coffee House" });
    const location = await post(`/v1/programs/${program.id}/locations`, { address: "1 High Street", brandId: brand.id, city: "London", countryCode: "GBR", postcode: "SW1A 1AA" });
    const card = await post(`/v1/programs/${program.id}/cards`, { number: CARD_NUMBERS.test, expMonth: 12, expYear: 2030, countryCode: "GBR", termsOfUse: true });
    // Service time runs at real speed in every process: the offer started yesterday in London.
    const startDate = localAt(new Date(Date.now() - 86_400_000), "Europe/London");
    const offer = await post("/v1/offers", { brandId: brand.id, countryCode: "GBR", name: "10% off coffee", publisherId: account.id, startDate, type: { name: "discount", value: 10 } });
    await post(`/v1/offers/${offer.id}/locations/${location.id}`, {});
    const secrets: Record<string, string> = {};
    for (const event of ["transaction.auth", "transaction.auth.qualified"]) {
      secrets[event] = (await post(`/v1/programs/${program.id}/hooks`, { event, url: receiver.url })).secret;
    }

    // 201 with the qualifier's result, or 202 if the qualifier process took longer than the api waits.
    const sent = await call<{ id: string }>("POST", "/v1/transactions/test", key, { cardId: card.id, locationId: location.id, amount: 40 }, [201, 202]);
    const mine = () => receiver.received.filter((r) => (JSON.parse(r.body) as { data: { id: string } }).data.id === sent.body.id);
    const deadline = Date.now() + 60_000;
    while (mine().length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));

    const events = mine().map((r) => ({ raw: r, body: JSON.parse(r.body) as { event: string; data: { offer: Record<string, unknown> } } }));
    expect(events.map((e) => e.body.event).sort()).toEqual(["transaction.auth", "transaction.auth.qualified"]);
    for (const { raw, body } of events) {
      expect(new Webhook(secrets[body.event]!).verify(raw.body, raw.headers as Record<string, string>)).toEqual(body);
      expect(body.data.offer).toMatchObject({ id: offer.id, cashback: 4, qualified: true });
    }

    // Each role's health port serves its metrics, with the hop it timed for this purchase.
    const metricsOf = async (name: string) => {
      const res = await fetch(`http://127.0.0.1:${healthPorts.get(name)}/metrics`);
      expect(res.status, name).toBe(200);
      return res.text();
    };
    const hopCount = async (name: string, hop: "api" | "simulator" | "qualifier" | "dispatcher") => hopFigures(await metricsOf(name))[hop]?.count ?? 0;
    expect(await hopCount("api", "api")).toBeGreaterThanOrEqual(1);
    expect(sample(await metricsOf("api"), "cardlink_http_requests_total", { method: "POST", route: "/v1/transactions/test", status: String(sent.status) })).toBe(1);
    expect(await hopCount("simulator", "simulator")).toBeGreaterThanOrEqual(1);
    expect(await hopCount("qualifier", "qualifier")).toBeGreaterThanOrEqual(1);
    const qualifier = await metricsOf("qualifier");
    expect(sample(qualifier, "cardlink_bus_batch_size_count", { group: "qualifier", topic: "visa.transactions" })).toBeGreaterThanOrEqual(1);
    expect(qualifier).toMatch(/^cardlink_bus_consumer_lag\{group="qualifier",topic="visa.transactions",partition="\d+"\} \d+$/m);
    // The dispatcher counts an attempt once its answer is back, a moment after the receiver has it.
    const counted = Date.now() + 10_000;
    while ((await hopCount("dispatcher", "dispatcher")) < 2 && Date.now() < counted) await new Promise((r) => setTimeout(r, 50));
    expect(await hopCount("dispatcher", "dispatcher")).toBeGreaterThanOrEqual(2);
    expect(sample(await metricsOf("dispatcher"), "cardlink_webhook_deliveries_total", { outcome: "delivered" })).toBeGreaterThanOrEqual(2);
    expect(sample(await metricsOf("workers"), "cardlink_process_resident_memory_bytes")).toBeGreaterThan(0);
  });

  it("syncs a live program and answers a live missing-transaction request across the processes", { timeout: 180_000 }, async () => {
    const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };
    const account = (await call<{ id: string; keys: { live: string } }>("POST", "/admin/accounts", admin, { name: "Live roles", tier: "premium" })).body;
    const key = { "Cardlink-Key": account.keys.live };
    const post = async (path: string, body: unknown) => (await call<{ id: string; secret: string }>("POST", path, key, body)).body;
    const program = await post("/v1/programs", { name: "Live distributed" });
    const brand = await post("/v1/brands", { name: "Corner Shop" });
    await call("POST", `/admin/brands/${brand.id}/consent`, admin, { decision: "approved" });
    const location = await post(`/v1/programs/${program.id}/locations`, { address: "5 Bridge Street", brandId: brand.id, city: "Bath", countryCode: "GBR", postcode: "BA2 4AS" });
    const card = await post(`/v1/programs/${program.id}/cards`, { number: CARD_NUMBERS.live, expMonth: 12, expYear: 2030, countryCode: "GBR", termsOfUse: true });
    const secrets: Record<string, string> = {};
    for (const event of ["location.status", "missing-transaction-request.succeeded"]) {
      secrets[event] = (await post(`/v1/programs/${program.id}/hooks`, { event, url: receiver.url })).secret;
    }
    type Event = { event: string; data: { id?: string; scheme?: string; status?: string; location?: { id: string } } };
    const verified = (where: (e: Event) => boolean) =>
      receiver.received
        .map((raw) => ({ raw, body: JSON.parse(raw.body) as Event }))
        .filter(({ body }) => where(body))
        .map(({ raw, body }) => {
          expect(new Webhook(secrets[body.event]!).verify(raw.body, raw.headers as Record<string, string>)).toEqual(body);
          return body;
        });
    const until = async <T>(what: string, get: () => Promise<T> | T, done: (v: T) => boolean): Promise<T> => {
      const deadline = Date.now() + 60_000;
      for (;;) {
        const value = await get();
        if (done(value)) return value;
        if (Date.now() > deadline) throw new Error(`${what}: not within 60 s: ${JSON.stringify(value)}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    const advance = (days: number) => call("POST", "/admin/clock/advance", admin, { days });

    const started = (await call<{ status: string; sync: { id: string } }>("PATCH", `/v1/programs/${program.id}`, key, { status: "syncing" })).body;
    expect(started.status).toBe("syncing");
    expect(await call("PATCH", `/v1/programs/${program.id}`, key, { status: "syncing" }, [409]).then((r) => JSON.stringify(r.body))).toContain(started.sync.id);
    await advance(15);
    const statuses = await until(
      "three location.status events",
      () => verified((e) => e.event === "location.status" && e.data.location?.id === location.id),
      (events) => events.length >= 3,
    );
    expect(statuses.map((e) => [e.data.scheme, e.data.status]).sort()).toEqual([
      ["amex", "location.active"],
      ["mastercard", "location.active"],
      ["visa", "location.active"],
    ]);
    await until("the sync's end", async () => (await call<{ status: string }>("GET", `/v1/programs/${program.id}`, key)).body.status, (s) => s === "idle");

    // The Visa network makes a purchase with the card at the location (generated traffic kept to the program).
    await call("POST", "/admin/simulators/traffic/start", admin, {
      rate: 1,
      seed: 3,
      durationSeconds: 1,
      schemes: ["visa"],
      programId: program.id,
      unenrolledCards: 0,
      unknownMerchants: 0,
      notOnboardedLocations: 0,
    });
    type Tx = { datetime: string; amount: number; location: { id: string } };
    const [purchase] = await until(
      "the network's purchase",
      async () => (await call<{ items: Tx[] }>("GET", `/v1/programs/${program.id}/transactions?cardId=${card.id}`, key)).body.items,
      (items) => items.length > 0,
    );
    const request = (
      await call<{ id: string; status: string }>("POST", `/v1/cards/${card.id}/missing-transaction-requests`, key, {
        locationId: purchase!.location.id,
        transactionDate: purchase!.datetime.slice(0, 10),
        amount: purchase!.amount,
      })
    ).body;
    expect(request.status).toBe("pending");
    await advance(4);
    const [succeeded] = await until(
      "missing-transaction-request.succeeded",
      () => verified((e) => e.event === "missing-transaction-request.succeeded" && e.data.id === request.id),
      (events) => events.length === 1,
    );
    expect(succeeded!.data).toMatchObject({ id: request.id, status: "successful" });
    const found = (succeeded!.data as { result: { transactions: Record<string, unknown>[] } }).result.transactions;
    // Visa reports the authorization, and the settlement too when its simulator process had followed the
    // clock to the clearing before it read the look-up (processes follow an advance within half a second).
    expect(found.at(-1)).toMatchObject({ type: "authorization", amount: purchase!.amount, networkStatus: "SUCCEED", matchScore: 100 });
    expect(found.map((t) => t.type)).toEqual(found.length === 2 ? ["settlement", "authorization"] : ["authorization"]);
  });
});
