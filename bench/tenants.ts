// `npm run bench -- tenants`: many tenants, one server. Account B buys TENANTS_B_RATE times a second
// (POST /v1/transactions/test, an open model: on schedule however slowly answers come) alone, then beside
// account A at saturation (TENANTS_A_LOOPS purchase loops, each sending its next purchase when the last is
// answered, waiting Retry-After on a 429), in one run; B's answer and purchase → webhook p50/p99 are
// printed for both phases with their ratios, with A's throughput beside them. Both accounts subscribe their
// program to `transaction.auth` on one receiver in a process of its own. On each shape Cardlink runs in:
// `embedded` (one `cardlink start` process, as `npm start`) and, when DATABASE_URL and KAFKA_BROKERS are set,
// `stack` (the roles as processes on PostgreSQL and Kafka).
// Environment: TENANTS_SECONDS (30 per phase), TENANTS_B_RATE (10), TENANTS_A_LOOPS (64), TENANTS_WARMUP_S (5:
// A alone before B's second phase), TENANTS_SHAPES (embedded,stack), TENANTS_SERVER_ENV (space-separated
// NAME=value pairs for every Cardlink process, e.g. `ADMISSION_LATENCY_TOLERANCE=1.5`).
import { Pool } from "undici";
import { poolCall, purchaseWorld, type Call, type PurchaseWorld } from "./support/purchase-world.ts";
import { startChildReceiver, type ChildReceiver } from "./support/child-receiver.ts";
import { startEmbedded, startStack, type Cardlink, type Shape } from "./support/cardlink.ts";
import { hopTimes, readMetrics } from "./support/metrics.ts";

const SECONDS = Number(process.env.TENANTS_SECONDS ?? 30);
const B_RATE = Number(process.env.TENANTS_B_RATE ?? 10);
const A_LOOPS = Number(process.env.TENANTS_A_LOOPS ?? 64);
const WARMUP_MS = Number(process.env.TENANTS_WARMUP_S ?? 5) * 1000;
const WEBHOOK_WAIT_MS = 30_000;
const TIMEOUT_MS = 30_000;
const canStack = Boolean(process.env.DATABASE_URL && process.env.KAFKA_BROKERS);
const SHAPES = (process.env.TENANTS_SHAPES ? process.env.TENANTS_SHAPES.split(",") : ["embedded", ...(canStack ? ["stack"] : [])]) as Shape[];
const serverEnv = Object.fromEntries((process.env.TENANTS_SERVER_ENV ?? "").split(" ").filter(Boolean).map((pair) => pair.split("=", 2) as [string, string]));
const log = (line: string) => process.stdout.write(line + "\n");

const quantile = (sorted: number[], q: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! : NaN);
const ms = (n: number) => (Number.isNaN(n) ? "-" : `${n.toFixed(0)} ms`);
const ratio = (beside: number, alone: number) => (Number.isFinite(beside / alone) ? `×${(beside / alone).toFixed(2)}` : "-");

/** One purchase as the driver saw it: when it was sent (wall-clock ms), its answer's latency and status. */
interface Sent {
  at: number;
  latency?: number;
  status: string;
  id?: string;
}

/** A test account with a program, a live offer over its locations, test cards and a hook on the receiver. */
type Tenant = PurchaseWorld;

const makeTenant = (call: Call, admin: Record<string, string>, name: string, receiver: ChildReceiver): Promise<Tenant> =>
  purchaseWorld(call, admin, { name, cards: 12, locations: 6, hookUrl: receiver.url });

const purchaseBody = (tenant: Tenant, i: number) => ({
  cardId: tenant.cards[i % tenant.cards.length]!,
  locationId: tenant.locations[i % tenant.locations.length]!,
  amount: 5 + (i % 250),
});

/** B's purchases at B_RATE a second for SECONDS seconds, on schedule whatever the answers do. */
async function driveB(call: Call, b: Tenant): Promise<Sent[]> {
  const total = B_RATE * SECONDS;
  const sent: Sent[] = [];
  const inFlight: Promise<void>[] = [];
  const began = performance.now();
  for (let i = 0; i < total; i++) {
    const wait = began + (i * 1000) / B_RATE - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    const one: Sent = { at: Date.now(), status: "pending" };
    sent.push(one);
    const t = performance.now();
    inFlight.push(
      call("POST", "/v1/transactions/test", b.key, purchaseBody(b, i)).then(
        ({ status, json }) => {
          one.latency = performance.now() - t;
          one.status = String(status);
          const id = (json as { id?: string } | null)?.id;
          if (id) one.id = id;
        },
        (err: unknown) => void (one.status = (err as { code?: string }).code ?? "error"),
      ),
    );
  }
  await Promise.all(inFlight);
  return sent;
}

/** A's loops, until `stop` is set: each sends its next purchase once the last is answered (after Retry-After on a 429). */
function loopA(call: Call, a: Tenant, stop: { now: boolean }) {
  const counts = { answered: 0, refused: 0, failed: 0, ids: [] as { id: string; at: number }[] };
  const loops = Array.from({ length: A_LOOPS }, async (_, loop) => {
    for (let i = loop; !stop.now; i += A_LOOPS) {
      const at = Date.now();
      const res = await call("POST", "/v1/transactions/test", a.key, purchaseBody(a, i)).catch(() => undefined);
      if (!res) counts.failed++;
      else if (res.status === 429) {
        counts.refused++;
        await new Promise((resolve) => setTimeout(resolve, Number(res.retryAfter ?? 1) * 1000));
      } else if (res.status === 201 || res.status === 202) {
        counts.answered++;
        const id = (res.json as { id?: string } | null)?.id;
        if (id) counts.ids.push({ id, at });
      } else counts.failed++;
    }
  });
  return { counts, done: Promise.all(loops) };
}

/** When each transaction's first webhook arrived, once all of `ids` have one (or the wait is over). */
async function arrivalsOf(receiver: ChildReceiver, ids: string[]): Promise<Map<string, number>> {
  const waitBegan = performance.now();
  let arrivals = await receiver.arrivals();
  while (ids.some((id) => !arrivals.has(id)) && performance.now() - waitBegan < WEBHOOK_WAIT_MS) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    arrivals = await receiver.arrivals();
  }
  return arrivals;
}

const acceptedOf = (sent: Sent[]) => sent.filter((s) => s.id && (s.status === "201" || s.status === "202"));

/** B's figures: its answers, and purchase → webhook. */
function figuresOf(sent: Sent[], arrivals: Map<string, number>) {
  const accepted = acceptedOf(sent);
  const answers = sent.flatMap((s) => (s.latency === undefined ? [] : [s.latency])).sort((x, y) => x - y);
  const toWebhook = accepted.flatMap((s) => (arrivals.has(s.id!) ? [arrivals.get(s.id!)! - s.at] : [])).sort((x, y) => x - y);
  const statuses = new Map<string, number>();
  for (const s of sent) statuses.set(s.status, (statuses.get(s.status) ?? 0) + 1);
  return {
    statuses: [...statuses].map(([s, n]) => `${s}: ${n}`).join(", "),
    delivered: `${toWebhook.length} of ${accepted.length}`,
    answer: { p50: quantile(answers, 0.5), p99: quantile(answers, 0.99) },
    webhook: { p50: quantile(toWebhook, 0.5), p99: quantile(toWebhook, 0.99) },
  };
}

/** The api's admission gauges (its /metrics): the capacity, and each account's in flight, waiting and share. */
async function admissionFigures(cardlink: Cardlink, a: Tenant, b: Tenant): Promise<string> {
  const api = cardlink.metrics.find((m) => m.role === "api" || m.role === "start")!;
  const text = await (await fetch(api.url)).text();
  const value = (name: string, account?: string) =>
    text.split("\n").find((line) => line.startsWith(account ? `${name}{account="${account}"}` : `${name} `))?.split(" ").pop() ?? "0";
  const of = (t: Tenant) => `${value("cardlink_admission_in_flight", t.accountId)} in flight, ${value("cardlink_admission_waiting", t.accountId)} waiting, share ${Number(value("cardlink_admission_share", t.accountId)).toFixed(1)}`;
  return `capacity ${value("cardlink_admission_capacity")}; A ${of(a)}; B ${of(b)}`;
}

async function run(shape: Shape): Promise<void> {
  const receiver = await startChildReceiver();
  const extra = Object.keys(serverEnv).length > 0 ? { env: serverEnv } : {};
  const cardlink: Cardlink = shape === "embedded" ? await startEmbedded([], extra) : await startStack(process.env.DATABASE_URL!, process.env.KAFKA_BROKERS!, [], extra);
  const pool = new Pool(cardlink.url, { connections: 256, pipelining: 1, keepAliveTimeout: 30_000, headersTimeout: TIMEOUT_MS, bodyTimeout: TIMEOUT_MS });
  const call: Call = poolCall(pool);

  try {
    const admin = { Authorization: `Bearer ${cardlink.admin}` };
    const a = await makeTenant(call, admin, "A", receiver);
    const b = await makeTenant(call, admin, "B", receiver);
    log(
      `tenants on ${shape === "embedded" ? "one cardlink start process (PGlite, embedded log)" : "the roles as processes (api, 2 qualifiers, dispatcher, workers, 3 simulators; PostgreSQL, Kafka)"}: ` +
        `B buys ${B_RATE}/s for ${SECONDS} s alone, then beside A's ${A_LOOPS} purchase loops (after ${WARMUP_MS / 1000} s of A alone); one hook each on one receiver` +
        (Object.keys(serverEnv).length > 0 ? `; server env ${JSON.stringify(serverEnv)}` : ""),
    );

    await receiver.reset();
    const aloneSent = await driveB(call, b);
    const alone = figuresOf(aloneSent, await arrivalsOf(receiver, acceptedOf(aloneSent).map((s) => s.id!)));

    await receiver.reset();
    const stop = { now: false };
    const before = await readMetrics(cardlink.metrics);
    const aBegan = performance.now();
    const aLoops = loopA(call, a, stop);
    await new Promise((resolve) => setTimeout(resolve, WARMUP_MS));
    const aAtB = aLoops.counts.answered;
    const bBegan = performance.now();
    const besideSent = await driveB(call, b);
    const bSeconds = (performance.now() - bBegan) / 1000;
    const aDuringB = aLoops.counts.answered - aAtB;
    const admission = await admissionFigures(cardlink, a, b);
    stop.now = true;
    await aLoops.done;
    const aSeconds = (performance.now() - aBegan) / 1000;
    const arrivals = await arrivalsOf(receiver, [...acceptedOf(besideSent).map((s) => s.id!), ...aLoops.counts.ids.map((p) => p.id)]);
    const beside = figuresOf(besideSent, arrivals);
    const after = await readMetrics(cardlink.metrics);
    const aDelivered = aLoops.counts.ids.filter((p) => arrivals.has(p.id)).length;
    const aToWebhook = aLoops.counts.ids.flatMap((p) => (arrivals.has(p.id) ? [arrivals.get(p.id)! - p.at] : [])).sort((x, y) => x - y);

    log(`  B alone:    ${alone.statuses}; answer p50 ${ms(alone.answer.p50)}, p99 ${ms(alone.answer.p99)}; webhooks ${alone.delivered}, purchase → webhook p50 ${ms(alone.webhook.p50)}, p99 ${ms(alone.webhook.p99)}`);
    log(`  B beside A: ${beside.statuses}; answer p50 ${ms(beside.answer.p50)}, p99 ${ms(beside.answer.p99)}; webhooks ${beside.delivered}, purchase → webhook p50 ${ms(beside.webhook.p50)}, p99 ${ms(beside.webhook.p99)}`);
    log(
      `  B beside A over B alone: answer p50 ${ratio(beside.answer.p50, alone.answer.p50)}, p99 ${ratio(beside.answer.p99, alone.answer.p99)}; ` +
        `purchase → webhook p50 ${ratio(beside.webhook.p50, alone.webhook.p50)} (target ≤ ×1.2), p99 ${ratio(beside.webhook.p99, alone.webhook.p99)} (target ≤ ×2)`,
    );
    log(
      `  A: ${aLoops.counts.answered} answered 201/202 in ${aSeconds.toFixed(1)} s (${(aDuringB / bSeconds).toFixed(0)}/s while B ran), ${aLoops.counts.refused} refused 429, ${aLoops.counts.failed} failed; ` +
        `webhooks ${aDelivered} of ${aLoops.counts.ids.length}, purchase → webhook p50 ${ms(quantile(aToWebhook, 0.5))}, p99 ${ms(quantile(aToWebhook, 0.99))}`,
    );
    log(`  the front door as B's phase ended: ${admission}`);
    for (const line of hopTimes(before, after)) log(`    ${line}`);
  } finally {
    await pool.close();
    await cardlink.close();
    receiver.close();
  }
}

for (const shape of SHAPES) await run(shape);
