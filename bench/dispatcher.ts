// `npm run bench -- dispatcher`: webhook deliveries a second from the dispatcher to a local receiver (in a
// process of its own), beside a baseline in the same run: a plain keep-alive HTTP client (undici, the
// same concurrency) posting the same bodies to the same receiver with no database. The dispatcher's
// figure is end to end: outbox events fanned out, deliveries claimed, signed, sent and every attempt
// recorded. PGlite always; PostgreSQL too when DATABASE_URL is set.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, request } from "undici";
import { loadConfig } from "../src/platform/config/index.ts";
import { openSystem } from "../src/app/system.ts";
import { createApp } from "../src/api/app.ts";
import { createDispatcher } from "../src/dispatcher/dispatcher.ts";
import { startChildReceiver, type ChildReceiver } from "./support/child-receiver.ts";
import { ownDatabase } from "./support/own-database.ts";

const EVENTS = Number(process.env.BENCH_DISPATCHER_EVENTS ?? 1_250);
const HOOKS = Number(process.env.BENCH_DISPATCHER_HOOKS ?? 16);
const CONCURRENCY = 256;
const ADMIN = "adm_bench_token_0123456789abcdef";
const TOTAL = EVENTS * HOOKS;

// A transaction webhook's data, about 1 KB like the real ones.
const data = (i: number) => ({
  id: `0b9e7a52-3c1f-4b8e-9d2a-${String(i).padStart(12, "0")}`,
  type: "auth",
  amount: 12.5,
  currency: "GBP",
  datetime: "2026-01-05T12:00:00",
  cardId: "5f0c8a1e-2b3d-4e5f-8a9b-0c1d2e3f4a5b",
  locationId: "6a1b2c3d-4e5f-4a6b-8c7d-8e9f0a1b2c3d",
  brandId: "7b2c3d4e-5f6a-4b7c-9d8e-9f0a1b2c3d4e",
  programId: "8c3d4e5f-6a7b-4c8d-8e9f-0a1b2c3d4e5f",
  auth: true,
  cleared: false,
  identifiers: { MID: "4445001234567", visaAuthCode: "A1B2C3", caid: "000000004445001", acquirerBin: "412345" },
  card: { firstNumbers: "444400", lastNumbers: "4001", scheme: "visa" },
  location: { address: "1 High Street", city: "London", postcode: "SW1A 1AA", countryCode: "GBR", metadata: {} },
  offer: { id: "9d4e5f6a-7b8c-4d9e-8f0a-1b2c3d4e5f6a", cashback: 1.25, performanceFee: 0.19, qualified: true, qualificationDate: null, message: [] },
  metadata: { customerId: "cus_0123456789", note: "bench" },
});

const rate = (n: number, ms: number) => Math.round((n / ms) * 1000);
const fmt = (n: number) => n.toLocaleString("en-US");

async function baseline(receiver: ChildReceiver): Promise<number> {
  const bodies = Array.from({ length: TOTAL }, (_, i) =>
    JSON.stringify({ id: crypto.randomUUID(), event: "transaction.auth", created: new Date().toISOString(), data: data(i % EVENTS) }),
  );
  const agent = new Agent({ keepAliveTimeout: 10_000 });
  await receiver.reset();
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < bodies.length) {
        const body = bodies[next++]!;
        const res = await request(receiver.url, { method: "POST", headers: { "content-type": "application/json" }, body, dispatcher: agent });
        await res.body.dump();
      }
    }),
  );
  const ms = performance.now() - started;
  await agent.close();
  return rate(TOTAL, ms);
}

async function dispatcherRun(receiver: ChildReceiver, databaseUrl: string | undefined) {
  const dataDir = mkdtempSync(join(tmpdir(), "cardlink-bench-dispatcher-"));
  const env: Record<string, string | undefined> = { ...process.env, DATA_DIR: dataDir, ADMIN_TOKEN: ADMIN, LOG_LEVEL: "warn", CLOCK_SPEED: "1" };
  delete env.DATABASE_URL;
  const own = databaseUrl ? await ownDatabase(databaseUrl, "dispatcher") : undefined;
  const config = loadConfig({ ...env, ...(own ? { DATABASE_URL: own.url } : {}) });
  const system = await openSystem(config, { command: "bench dispatcher", bus: true });
  const { services } = system;
  try {
    const app = createApp(services, { adminToken: ADMIN });
    const call = async <T>(method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<T> => {
      const res = await app.request(path, { method, headers: { ...headers, "content-type": "application/json" }, ...(body ? { body: JSON.stringify(body) } : {}) });
      if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
      return (await res.json()) as T;
    };
    const account = await call<{ id: string; keys: { test: string } }>("POST", "/admin/accounts", { Authorization: `Bearer ${ADMIN}` }, { name: "Bench", tier: "standard" });
    const key = { "Cardlink-Key": account.keys.test };
    const program = await call<{ id: string }>("POST", "/v1/programs", key, { name: "Bench" });
    for (let i = 0; i < HOOKS; i++) await call("POST", `/v1/programs/${program.id}/hooks`, key, { event: "transaction.auth", url: receiver.url });
    // The events, as the qualifier writes them: one set-based insert.
    await services.db.query(
      `insert into outbox_events (id, account_id, live, program_id, event, data, created)
       select gen_random_uuid(), $1, false, $2, 'transaction.auth', $3::jsonb || jsonb_build_object('n', g), $4
       from generate_series(1, $5) g`,
      [account.id, program.id, JSON.stringify(data(0)), services.clock.now(), EVENTS],
    );
    await receiver.reset();
    const dispatcher = createDispatcher({ ...services, concurrency: CONCURRENCY });
    const started = performance.now();
    dispatcher.start();
    while ((await receiver.count()) < TOTAL) await new Promise((resolve) => setTimeout(resolve, 20));
    const sent = performance.now();
    for (;;) {
      const [row] = await services.db.query<{ n: number }>(
        "select count(*)::int as n from webhook_deliveries where account_id = $1 and status = 'succeeded'",
        [account.id],
      );
      if (row!.n >= TOTAL) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const recorded = performance.now();
    await dispatcher.stop();
    const [attempts] = await services.db.query<{ n: number }>(
      "select count(*)::int as n from webhook_attempts a join webhook_deliveries d on d.id = a.delivery_id where d.account_id = $1",
      [account.id],
    );
    return { sentMs: sent - started, recordedMs: recorded - started, attempts: attempts!.n, received: await receiver.count() };
  } finally {
    await system.close();
    await own?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const receiver = await startChildReceiver();
try {
  process.stdout.write(
    `dispatcher: ${fmt(EVENTS)} events x ${HOOKS} hooks = ${fmt(TOTAL)} deliveries of ~1 KB, ${CONCURRENCY} in flight at most, ` +
      `receiver in its own process (2-core machine; other work may run beside it)\n`,
  );
  const base = await baseline(receiver);
  process.stdout.write(`  baseline, plain undici keep-alive client, no database:   ${fmt(base)} deliveries/s\n`);
  const engines: [string, string | undefined][] = [["PGlite", undefined]];
  if (process.env.DATABASE_URL) engines.push(["PostgreSQL", process.env.DATABASE_URL]);
  else process.stdout.write("  PostgreSQL: skipped (set DATABASE_URL)\n");
  const ratios: string[] = [];
  for (const [name, url] of engines) {
    const r = await dispatcherRun(receiver, url);
    const perSecond = rate(TOTAL, r.recordedMs);
    ratios.push(`${name} ${((perSecond / base) * 100).toFixed(0)}%`);
    process.stdout.write(
      `  dispatcher on ${name.padEnd(10)} ${fmt(perSecond).padStart(8)} deliveries/s sent and recorded ` +
        `(all sent in ${(r.sentMs / 1000).toFixed(2)} s, recorded in ${(r.recordedMs / 1000).toFixed(2)} s; ` +
        `${fmt(r.received)} received, ${fmt(r.attempts)} attempts recorded)\n`,
    );
  }
  process.stdout.write(`  dispatcher / baseline: ${ratios.join(", ")}\n`);
} finally {
  receiver.close();
}
