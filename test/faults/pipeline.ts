// Cardlink in its distributed mode for the fault suite: api, two qualifier replicas, dispatcher, workers
// and the Visa simulator as separate processes of the real CLI on the private stack; a program with
// cards, a location, an offer and a hook to a local receiver; a stream of test purchases at a steady
// rate, each with its own Idempotency-Key; and the outcome of a stream checked against the database and
// the receiver.
import { randomBytes, randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, fetch } from "undici";
import { localAt } from "../../src/domain/local-dates.ts";
import { luhnCheckDigit } from "../../src/domain/luhn.ts";
import { openPostgres, type Db } from "../../src/platform/db.ts";
import { startReceiver, type Receiver } from "../support/receiver.ts";
import { freePort, outputMatches, startRole, stopRole, type RoleProcess } from "../support/role-process.ts";
import type { FaultStack } from "./fault-stack.ts";

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ADMIN_TOKEN = `adm_${randomBytes(16).toString("hex")}`;
/** Where each role's output is written when the pipeline closes. */
export const LOGS = join(tmpdir(), "cardlink-fault-logs");

const READY: Record<string, RegExp> = {
  api: /"msg":"api listening"/,
  simulator: /"msg":"simulator running"/,
};

export interface Pipeline {
  api: string;
  receiver: Receiver;
  db: Db;
  roles: Map<string, RoleProcess>;
  healthPort(name: string): number;
  /** SIGKILL the role's whole process group. */
  kill(name: string): void;
  /** Starts the role again under the same name and waits until it runs. */
  restart(name: string): Promise<void>;
  close(): Promise<void>;
}

export async function startPipeline(stack: FaultStack): Promise<Pipeline> {
  const dataDir = mkdtempSync(join(tmpdir(), "cardlink-fault-"));
  const db = openPostgres(stack.databaseUrl, { max: 2 });
  const receiver = await startReceiver();
  const apiPort = await freePort();
  const env = (extra: Record<string, string> = {}) => ({
    ...process.env,
    DATABASE_URL: stack.databaseUrl,
    KAFKA_BROKERS: stack.kafkaBrokers,
    SCHEMA_REGISTRY_URL: "",
    DATA_DIR: dataDir,
    ADMIN_TOKEN,
    LOG_LEVEL: "info",
    ...extra,
  });
  const migrate = startRole("migrate", ["migrate"], env());
  const migrated = await new Promise((resolve) => migrate.child.once("exit", resolve));
  if (migrated !== 0) throw new Error(`migrate exited with ${String(migrated)}:\n${migrate.output.join("")}`);

  const healthPorts = new Map<string, number>();
  const commands = new Map<string, { args: string[]; env: Record<string, string | undefined> }>();
  commands.set("api", { args: ["api"], env: env({ PORT: String(apiPort) }) });
  for (const [name, role] of [["qualifier-1", "qualifier"], ["qualifier-2", "qualifier"], ["dispatcher", "dispatcher"], ["workers", "workers"]] as const) {
    healthPorts.set(name, await freePort());
    commands.set(name, { args: [role], env: env({ HEALTH_PORT: String(healthPorts.get(name)) }) });
  }
  commands.set("simulator", { args: ["simulator", "--scheme", "visa"], env: env() });

  const roles = new Map<string, RoleProcess>();
  async function launch(name: string): Promise<void> {
    const command = commands.get(name)!;
    const role = startRole(name, command.args, command.env);
    roles.set(name, role);
    await outputMatches(role, READY[name] ?? /"msg":"role running"/, 90_000);
  }
  await Promise.all([...commands.keys()].map(launch));

  return {
    api: `http://127.0.0.1:${apiPort}`,
    receiver,
    db,
    roles,
    healthPort: (name) => healthPorts.get(name)!,
    kill(name) {
      process.kill(-roles.get(name)!.child.pid!, "SIGKILL");
    },
    restart: launch,
    async close() {
      await Promise.all([...roles.values()].map(stopRole));
      // The roles' logs stay for a look after a failure.
      mkdirSync(LOGS, { recursive: true });
      for (const [name, role] of roles) writeFileSync(join(LOGS, `${name}.log`), role.output.join(""));
      await receiver.close();
      await db.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface World {
  key: Record<string, string>;
  programId: string;
  locationId: string;
  cardIds: string[];
}

async function call<T>(api: string, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<T> {
  const res = await fetch(api + path, { method, headers: { ...headers, "content-type": "application/json" }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: HTTP ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

/**
 * A program of its own for one scenario: cards (spread over partitions), an onboarded location, an offer, a
 * hook; all in a sandbox of the scenario's account whose clock runs two days ahead of the service clock, so
 * every fault meets a sandbox's time on each hop (its purchases, the networks' messages, its events).
 */
export async function setUpWorld(p: Pipeline, name: string, cards = 8): Promise<World> {
  const account = await call<{ id: string; keys: { test: string } }>(p.api, "POST", "/admin/accounts", { Authorization: `Bearer ${ADMIN_TOKEN}` }, { name, tier: "standard" });
  const ahead = new Date(Date.now() + 2 * 86_400_000).toISOString();
  const sandbox = await call<{ id: string; keys: { test: string } }>(p.api, "POST", "/v1/sandboxes", { "Cardlink-Key": account.keys.test }, { name, clock: { at: ahead } });
  const key = { "Cardlink-Key": sandbox.keys.test };
  const post = (path: string, body: unknown) => call<{ id: string }>(p.api, "POST", path, key, body);
  const program = await post("/v1/programs", { name });
  const brand = await post("/v1/brands", { name: "Coffee House" });
  const location = await post(`/v1/programs/${program.id}/locations`, { address: "1 High Street", brandId: brand.id, city: "London", countryCode: "GBR", postcode: "SW1A 1AA" });
  const cardIds: string[] = [];
  for (let i = 0; i < cards; i++) {
    const payload = `4444000000004${String(10 + i).padStart(2, "0")}`;
    const card = await post(`/v1/programs/${program.id}/cards`, { number: payload + luhnCheckDigit(payload), expMonth: 12, expYear: 2030, countryCode: "GBR", termsOfUse: true });
    cardIds.push(card.id);
  }
  const startDate = localAt(new Date(Date.now() - 86_400_000), "Europe/London");
  const offer = await post("/v1/offers", { brandId: brand.id, countryCode: "GBR", name: "10% off", publisherId: sandbox.id, startDate, type: { name: "discount", value: 10 } });
  await post(`/v1/offers/${offer.id}/locations/${location.id}`, {});
  await post(`/v1/programs/${program.id}/hooks`, { event: "transaction.auth", url: p.receiver.url });
  // The location's MIDs come back from the simulated network over the bus (test onboarding).
  const deadline = Date.now() + 60_000;
  for (;;) {
    const current = await call<{ status: { visa: { mids: unknown[] } } }>(p.api, "GET", `/v1/locations/${location.id}`, key);
    if (current.status.visa.mids.length > 0) break;
    if (Date.now() > deadline) throw new Error(`location ${location.id} has no Visa MIDs after 60 s`);
    await sleep(100);
  }
  return { key, programId: program.id, locationId: location.id, cardIds };
}

export interface Answer {
  n: number;
  status: number;
  ms: number;
  /** When it was sent, ms since the stream started. */
  at: number;
  id?: string;
  /** Why no answer came (status 0). */
  error?: string;
}

export interface Stream {
  t0: number;
  answers: Answer[];
  /** How many purchases were sent so far. */
  sent(): number;
  /** Ends the stream and waits for every answer. */
  end(): Promise<void>;
}

/**
 * The stream's HTTP client. An idle keep-alive connection is dropped after 1 s, well before the api's
 * 5 s (Node's keep-alive timeout): with undici's default, a margin of 1 s, a busy test process reused
 * connections the server was closing ("other side closed"), which says nothing about Cardlink.
 */
const client = new Agent({ keepAliveMaxTimeout: 1_000 });

/** Test purchases at `perSecond`, round-robin over the world's cards. */
export function stream(p: Pipeline, world: World, perSecond: number): Stream {
  const answers: Answer[] = [];
  const inFlight: Promise<void>[] = [];
  const t0 = performance.now();
  let on = true;
  let count = 0;
  const loop = (async () => {
    for (let n = 0; on; n++) {
      count = n + 1;
      const sent = performance.now();
      inFlight.push(
        fetch(`${p.api}/v1/transactions/test`, {
          dispatcher: client,
          method: "POST",
          headers: { ...world.key, "content-type": "application/json", "Idempotency-Key": randomUUID() },
          body: JSON.stringify({ cardId: world.cardIds[n % world.cardIds.length], locationId: world.locationId, amount: 10 + (n % 50) }),
        }).then(
          async (res) => {
            const body = (await res.json().catch(() => ({}))) as { id?: string };
            answers.push({ n, status: res.status, ms: performance.now() - sent, at: sent - t0, ...(body.id && res.status < 300 ? { id: body.id } : {}) });
          },
          (err: unknown) => {
            const cause = err instanceof Error ? (err.cause instanceof Error ? `${err.message}: ${err.cause.message}` : err.message) : String(err);
            answers.push({ n, status: 0, ms: performance.now() - sent, at: sent - t0, error: cause });
          },
        ),
      );
      // A steady rate: the next send is due at n+1 periods from the start, whatever this one cost.
      await sleep(Math.max(0, t0 + ((n + 1) * 1000) / perSecond - performance.now()));
    }
  })();
  return {
    t0,
    answers,
    sent: () => count,
    async end() {
      on = false;
      await loop;
      await Promise.all(inFlight);
    },
  };
}

/** transaction id → the distinct event ids its transaction.auth webhooks came with. */
function deliveries(receiver: Receiver): Map<string, Set<string>> {
  const byTransaction = new Map<string, Set<string>>();
  for (const r of receiver.received) {
    const id = (JSON.parse(r.body) as { data: { id: string } }).data.id;
    const events = byTransaction.get(id) ?? new Set<string>();
    events.add(String(r.headers["webhook-id"]));
    byTransaction.set(id, events);
  }
  return byTransaction;
}

/**
 * Polls until the first `sent` purchases of the stream (all of them when not given) are answered and every
 * accepted one has its webhook, or `ms` passed; returns when, in stream time.
 */
export async function caughtUp(p: Pipeline, s: Stream, ms: number, sent?: number): Promise<number | undefined> {
  const deadline = Date.now() + ms;
  for (;;) {
    const upTo = sent ?? s.sent();
    const answered = s.answers.filter((a) => a.n < upTo);
    const delivered = deliveries(p.receiver);
    if (answered.length === upTo && answered.every((a) => !a.id || delivered.has(a.id))) return performance.now() - s.t0;
    if (Date.now() > deadline) return undefined;
    await sleep(100);
  }
}

export interface Outcome {
  purchases: number;
  statuses: Record<number, number>;
  slowestMs: number;
  /** Answers other than 201, 202 and 503 (a dropped connection is status 0). */
  wrongAnswers: Answer[];
  recordedNotAccepted: string[];
  acceptedNotRecorded: string[];
  recordedTwice: number;
  acceptedWithoutWebhook: string[];
  /** Transactions whose transaction.auth webhook came under more than one event id. */
  rewardedTwice: string[];
  deadRoles: string[];
}

/** What one stream left behind, read from the answers, the database and the receiver. */
export async function outcome(p: Pipeline, world: World, s: Stream): Promise<Outcome> {
  const accepted = new Set(s.answers.filter((a) => a.id).map((a) => a.id!));
  const rows = await p.db.query<{ id: string; purchase_key: string }>("select id, purchase_key from transactions where program_id = $1", [world.programId]);
  const recorded = new Set(rows.map((r) => r.id));
  const delivered = deliveries(p.receiver);
  return {
    purchases: s.answers.length,
    statuses: s.answers.reduce<Record<number, number>>((m, a) => ({ ...m, [a.status]: (m[a.status] ?? 0) + 1 }), {}),
    slowestMs: Math.round(Math.max(...s.answers.map((a) => a.ms))),
    wrongAnswers: s.answers.filter((a) => ![201, 202, 503].includes(a.status)),
    recordedNotAccepted: [...recorded].filter((id) => !accepted.has(id)),
    acceptedNotRecorded: [...accepted].filter((id) => !recorded.has(id)),
    recordedTwice: rows.length - new Set(rows.map((r) => r.purchase_key)).size,
    acceptedWithoutWebhook: [...accepted].filter((id) => !delivered.has(id)),
    rewardedTwice: [...accepted].filter((id) => (delivered.get(id)?.size ?? 0) > 1),
    deadRoles: [...p.roles.values()].filter((r) => !r.alive()).map((r) => `${r.name}:\n${r.output.join("").slice(-4_000)}`),
  };
}
