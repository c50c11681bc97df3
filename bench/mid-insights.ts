// MID insights at scale on PostgreSQL: seeds BENCH_ROWS insights (default 1,000,000) into a live program of
// a premium account in a database of its own, then times filtered, sorted pages and select=count through
// the API and prints p50/p95 per scenario.
//
//   BENCH_DATABASE_URL  the database to use (created when missing); default: DATABASE_URL's server with the
//                       database cardlink_bench, or the scripts/stack server
//   BENCH_ROWS          insights to seed (default 1000000); BENCH_RUNS timed runs per scenario (default 100)
import postgres from "postgres";
import { loadConfig } from "../src/platform/config/index.ts";
import { createApp } from "../src/api/app.ts";
import { assembleSystem } from "../src/app/system.ts";
import { serviceClock } from "../src/app/runtime.ts";
import { createClock } from "../src/platform/clock/index.ts";
import { SUPPORTED_VERSIONS } from "../src/api/middleware/auth.ts";
import { openPostgres, type Db } from "../src/platform/db.ts";
import { migrate } from "../src/platform/migrate.ts";
import { createAccount } from "../src/services/accounts/accounts.ts";
import { createProgram } from "../src/services/catalog/programs.ts";
import { seedMidInsights } from "../src/services/mid-insights/seed.ts";
import { createEmbeddedLog } from "../src/platform/bus/embedded-log.ts";

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 100);
const WARMUP = 5;
const SEED = 1;
// Fixed service time: the same seed then gives the same data on every machine.
const NOW = "2026-01-05T12:00:00Z";
const ADMIN_TOKEN = "adm_bench_token_0123456789abcdef";

function benchUrl(): string {
  if (process.env.BENCH_DATABASE_URL) return process.env.BENCH_DATABASE_URL;
  const url = new URL(process.env.DATABASE_URL ?? "postgres://cardlink:cardlink@127.0.0.1:54329/cardlink_test");
  url.pathname = "/cardlink_bench";
  return url.toString();
}

async function ensureDatabase(url: string) {
  const admin = new URL(url);
  const name = admin.pathname.slice(1);
  admin.pathname = "/postgres";
  const sql = postgres(admin.toString(), { max: 1, onnotice: () => {} });
  try {
    const [exists] = await sql`select 1 from pg_database where datname = ${name}`;
    if (!exists) await sql.unsafe(`create database "${name.replace(/"/g, '""')}"`);
  } finally {
    await sql.end();
  }
}

interface BenchState {
  programId: string;
  liveKey: string;
}

/** The bench program, created once and seeded up to ROWS insights (seeding again only adds what is missing). */
async function ensureData(db: Db): Promise<BenchState> {
  const key = `bench.mid-insights.${ROWS}`;
  const [saved] = await db.query<{ value: BenchState }>("select value from settings where key = $1", [key]);
  let state = saved?.value;
  if (!state) {
    const account = await createAccount(db, { name: "Bench publisher", tier: "premium" }, new Date(NOW));
    const clock = createClock({ speed: 0, start: new Date(NOW) });
    const program = await createProgram({ db, clock, accountId: account.id, live: true }, { name: "Bench program" });
    state = { programId: program.id, liveKey: account.keys.live };
    await db.query("insert into settings (key, value) values ($1, $2::jsonb)", [key, JSON.stringify(state)]);
  }
  const [{ n } = { n: 0 }] = await db.query<{ n: number }>(
    "select count(*)::int as n from mid_insights where program_id = $1",
    [state.programId],
  );
  if (n < ROWS) {
    process.stdout.write(`seeding ${ROWS - n} insights…\n`);
    const started = performance.now();
    await seedMidInsights(db, {
      programId: state.programId,
      count: ROWS,
      seed: SEED,
      now: new Date(NOW),
      onProgress: (created) => process.stdout.write(`\r  ${created} created`),
    });
    const seconds = (performance.now() - started) / 1000;
    process.stdout.write(`\nseeded in ${seconds.toFixed(1)}s (${Math.round((ROWS - n) / seconds)} insights/s)\n`);
    // Fresh statistics and visibility maps, as autovacuum would leave them on a table that has settled.
    for (const table of ["mid_insights", "mids", "mid_insight_counts"]) await db.exec(`vacuum analyze ${table}`);
  }
  return state;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

async function main() {
  const url = benchUrl();
  await ensureDatabase(url);
  const db = openPostgres(url, { max: 4 });
  await migrate(db);
  const state = await ensureData(db);
  const [{ server_version: version } = { server_version: "?" }] = await db.query<{ server_version: string }>("show server_version");

  const config = loadConfig({
    DATABASE_URL: url,
    CLOCK_SPEED: "0",
    CLOCK_START: NOW,
    RATE_LIMIT_PER_SECOND: "1000000",
    RATE_LIMIT_BURST: "1000000",
    LOG_LEVEL: "error",
  });
  const system = assembleSystem({ config, db, clock: serviceClock(db, config), bus: createEmbeddedLog() });
  const app = createApp(system.services, { adminToken: ADMIN_TOKEN });
  const headers = { Authorization: `Bearer ${state.liveKey}`, "Cardlink-Version": SUPPORTED_VERSIONS[0] };
  const base = `/v1/programs/${state.programId}/mid-insights`;
  const get = async (query: string) => {
    const res = await app.request(`${base}?${query}`, { headers });
    const body = (await res.json()) as { count: number; items?: unknown[]; last?: string };
    if (res.status !== 200) throw new Error(`${query}: HTTP ${res.status} ${JSON.stringify(body)}`);
    return body;
  };

  const [sample] = await db.query<{ brand_id: string; vmid: string; vsid: string; visa_bin: string; location_id: string }>(
    "select brand_id, vmid, vsid, visa_bin, location_id from mid_insights where program_id = $1 and vmid is not null limit 1",
    [state.programId],
  );
  const page2 = (await get("sort=lastSeenTransactionDate&order=desc&status=onboarded&limit=100")).last!;
  const page6 = await (async () => {
    let cursor = "";
    for (let i = 0; i < 5; i++) cursor = (await get(`sort=created&order=asc&limit=100${cursor ? `&start=${cursor}` : ""}`)).last!;
    return cursor;
  })();

  const pages: [string, string][] = [
    ["no filter, created desc (default sort)", "limit=100"],
    ["status=onboarded, lastSeenTransactionDate desc", "status=onboarded&sort=lastSeenTransactionDate&order=desc"],
    ["status=onboarded, page 2 by cursor", `status=onboarded&sort=lastSeenTransactionDate&order=desc&start=${page2}`],
    ["no filter, created asc, page 6 by cursor", `sort=created&order=asc&start=${page6}`],
    ["status=offboarded, offboardedAt asc", "status=offboarded&sort=offboardedAt&order=asc"],
    ["origin=manual-mid-lookup, onboardedAt asc", "origin=manual-mid-lookup&sort=onboardedAt&order=asc"],
    ["status+origin, eventTs desc", "status=onboarded&origin=address-match&sort=eventTs&order=desc"],
    ["lastSeen from (30 days), lastSeenTransactionDate desc", "lastSeenTransactionDateFrom=2025-12-06&sort=lastSeenTransactionDate&order=desc"],
    ["lastSeen date-time range (7 days), created asc", "lastSeenTransactionDateFrom=2025-12-01T08:30:00Z&lastSeenTransactionDateTo=2025-12-08T17:00:00Z&sort=created&order=asc"],
    ["lastSeen one day, status=onboarded, updated desc", "lastSeenTransactionDateFrom=2025-12-20&lastSeenTransactionDateTo=2025-12-20&status=onboarded&sort=updated&order=desc"],
    ["lastSeen 90 days, origin=address-match, onboardedAt asc", "lastSeenTransactionDateFrom=2025-10-07&origin=address-match&sort=onboardedAt&order=asc"],
    ["lastSeen 7 days, status=offboarded, eventTs desc", "lastSeenTransactionDateFrom=2025-12-29&status=offboarded&sort=eventTs&order=desc"],
    ["lastSeen before 2025, created desc", "lastSeenTransactionDateTo=2024-12-31&sort=created&order=desc"],
    ["brandId, updated desc", `brandId=${sample!.brand_id}&sort=updated&order=desc`],
    ["brandId + lastSeen from, created desc", `brandId=${sample!.brand_id}&lastSeenTransactionDateFrom=2025-06-01&sort=created&order=desc`],
    ["visaBin (an acquirer), created desc", `visaBin=${sample!.visa_bin}`],
    ["vmid, sourcedAt asc", `vmid=${sample!.vmid}&sort=sourcedAt&order=asc`],
    ["vsid, lastSeenTransactionDate desc", `vsid=${sample!.vsid}&sort=lastSeenTransactionDate&order=desc`],
    ["locationId, scheme asc", `locationId=${sample!.location_id}&sort=scheme&order=asc`],
    ["sort=origin asc", "sort=origin&order=asc"],
    ["sort=status desc, origin=address-match", "sort=status&order=desc&origin=address-match"],
    ["sort=scheme asc, status=offboarded", "sort=scheme&order=asc&status=offboarded"],
  ];
  const counts: [string, string][] = [
    ["select=count, no filter", "select=count"],
    ["select=count, status=offboarded", "select=count&status=offboarded"],
    ["select=count, status+origin", "select=count&status=onboarded&origin=system-provided-mid"],
    ["select=count, lastSeen date-time range", "select=count&lastSeenTransactionDateFrom=2025-10-01T08:30:00Z&lastSeenTransactionDateTo=2025-12-08T17:00:00Z"],
    ["select=count, brandId", `select=count&brandId=${sample!.brand_id}`],
    ["select=count, visaBin", `select=count&visaBin=${sample!.visa_bin}`],
  ];

  const measure = async (query: string) => {
    for (let i = 0; i < WARMUP; i++) await get(query);
    const times: number[] = [];
    let count = 0;
    for (let i = 0; i < RUNS; i++) {
      const t = performance.now();
      count = (await get(query)).count;
      times.push(performance.now() - t);
    }
    return { sorted: times.sort((a, b) => a - b), count };
  };

  const rows: string[] = [];
  const all: Record<"page" | "count", number[]> = { page: [], count: [] };
  for (const [kind, list] of [["page", pages], ["count", counts]] as const) {
    for (const [name, query] of list) {
      const { sorted, count } = await measure(query);
      all[kind].push(...sorted);
      rows.push(
        `${`${kind}: ${name}`.padEnd(62)}${percentile(sorted, 50).toFixed(1).padStart(8)}${percentile(sorted, 95).toFixed(1).padStart(8)}${sorted.at(-1)!.toFixed(1).padStart(8)}${String(count).padStart(10)}`,
      );
    }
  }
  const overall = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return `p50 ${percentile(s, 50).toFixed(1)} ms, p95 ${percentile(s, 95).toFixed(1)} ms`;
  };
  process.stdout.write(
    [
      ``,
      `MID insights: ${ROWS} rows, PostgreSQL ${version} (${new URL(url).pathname.slice(1)}), through the API in-process,`,
      `${RUNS} timed runs per scenario after ${WARMUP} warm-ups; pages are limit=100 and include the total count.`,
      ``,
      `${"scenario".padEnd(62)}${"p50 ms".padStart(8)}${"p95 ms".padStart(8)}${"max ms".padStart(8)}${"count".padStart(10)}`,
      ...rows,
      ``,
      `all page scenarios:  ${overall(all.page)}`,
      `all count scenarios: ${overall(all.count)}`,
      ``,
    ].join("\n"),
  );
  await system.close();
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
