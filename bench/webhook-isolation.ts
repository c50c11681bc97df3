// `npm run bench -- webhook-isolation`: account A's webhook latency (event written -> received by A's
// endpoint) p50/p99, without and then with 20 black-hole hooks of account B (they accept the TCP
// connection and never answer), both at the same offered load, in one run. PGlite, real-time clock,
// the dispatcher with its defaults (20 s response timeout) and kicked on each write, as `npm start` runs it.
import { mkdtempSync, rmSync } from "node:fs";
import { createServer as createTcpServer, type AddressInfo, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../src/platform/config/index.ts";
import { openSystem } from "../src/app/system.ts";
import { createApp } from "../src/api/app.ts";
import { createDispatcher } from "../src/dispatcher/dispatcher.ts";
import { enqueueEvent } from "../src/platform/outbox.ts";
import { webhookServer } from "../src/cli/webhook-receiver.ts";

const SECONDS = Number(process.env.BENCH_ISOLATION_SECONDS ?? 30);
const RATE_A = 20; // events a second for account A's one hook
const RATE_B = 20; // events a second for account B's hooks (each to all 20 of them)
const BLACK_HOLES = 20;
const ADMIN = "adm_bench_token_0123456789abcdef";

// A's endpoint, the shared receiver: answers 200 at once and notes when each event arrived.
const arrived = new Map<string, number>();
const receiver = webhookServer({
  now: () => performance.now(),
  onDelivery: ({ headers, receivedAt }) => {
    arrived.set(String(headers["webhook-id"]), receivedAt);
    return 200;
  },
});
// B's endpoints: accept and hold every connection, never answer.
const held: Socket[] = [];
const blackHole = createTcpServer((socket) => void held.push(socket));
const listen = (server: { listen(port: number, host: string, cb: () => void): unknown; address(): unknown }) =>
  new Promise<string>((resolve) => server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`)));
const receiverUrl = await listen(receiver);
const blackHoleUrl = await listen(blackHole);

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;

async function scenario(withBlackHoles: boolean) {
  const dataDir = mkdtempSync(join(tmpdir(), "cardlink-bench-isolation-"));
  const env: Record<string, string | undefined> = { ...process.env, DATA_DIR: dataDir, ADMIN_TOKEN: ADMIN, LOG_LEVEL: "error", CLOCK_SPEED: "1" };
  delete env.DATABASE_URL;
  const system = await openSystem(loadConfig(env), { command: "bench webhook-isolation", bus: true });
  const { services } = system;
  const app = createApp(services, { adminToken: ADMIN });
  const call = async <T>(method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<T> => {
    const res = await app.request(path, { method, headers: { ...headers, "content-type": "application/json" }, ...(body ? { body: JSON.stringify(body) } : {}) });
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };
  const world = async (name: string, hooks: number, url: string) => {
    const account = await call<{ id: string; keys: { test: string } }>("POST", "/admin/accounts", { Authorization: `Bearer ${ADMIN}` }, { name, tier: "standard" });
    const key = { "Cardlink-Key": account.keys.test };
    const program = await call<{ id: string }>("POST", "/v1/programs", key, { name });
    for (let i = 0; i < hooks; i++) await call("POST", `/v1/programs/${program.id}/hooks`, key, { event: "transaction.auth", url });
    return { accountId: account.id, programId: program.id };
  };
  const a = await world("A", 1, receiverUrl);
  const b = await world("B", withBlackHoles ? BLACK_HOLES : 0, blackHoleUrl);
  const dispatcher = createDispatcher(services);
  dispatcher.start();
  const written = new Map<string, number>();
  const write = async (who: { accountId: string; programId: string }, n: number) => {
    const id = await enqueueEvent(services.db, { ...who, live: false, event: "transaction.auth", data: { n } }, services.clock.now());
    dispatcher.kick();
    return id;
  };
  const started = performance.now();
  let n = 0;
  while (performance.now() - started < SECONDS * 1000) {
    const tick = performance.now();
    for (let i = 0; i < RATE_A / 10; i++) written.set(await write(a, n++), performance.now());
    for (let i = 0; i < RATE_B / 10; i++) await write(b, n++);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, 100 - (performance.now() - tick))));
  }
  // Give A's last deliveries time to arrive.
  const deadline = performance.now() + 10_000;
  while ([...written.keys()].some((id) => !arrived.has(id)) && performance.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  const latencies = [...written].filter(([id]) => arrived.has(id)).map(([id, at]) => arrived.get(id)! - at).sort((x, y) => x - y);
  await dispatcher.stop();
  await system.close();
  rmSync(dataDir, { recursive: true, force: true });
  return { sent: written.size, received: latencies.length, p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: latencies.at(-1) ?? NaN };
}

process.stdout.write(
  `webhook isolation: ${SECONDS} s at ${RATE_A} events/s to account A's one hook and ${RATE_B} events/s to account B's hooks; ` +
    `PGlite, real-time clock, 20 s response timeout (2-core machine; other work may run beside it)\n`,
);
const rows: [string, Awaited<ReturnType<typeof scenario>>][] = [];
rows.push(["without black holes", await scenario(false)]);
rows.push([`with ${BLACK_HOLES} black-hole hooks of B`, await scenario(true)]);
for (const [name, r] of rows) {
  process.stdout.write(
    `  ${name.padEnd(30)} A: ${r.received}/${r.sent} received, p50 ${r.p50.toFixed(0)} ms, p99 ${r.p99.toFixed(0)} ms, max ${r.max.toFixed(0)} ms\n`,
  );
}
process.stdout.write(`  p99 added by the black holes: ${(rows[1]![1].p99 - rows[0]![1].p99).toFixed(0)} ms (goal: < 1000 ms); black-hole connections opened: ${held.length}\n`);
for (const s of held) s.destroy();
receiver.closeAllConnections();
receiver.close();
blackHole.close();
