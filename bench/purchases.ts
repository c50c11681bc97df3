// `npm run bench -- purchases`: test purchases (POST /v1/transactions/test — the scheme simulator, the bus,
// the qualifier, the database, the answer; then the webhook) at a constant arrival rate against Cardlink
// started as `npm start` starts it (one process: PGlite and the embedded log, a fresh data directory), with
// a webhook receiver in a process of its own. Beside it, in the same run and at the same rate, the baseline:
// GET /v1/cards/{cardId} — the same HTTP stack, key check and one read, without the stream. An open model:
// requests start on schedule however slowly the answers come, so a slow service shows as latency and
// timeouts, never as a quietly lower rate. PURCHASE_RATE (1,000/s), PURCHASE_SECONDS (10; 60 for the full minute), PURCHASE_CARDS
// (30), PURCHASE_LOCATIONS (10), PURCHASE_WEBHOOK_WAIT_S (30: how long to wait for the last webhooks).
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Pool } from "undici";
import { testCardNumbers } from "../load/card-numbers.js";
import { startChildReceiver } from "./support/child-receiver.ts";

const RATE = Number(process.env.PURCHASE_RATE ?? 1_000);
const SECONDS = Number(process.env.PURCHASE_SECONDS ?? 10);
const CARDS = Number(process.env.PURCHASE_CARDS ?? 30);
const LOCATIONS = Number(process.env.PURCHASE_LOCATIONS ?? 10);
const WEBHOOK_WAIT_MS = Number(process.env.PURCHASE_WEBHOOK_WAIT_S ?? 30) * 1000;
const TIMEOUT_MS = 30_000;
const ADMIN = "adm_bench_purchases_0123456789abcdef";
const PORT = 3300 + (process.pid % 500);
const base = `http://127.0.0.1:${PORT}`;
const log = (line: string) => process.stdout.write(line + "\n");

// ------------------------------------------------------------------------------ Cardlink, as npm start
const dataDir = mkdtempSync(join(tmpdir(), "cardlink-bench-purchases-"));
const root = fileURLToPath(new URL("..", import.meta.url));
// PURCHASE_SERVER_ARGS: more node options for the server (`--cpu-prof --cpu-prof-dir=DIR` to profile it).
const serverArgs = process.env.PURCHASE_SERVER_ARGS ? process.env.PURCHASE_SERVER_ARGS.split(" ") : [];
const server = spawn(process.execPath, [...serverArgs, "--import", "tsx", "src/main.ts", "start"], {
  cwd: root,
  stdio: ["ignore", "ignore", "inherit"],
  env: {
    ...process.env,
    DATA_DIR: dataDir,
    PORT: String(PORT),
    ADMIN_TOKEN: ADMIN,
    LOG_LEVEL: "warn",
    DATABASE_URL: "",
    KAFKA_BROKERS: "",
    SCHEMA_REGISTRY_URL: "",
    // One account's key sends everything: the per-key limit would otherwise answer 429.
    RATE_LIMIT_PER_SECOND: "1000000",
    RATE_LIMIT_BURST: "1000000",
    // One account sends everything: the per-account cap on purchases in flight would answer 429.
    TEST_PURCHASE_CONCURRENCY: "1000000",
  },
});
const pool = new Pool(base, { connections: 512, pipelining: 1, keepAliveTimeout: 30_000, headersTimeout: TIMEOUT_MS, bodyTimeout: TIMEOUT_MS });

async function call<T>(method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<{ status: number; json: T }> {
  const res = await pool.request({
    method: method as "GET",
    path,
    headers: { ...headers, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.body.text();
  return { status: res.statusCode, json: (text ? JSON.parse(text) : null) as T };
}

async function expect<T>(status: number, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<T> {
  const res = await call<T>(method, path, headers, body);
  if (res.status !== status) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.json)}`);
  return res.json;
}

const receiver = await startChildReceiver();
try {
  const started = performance.now();
  for (;;) {
    const up = await call("GET", "/health", {}).catch(() => undefined);
    if (up?.status === 200) break;
    if (server.exitCode !== null) throw new Error(`cardlink start exited with ${server.exitCode}`);
    if (performance.now() - started > 120_000) throw new Error("cardlink did not answer /health within 120 s");
    await new Promise((resolve) => setTimeout(resolve, 200));
  }

  // ---------------------------------------------------------------------------------------- fixture
  const account = await expect<{ id: string; keys: { test: string } }>(201, "POST", "/admin/accounts", { Authorization: `Bearer ${ADMIN}` }, { name: "Bench", tier: "premium" });
  const key = { "Cardlink-Key": account.keys.test };
  const program = await expect<{ id: string }>(201, "POST", "/v1/programs", key, { name: "Purchases" });
  const brand = await expect<{ id: string }>(201, "POST", "/v1/brands", key, { name: "Bench Coffee" });
  const locations = await Promise.all(
    Array.from({ length: LOCATIONS }, (_, i) =>
      expect<{ id: string }>(201, "POST", `/v1/programs/${program.id}/locations`, key, {
        brandId: brand.id,
        address: `${i + 1} High Street`,
        city: "London",
        postcode: "SW1A 1AA",
        countryCode: "GBR",
      }),
    ),
  );
  const clock = await expect<{ now: string }>(200, "GET", "/admin/clock", { Authorization: `Bearer ${ADMIN}` });
  const now = new Date(clock.now);
  const cards = await Promise.all(
    testCardNumbers(CARDS).map((number) =>
      expect<{ id: string }>(201, "POST", `/v1/programs/${program.id}/cards`, key, {
        number,
        expMonth: 12,
        expYear: now.getUTCFullYear() + 3,
        countryCode: "GBR",
        termsOfUse: true,
      }),
    ),
  );
  const offer = await expect<{ id: string }>(201, "POST", "/v1/offers", key, {
    brandId: brand.id,
    countryCode: "GBR",
    name: "10% off coffee",
    publisherId: account.id,
    startDate: new Date(now.getTime() - 2 * 86_400_000).toISOString().slice(0, 10) + "T00:00:00",
    type: { name: "discount", value: 10, maxRewardAmount: 25 },
    minTransactionAmount: 5,
  });
  await expect(200, "POST", `/v1/offers/${offer.id}/programs/${program.id}/locations`, key);
  await expect(201, "POST", `/v1/programs/${program.id}/hooks`, key, { event: "transaction.auth", url: receiver.url });
  log(
    `purchases: ${RATE}/s offered for ${SECONDS} s against one cardlink start process (PGlite, embedded log; ${CARDS} test cards, ` +
      `${LOCATIONS} locations, a live offer on each, one hook); the receiver and this driver in processes of their own`,
  );

  // ------------------------------------------------------------------------------- the two runs
  interface Tally {
    statuses: Map<string, number>;
    latencies: number[];
  }
  /** Starts RATE requests a second for SECONDS seconds, on schedule whatever the answers do. */
  async function drive(make: (i: number) => Promise<number>): Promise<Tally & { offeredMs: number }> {
    const tally: Tally = { statuses: new Map(), latencies: [] };
    const total = RATE * SECONDS;
    const inFlight: Promise<void>[] = [];
    const began = performance.now();
    for (let i = 0; i < total; i++) {
      const due = began + (i * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
      const sent = performance.now();
      inFlight.push(
        make(i).then(
          (status) => {
            tally.latencies.push(performance.now() - sent);
            tally.statuses.set(String(status), (tally.statuses.get(String(status)) ?? 0) + 1);
          },
          (err: unknown) => {
            const code = (err as { code?: string }).code ?? "error";
            tally.statuses.set(code, (tally.statuses.get(code) ?? 0) + 1);
          },
        ),
      );
    }
    const offeredMs = performance.now() - began;
    await Promise.all(inFlight);
    return { ...tally, offeredMs };
  }
  const describe = (name: string, t: Tally & { offeredMs: number }) => {
    t.latencies.sort((a, b) => a - b);
    const at = (q: number) => (t.latencies.length ? t.latencies[Math.min(t.latencies.length - 1, Math.floor(q * t.latencies.length))]!.toFixed(0) : "-");
    const statuses = [...t.statuses].map(([s, n]) => `${s}: ${n}`).join(", ");
    log(
      `  ${name.padEnd(38)} offered ${Math.round((RATE * SECONDS * 1000) / t.offeredMs)}/s; answered ${statuses}; ` +
        `latency ms p50 ${at(0.5)}, p95 ${at(0.95)}, p99 ${at(0.99)}, max ${at(1)}`,
    );
  };

  const baseline = await drive(async (i) => (await call("GET", `/v1/cards/${cards[i % cards.length]!.id}`, key)).status);
  describe("baseline: GET /v1/cards/{cardId}", baseline);

  await receiver.reset();
  const purchases = await drive(
    async (i) =>
      (
        await call("POST", "/v1/transactions/test", key, {
          cardId: cards[i % cards.length]!.id,
          locationId: locations[i % locations.length]!.id,
          amount: 5 + (i % 250),
        })
      ).status,
  );
  describe("POST /v1/transactions/test", purchases);
  const answered = purchases.statuses.get("201") ?? 0;
  const waitBegan = performance.now();
  let received = await receiver.count();
  while (received < answered && performance.now() - waitBegan < WEBHOOK_WAIT_MS) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    received = await receiver.count();
  }
  log(
    `  webhooks: ${received} transaction.auth received for ${answered} purchases answered 201 ` +
      `(${((performance.now() - waitBegan) / 1000).toFixed(1)} s after the last answer)`,
  );
  log(
    `ratios: purchases answered 201 ${((answered / (RATE * SECONDS)) * 100).toFixed(1)}% of offered; webhooks ${answered ? ((received / answered) * 100).toFixed(1) : "-"}% of answered`,
  );
} finally {
  receiver.close();
  await pool.close();
  server.kill("SIGTERM");
  await new Promise((resolve) => server.once("exit", resolve));
  rmSync(dataDir, { recursive: true, force: true });
}
