// `npm run bench -- purchases`: test purchases (POST /v1/transactions/test — the API, the scheme simulator,
// the bus, the qualifier, the database, the answer; then the dispatcher's webhook) at constant arrival
// rates, on each shape Cardlink runs in: `embedded` (one `cardlink start` process, PGlite and the embedded
// log, as `npm start`) and, when DATABASE_URL and KAFKA_BROKERS are set, `stack` (the roles as processes on
// PostgreSQL and Kafka, as docker-compose.yml). A webhook receiver runs in a process of its own. An open
// model: requests start on schedule however slowly the answers come, so a slow service shows as latency and
// timeouts, never as a quietly lower rate. Printed side by side, per shape and offered rate: purchases
// answered per second, webhooks delivered per second, answer p50/p99, purchase → webhook p50/p99 and the
// time per hop and the database statements a purchase cost (from the roles' /metrics); beside them GET /v1/cards/{id} at the same rate (the HTTP stack
// and the key check without the stream) and the qualifier's own rate on the same shape (bench/pipeline.ts,
// run after) with the ratio of the two.
// Environment: PURCHASE_RATES (30,300,1000), PURCHASE_SECONDS (10 at each rate), PURCHASE_SHAPES (embedded,stack
// — stack only with DATABASE_URL and KAFKA_BROKERS), PURCHASE_CARDS (30), PURCHASE_LOCATIONS (10),
// PURCHASE_WEBHOOK_WAIT_S (30: how long to wait for the last webhooks), PURCHASE_PIPELINE_COUNT (20,000
// messages for the qualifier's own rate; 0 leaves it out), PURCHASE_SERVER_ARGS (node options for every
// Cardlink process, e.g. `--cpu-prof --cpu-prof-dir=DIR`), PURCHASE_CLOSED_CLIENTS (32) and PURCHASE_CLOSED_COUNT
// (3,000; 0 leaves it out): after the rates, a closed model — that many clients, each sending its next request
// when the last is answered — buys PURCHASE_CLOSED_COUNT purchases to their webhooks, then asks GET /health as
// many times; the purchases' end-to-end rate over /health's is the front door's share of what the HTTP stack
// alone carries under the same client.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { Pool } from "undici";
import { poolCall, purchaseWorld } from "./support/purchase-world.ts";
import { startChildReceiver } from "./support/child-receiver.ts";
import { startEmbedded, startStack, type Cardlink, type Shape } from "./support/cardlink.ts";
import { counterTotal, hopTimes, readMetrics, type MetricsSnapshot } from "./support/metrics.ts";

const RATES = (process.env.PURCHASE_RATES ?? "30,300,1000").split(",").map(Number);
const SECONDS = Number(process.env.PURCHASE_SECONDS ?? 10);
const CARDS = Number(process.env.PURCHASE_CARDS ?? 30);
const LOCATIONS = Number(process.env.PURCHASE_LOCATIONS ?? 10);
const WEBHOOK_WAIT_MS = Number(process.env.PURCHASE_WEBHOOK_WAIT_S ?? 30) * 1000;
const PIPELINE_COUNT = Number(process.env.PURCHASE_PIPELINE_COUNT ?? 20_000);
const TIMEOUT_MS = 30_000;
const canStack = Boolean(process.env.DATABASE_URL && process.env.KAFKA_BROKERS);
const SHAPES = (process.env.PURCHASE_SHAPES ? process.env.PURCHASE_SHAPES.split(",") : ["embedded", ...(canStack ? ["stack"] : [])]) as Shape[];
const CLOSED_CLIENTS = Number(process.env.PURCHASE_CLOSED_CLIENTS ?? 32);
const CLOSED_COUNT = Number(process.env.PURCHASE_CLOSED_COUNT ?? 3_000);
const serverArgs = process.env.PURCHASE_SERVER_ARGS ? process.env.PURCHASE_SERVER_ARGS.split(" ") : [];
const log = (line: string) => process.stdout.write(line + "\n");

const quantile = (sorted: number[], q: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! : NaN);
const ms = (n: number) => (Number.isNaN(n) ? "-" : n >= 10_000 ? `${(n / 1000).toFixed(1)} s` : `${n.toFixed(0)} ms`);

interface Sent {
  at: number;
  latency?: number;
  status: string;
  id?: string;
}

/** Starts `rate` requests a second for SECONDS seconds, on schedule whatever the answers do. */
async function drive(rate: number, make: (i: number) => Promise<{ status: number; id?: string }>): Promise<{ sent: Sent[]; began: number; offeredMs: number }> {
  const total = rate * SECONDS;
  const sent: Sent[] = [];
  const inFlight: Promise<void>[] = [];
  const began = performance.now();
  const beganAt = Date.now();
  for (let i = 0; i < total; i++) {
    const due = began + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    const one: Sent = { at: Date.now(), status: "pending" };
    sent.push(one);
    const t = performance.now();
    inFlight.push(
      make(i).then(
        ({ status, id }) => {
          one.latency = performance.now() - t;
          one.status = String(status);
          if (id) one.id = id;
        },
        (err: unknown) => void (one.status = (err as { code?: string }).code ?? "error"),
      ),
    );
  }
  const offeredMs = performance.now() - began;
  await Promise.all(inFlight);
  return { sent, began: beganAt, offeredMs };
}

/** `count` requests from `clients` clients, each sending its next when the last is answered. */
async function closedLoop(clients: number, count: number, make: (i: number) => Promise<{ status: number; id?: string }>): Promise<{ sent: Sent[]; began: number; ms: number }> {
  const sent: Sent[] = [];
  let next = 0;
  const began = Date.now();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      for (let i = next++; i < count; i = next++) {
        const one: Sent = { at: Date.now(), status: "pending" };
        sent.push(one);
        const t = performance.now();
        try {
          const { status, id } = await make(i);
          Object.assign(one, { latency: performance.now() - t, status: String(status) }, id ? { id } : {});
        } catch (err) {
          one.status = (err as { code?: string }).code ?? "error";
        }
      }
    }),
  );
  return { sent, began, ms: performance.now() - t0 };
}

function statuses(sent: Sent[]): string {
  const counts = new Map<string, number>();
  for (const s of sent) counts.set(s.status, (counts.get(s.status) ?? 0) + 1);
  return [...counts].map(([s, n]) => `${s}: ${n}`).join(", ");
}

async function qualifierRate(shape: Shape): Promise<number | undefined> {
  if (PIPELINE_COUNT <= 0) return undefined;
  const env = {
    ...process.env,
    PIPELINE_COUNT: String(PIPELINE_COUNT),
    PIPELINE_RATE_SECONDS: "2",
    PIPELINE_DELIVERIES: "1000",
    ...(shape === "embedded" ? { DATABASE_URL: "", KAFKA_BROKERS: "", SCHEMA_REGISTRY_URL: "" } : {}),
  };
  const child = spawn(process.execPath, ["--import", "tsx", "bench/pipeline.ts"], { cwd: fileURLToPath(new URL("..", import.meta.url)), env, stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  const found = out.match(/\(b\) qualifier end to end: (\d+) transactions\/s/);
  if (code !== 0 || !found) throw new Error(`bench/pipeline.ts exited with ${code}:\n${out}`);
  return Number(found[1]);
}

async function run(shape: Shape): Promise<void> {
  const receiver = await startChildReceiver();
  const cardlink: Cardlink =
    shape === "embedded" ? await startEmbedded(serverArgs) : await startStack(process.env.DATABASE_URL!, process.env.KAFKA_BROKERS!, serverArgs);
  const pool = new Pool(cardlink.url, { connections: 512, pipelining: 1, keepAliveTimeout: 30_000, headersTimeout: TIMEOUT_MS, bodyTimeout: TIMEOUT_MS });
  const call = poolCall(pool);
  let bestDelivered = 0;
  try {
    const admin = { Authorization: `Bearer ${cardlink.admin}` };
    const { key, cards, locations } = await purchaseWorld(call, admin, { name: "Bench", cards: CARDS, locations: LOCATIONS, hookUrl: receiver.url });
    log(
      `purchases on ${shape === "embedded" ? "one cardlink start process (PGlite, embedded log)" : "the roles as processes (api, 2 qualifiers, dispatcher, workers, 3 simulators; PostgreSQL, Kafka)"}: ` +
        `${CARDS} test cards, ${LOCATIONS} locations, a live offer on each, one hook; ${SECONDS} s at each rate; the receiver and this driver in processes of their own`,
    );

    const purchase = (i: number) =>
      call<{ id?: string }>("POST", "/v1/transactions/test", key, { cardId: cards[i % cards.length]!, locationId: locations[i % locations.length]!, amount: 5 + (i % 250) });
    /** The receiver's arrivals once every accepted purchase's webhook came, or PURCHASE_WEBHOOK_WAIT_S passed. */
    const arrivalsOf = async (accepted: Sent[]) => {
      const waitBegan = performance.now();
      let arrivals = await receiver.arrivals();
      while (accepted.some((s) => !arrivals.has(s.id!)) && performance.now() - waitBegan < WEBHOOK_WAIT_MS) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        arrivals = await receiver.arrivals();
      }
      return arrivals;
    };

    for (const rate of RATES) {
      const baseline = await drive(rate, async (i) => ({ status: (await call("GET", `/v1/cards/${cards[i % cards.length]!}`, key)).status }));
      const baseLatencies = baseline.sent.flatMap((s) => (s.latency === undefined ? [] : [s.latency])).sort((a, b) => a - b);

      await receiver.reset();
      const before: MetricsSnapshot = await readMetrics(cardlink.metrics);
      const statementsBefore = await counterTotal(cardlink.metrics, "cardlink_db_statements_total");
      const purchases = await drive(rate, async (i) => {
        const res = await purchase(i);
        return { status: res.status, ...(res.json?.id ? { id: res.json.id } : {}) };
      });
      const accepted = purchases.sent.filter((s) => s.id && (s.status === "201" || s.status === "202"));
      const arrivals = await arrivalsOf(accepted);
      const after: MetricsSnapshot = await readMetrics(cardlink.metrics);
      const statements = (await counterTotal(cardlink.metrics, "cardlink_db_statements_total")) - statementsBefore;

      const answered = purchases.sent.filter((s) => s.status === "201");
      const answers = purchases.sent.flatMap((s) => (s.latency === undefined ? [] : [s.latency])).sort((a, b) => a - b);
      const lastAnswer = Math.max(...purchases.sent.map((s) => s.at + (s.latency ?? 0)));
      const toWebhook = accepted.flatMap((s) => (arrivals.has(s.id!) ? [arrivals.get(s.id!)! - s.at] : [])).sort((a, b) => a - b);
      const lastWebhook = Math.max(...accepted.map((s) => arrivals.get(s.id!) ?? 0));
      const answeredRate = answered.length / ((lastAnswer - purchases.began) / 1000);
      const deliveredRate = toWebhook.length / ((lastWebhook - purchases.began) / 1000);
      bestDelivered = Math.max(bestDelivered, deliveredRate);
      log(`  offered ${rate}/s (${Math.round((rate * SECONDS * 1000) / purchases.offeredMs)}/s achieved by the driver)`);
      log(`    baseline GET /v1/cards/{id}: ${statuses(baseline.sent)}; answer p50 ${ms(quantile(baseLatencies, 0.5))}, p99 ${ms(quantile(baseLatencies, 0.99))}`);
      log(
        `    purchases: ${statuses(purchases.sent)}; ${answeredRate.toFixed(0)} answered 201 a second; answer p50 ${ms(quantile(answers, 0.5))}, p99 ${ms(quantile(answers, 0.99))}`,
      );
      log(
        `    webhooks: ${toWebhook.length} of ${accepted.length} delivered, ${Number.isFinite(deliveredRate) ? deliveredRate.toFixed(0) : "-"} a second; ` +
          `purchase → webhook p50 ${ms(quantile(toWebhook, 0.5))}, p99 ${ms(quantile(toWebhook, 0.99))}`,
      );
      log(`    database statements, every role: ${statements} from the purchases' start to their last webhook, ${(statements / Math.max(1, answered.length)).toFixed(2)} a purchase`);
      for (const line of hopTimes(before, after)) log(`    ${line}`);
    }

    if (CLOSED_COUNT > 0) {
      await receiver.reset();
      const buy = (i: number) => purchase(i).then((res) => ({ status: res.status, ...(res.json?.id ? { id: res.json.id } : {}) }));
      const bought = await closedLoop(CLOSED_CLIENTS, CLOSED_COUNT, buy);
      const accepted = bought.sent.filter((s) => s.id && s.status === "201");
      const arrivals = await arrivalsOf(accepted);
      const lastWebhook = Math.max(...accepted.map((s) => arrivals.get(s.id!) ?? 0));
      const endToEnd = accepted.filter((s) => arrivals.has(s.id!)).length / ((lastWebhook - bought.began) / 1000);
      const health = await closedLoop(CLOSED_CLIENTS, CLOSED_COUNT, async () => ({ status: (await call("GET", "/health", {})).status }));
      const healthRate = health.sent.filter((s) => s.status === "200").length / (health.ms / 1000);
      log(
        `  closed model, ${CLOSED_CLIENTS} clients, ${CLOSED_COUNT} purchases: ${statuses(bought.sent)}; ${arrivals.size} webhooks; ` +
          `${endToEnd.toFixed(0)} purchases → webhooks a second; GET /health ${healthRate.toFixed(0)} a second (${statuses(health.sent)}); ` +
          `ratio ${(endToEnd / healthRate).toFixed(3)}`,
      );
    }
  } finally {
    await pool.close();
    await cardlink.close();
    receiver.close();
  }
  const own = await qualifierRate(shape);
  if (own !== undefined) {
    log(
      `  the qualifier fed directly on the same shape (bench/pipeline.ts, ${PIPELINE_COUNT} messages): ${own} transactions/s; ` +
        `best webhooks delivered a second above: ${bestDelivered.toFixed(0)} (${((bestDelivered / own) * 100).toFixed(1)}% of it)`,
    );
  }
}

for (const shape of SHAPES) await run(shape);
