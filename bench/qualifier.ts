// `npm run bench -- qualifier`: throughput and latency of the streaming qualifier — Visa auth messages
// for enrolled cards at locations with live offers, published on the bus, each matched, decided and
// written with its outbox events. PGlite on the embedded log by default; PostgreSQL when DATABASE_URL
// is set, and Kafka when KAFKA_BROKERS is set.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../src/platform/config/index.ts";
import { openSystem } from "../src/app/system.ts";
import { createApp } from "../src/api/app.ts";
import { topicSpecs } from "../src/platform/bus/topics.ts";
import { startQualifier, type Outcome } from "../src/qualifier/index.ts";
import { transactionIdFor } from "../src/domain/transaction-id.ts";
import { onboarded, visaAuth } from "./visa-world.ts";

const COUNT = Number(process.env.BENCH_QUALIFIER_COUNT ?? 3_000);
const LOCATIONS = 20;
// Test keys take Visa test numbers 4444000000004xxx: a hundred distinct cards.
const CARDS = 100;
const ADMIN = "adm_bench_token_0123456789abcdef";

const dataDir = mkdtempSync(join(tmpdir(), "cardlink-bench-qualifier-"));
const config = loadConfig({ ...process.env, DATA_DIR: dataDir, ADMIN_TOKEN: ADMIN, LOG_LEVEL: "warn", RATE_LIMIT_PER_SECOND: "1000000", RATE_LIMIT_BURST: "1000000" });
const system = await openSystem(config, { command: "bench qualifier", bus: true });
const { services } = system;
await services.bus.createTopics(topicSpecs());
const app = createApp(services, { adminToken: ADMIN });

async function call<T>(method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<T> {
  const res = await app.request(path, { method, headers: { ...headers, "content-type": "application/json" }, ...(body ? { body: JSON.stringify(body) } : {}) });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

// The world: a test account with locations of one brand, two live offers on each, and enrolled cards.
const account = await call<{ id: string; keys: { test: string } }>("POST", "/admin/accounts", { Authorization: `Bearer ${ADMIN}` }, { name: "Bench", tier: "premium" });
const key = { "Cardlink-Key": account.keys.test };
const program = await call<{ id: string }>("POST", "/v1/programs", key, { name: "Bench" });
const brand = await call<{ id: string; name: string }>("POST", "/v1/brands", key, { name: "Bench Coffee" });
const start = new Date(services.clock.now().getTime() - 86_400_000).toISOString().slice(0, 10) + "T00:00:00";
const offers = [
  await call<{ id: string }>("POST", "/v1/offers", key, { brandId: brand.id, countryCode: "GBR", name: "10%", publisherId: account.id, startDate: start, type: { name: "discount", value: 10 } }),
  await call<{ id: string }>("POST", "/v1/offers", key, { brandId: brand.id, countryCode: "GBR", name: "£3", publisherId: account.id, startDate: start, type: { name: "amount", value: 3 } }),
];
type Location = { id: string; city: string; status: { visa: { mids: { vmid: string; vsid: string; visaAcquiringMid: string; visaBin: string }[] } } };
const locations: Location[] = [];
for (let i = 0; i < LOCATIONS; i++) {
  const location = await call<Location>("POST", `/v1/programs/${program.id}/locations`, key, { brandId: brand.id, address: `${i} High Street`, city: "London", postcode: "SW1A 1AA", countryCode: "GBR" });
  for (const offer of offers) await call("POST", `/v1/offers/${offer.id}/locations/${location.id}`, key);
  locations.push(location);
}
locations.splice(0, locations.length, ...(await onboarded(services, locations, (id) => call<Location>("GET", `/v1/locations/${id}`, key))));
const luhn = (body: string) => {
  const sum = [...body].reverse().reduce((acc, d, i) => acc + (i % 2 === 0 ? [0, 2, 4, 6, 8, 1, 3, 5, 7, 9][Number(d)]! : Number(d)), 0);
  return body + String((10 - (sum % 10)) % 10);
};
const cards: { id: string; firstNumbers: string; lastNumbers: string }[] = [];
for (let i = 0; i < CARDS; i++) {
  const number = luhn(`4444000000004${String(i).padStart(2, "0")}`);
  cards.push(await call("POST", `/v1/programs/${program.id}/cards`, key, { number, expMonth: 12, expYear: 2030, countryCode: "GBR", termsOfUse: true }));
}

// The messages, as the Visa network would send them.
const now = services.clock.now();
const messages = Array.from({ length: COUNT }, (_, i) => {
  const card = cards[i % CARDS]!;
  return visaAuth({
    id: `bench-${process.pid}-${i}`,
    card: { id: card.id, firstSix: card.firstNumbers, lastFour: card.lastNumbers },
    location: locations[i % LOCATIONS]!,
    brandName: brand.name,
    merchantName: "BENCH COFFEE LONDON",
    amount: 5 + (i % 50),
    now,
  });
});

// Latency: from publishing a message to the qualifier having committed its transaction.
const latencies: number[] = [];
const sentAt = new Map<string, number>();
let recorded = 0;
let finished!: () => void;
const all = new Promise<void>((resolve) => (finished = resolve));
const subscription = await startQualifier({
  ...services,
  onOutcome: (outcome: Outcome) => {
    if (outcome.kind !== "recorded") throw new Error(`unexpected outcome ${JSON.stringify(outcome)}`);
    latencies.push(performance.now() - sentAt.get(outcome.transactionId)!);
    if (++recorded === COUNT) finished();
  },
});
const began = performance.now();
for (const m of messages) {
  sentAt.set(transactionIdFor("visa", "purchase", m.value.transactionId), performance.now());
  await services.bus.publish("visa.transactions", m.key, m.value);
}
const published = performance.now();
await all;
const done = performance.now();
await subscription.stop();

const qualified = await services.db.query<{ n: number }>(
  "select count(*)::int as n from transactions where account_id = $1 and (offer->>'qualified')::boolean",
  [account.id],
);
latencies.sort((a, b) => a - b);
const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!.toFixed(1);
const rate = (n: number, ms: number) => Math.round((n / ms) * 1000);
process.stdout.write(
  `qualifier on ${config.DATABASE_URL ? "PostgreSQL" : "PGlite"} and ${services.bus.kind === "kafka" ? "Kafka" : "the embedded log"}: ` +
    `${COUNT} Visa auths, ${CARDS} cards, ${LOCATIONS} locations with 2 live offers each\n` +
    `  published in ${(published - began).toFixed(0)} ms; all recorded after ${(done - began).toFixed(0)} ms\n` +
    `  throughput: ${rate(COUNT, done - began)} transactions/s (matched, decided, written with their outbox events)\n` +
    `  latency:    p50 ${at(0.5)} ms, p95 ${at(0.95)} ms, p99 ${at(0.99)} ms from publish to commit (the publisher runs ahead of the qualifier)\n` +
    `  qualified:  ${qualified[0]!.n} of ${COUNT}\n` +
    `  rss after:  ${Math.round(process.memoryUsage().rss / 2 ** 20)} MiB\n`,
);
await system.close();
rmSync(dataDir, { recursive: true, force: true });
