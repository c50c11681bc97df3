// The API test harness: a Cardlink app on a fresh database, accounts made through the admin API, and
// typed request helpers. Requests go through the app's fetch handler, as HTTP would. The bus is the
// embedded log in memory, or the real Kafka bus in a namespace of the harness's own.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { assembleSystem } from "../../src/app/system.ts";
import { serviceClock, type Runtime } from "../../src/app/runtime.ts";
import { loadConfig, type Config } from "../../src/platform/config/index.ts";
import { createWebApp } from "../../src/app/http.ts";
import { openPglite, openPostgres, type Db } from "../../src/platform/db.ts";
import { migrate } from "../../src/platform/migrate.ts";
import { randomBase62 } from "../../src/platform/ids.ts";
import { haveInfra, infra } from "./infra.ts";
import { createEmbeddedLog } from "../../src/platform/bus/embedded-log.ts";
import { topicSpecs } from "../../src/platform/bus/topics.ts";
import type { Bus } from "../../src/platform/bus/bus.ts";
import { createTestKafkaBus, deleteNamespace } from "./kafka.ts";
import { migrateSimulatorStore } from "../../simulators/host/store.ts";
import { createMetrics } from "../../src/platform/metrics/index.ts";

export const ADMIN_TOKEN = "adm_test_token_0123456789abcdef";

export type Engine = "pglite" | "postgres";

/** The engines this machine runs: PGlite, and PostgreSQL when DATABASE_URL is set. */
export const ENGINES: Engine[] = ["pglite", ...(haveInfra("databaseUrl") ? (["postgres"] as const) : [])];
export type BusKind = Bus["kind"];

/** A migrated database, with the simulators' tables too: as under `npm start`, they share it. */
export async function openTestDb(engine: Engine = "pglite"): Promise<Db> {
  const db = engine === "postgres" ? openPostgres(infra.databaseUrl!, { max: 4 }) : await openPglite(undefined);
  await migrate(db);
  await migrateSimulatorStore(db);
  return db;
}

/**
 * A PostgreSQL database of the test's own, dropped on close: for suites whose background work takes
 * whatever is due in the whole database (a dispatcher claims every due delivery), which other suites
 * running at the same time on the shared database would otherwise take from them.
 */
async function openOwnPostgres(): Promise<Db> {
  const server = openPostgres(infra.databaseUrl!, { max: 1 });
  const name = `cardlink_own_${randomBase62(10).toLowerCase()}`;
  await server.exec(`create database ${name}`);
  const url = new URL(infra.databaseUrl!);
  url.pathname = `/${name}`;
  const db = openPostgres(url.toString(), { max: 4 });
  await migrate(db);
  await migrateSimulatorStore(db);
  const close = db.close.bind(db);
  db.close = async () => {
    await close();
    await server.exec(`drop database if exists ${name} with (force)`);
    await server.close();
  };
  return db;
}

export interface Harness {
  services: Runtime;
  config: Config;
  /** On Kafka: the namespace of the harness's topics and groups, for a role process to join (KAFKA_NAMESPACE). */
  kafkaNamespace?: string;
  request(method: string, path: string, init?: { body?: unknown; headers?: Record<string, string> }): Promise<Response>;
  admin(method: string, path: string, body?: unknown): Promise<Response>;
  createAccount(opts?: { tier?: "standard" | "premium"; name?: string }): Promise<TestAccount>;
  /** A client that sends `key` (a sandbox's, say), with `headers` besides. */
  clientWithKey(key: string, headers?: Record<string, string>): Client;
  close(): Promise<void>;
}

export interface TestAccount {
  id: string;
  tier: string;
  keys: { test: string; live: string };
  /** A client that sends this account's key of the given environment. */
  as(env: "test" | "live"): Client;
}

export interface Client {
  get(path: string): Promise<Response>;
  post(path: string, body?: unknown): Promise<Response>;
  patch(path: string, body?: unknown): Promise<Response>;
  delete(path: string): Promise<Response>;
}

/** Starts an app on a fresh in-memory PGlite (or the real PostgreSQL) with a frozen clock. */
export async function createHarness(
  options: { engine?: Engine; bus?: BusKind; env?: Record<string, string>; clockStart?: string; ownDatabase?: boolean } = {},
): Promise<Harness> {
  const config = loadConfig({
    // A folder of its own for what a role keeps in files (the mail kept without SMTP_URL), never the checkout's .data.
    DATA_DIR: mkdtempSync(join(tmpdir(), "cardlink-harness-")),
    CLOCK_SPEED: "0",
    CLOCK_START: options.clockStart ?? "2026-01-05T12:00:00Z",
    RATE_LIMIT_PER_SECOND: "10000",
    RATE_LIMIT_BURST: "10000",
    LOG_LEVEL: "silent",
    ...options.env,
  });
  const db = options.engine === "postgres" && options.ownDatabase ? await openOwnPostgres() : await openTestDb(options.engine);
  const clock = serviceClock(db, config);
  // Either way, what the API publishes stays inside this harness: the embedded log in memory, or
  // Kafka topics and consumer groups under a namespace of its own, deleted on close.
  // The bus reports its consumers' batches to the registry the services serve, as in a process.
  const metrics = createMetrics();
  const kafka = options.bus === "kafka" ? createTestKafkaBus(() => clock.now(), { label: "harness", observer: metrics.consumers }) : undefined;
  const bus = kafka?.bus ?? createEmbeddedLog({ observer: metrics.consumers });
  await bus.createTopics(topicSpecs());
  const system = assembleSystem({ config, db, clock, bus, metrics });
  const { services } = system;
  const app = createWebApp(services, { adminToken: ADMIN_TOKEN });
  const keyHeader = `${config.SERVICE_NAME}-Key`;

  const request: Harness["request"] = (method, path, init = {}) => {
    const headers: Record<string, string> = { ...init.headers };
    let body: string | undefined;
    if (init.body !== undefined) {
      headers["content-type"] ??= "application/json";
      body = typeof init.body === "string" ? init.body : JSON.stringify(init.body);
    }
    return Promise.resolve(app.request(path, { method, headers, ...(body !== undefined ? { body } : {}) }));
  };
  const admin: Harness["admin"] = (method, path, body) =>
    request(method, path, { body, headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } });

  const clientFor = (key: string, extra: Record<string, string> = {}): Client => {
    const headers = { ...extra, [keyHeader]: key };
    return {
      get: (path) => request("GET", path, { headers }),
      post: (path, body) => request("POST", path, { body: body ?? {}, headers }),
      patch: (path, body) => request("PATCH", path, { body: body ?? {}, headers }),
      delete: (path) => request("DELETE", path, { headers }),
    };
  };

  return {
    services,
    config,
    ...(kafka ? { kafkaNamespace: kafka.namespace } : {}),
    request,
    admin,
    clientWithKey: clientFor,
    async createAccount({ tier = "standard", name = "Test publisher" } = {}) {
      const res = await admin("POST", "/admin/accounts", { name, tier });
      if (res.status !== 201) throw new Error(`account create failed: ${res.status} ${await res.text()}`);
      const account = (await res.json()) as { id: string; tier: string; keys: { test: string; live: string } };
      return { ...account, as: (env) => clientFor(account.keys[env]) };
    },
    async close() {
      await system.close();
      if (kafka) await deleteNamespace(kafka.namespace);
    },
  };
}

/** Reads a JSON body, failing the test with the body text when the status is not the expected one. */
export async function expectStatus<T = Record<string, unknown>>(res: Response, status: number): Promise<T> {
  const text = await res.text();
  if (res.status !== status) throw new Error(`expected HTTP ${status}, got ${res.status}: ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

/** The error body of a failed request, after checking its status and code. */
export async function expectError(res: Response, status: number, code: string): Promise<string> {
  const body = await expectStatus<{ error: { code: string; message: string; requestId: string } }>(res, status);
  if (body.error.code !== code) throw new Error(`expected error ${code}, got ${body.error.code}: ${body.error.message}`);
  if (!body.error.requestId) throw new Error("error body has no requestId");
  return body.error.message;
}
