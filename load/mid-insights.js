// k6: the premium MID-insights list at a constant arrival rate — filters, sorts, counts and cursor pages —
// over a live program seeded with SEED_COUNT generated MIDs (POST /admin/programs/{programId}/mid-insights/seed).
import { check } from "k6";
import {
  SUMMARY_TREND_STATS,
  VERSION_HEADER,
  adminHeaders,
  arrivalScenario,
  call,
  createAccount,
  envInt,
  expectJson,
  keyHeaders,
  pick,
  serviceNow,
  weighted,
} from "./setup.js";

const API_VERSION = "2024-11-25";
const run = arrivalScenario({ rate: 8, duration: "60s", vus: 10 });

const ORIGINS = [
  "address-match",
  "brand-provided-mid",
  "customer-provided-mid",
  "manual-mid-lookup",
  "missing-transaction-lookup",
  "processor-provided-mid",
  "system-mid-lookup",
  "system-provided-mid",
  "third-party-provided-mid",
];
const SORTS = ["created", "onboardedAt", "offboardedAt", "lastSeenTransactionDate", "sourcedAt", "eventTs", "updated", "origin", "status", "scheme"];
const day = (now, days) => new Date(now.getTime() + days * 86_400_000).toISOString().slice(0, 10);

function list(fx, query, name) {
  return call("GET", `/v1/programs/${fx.programId}/mid-insights?${query}`, {
    headers: { Authorization: `Bearer ${fx.liveKey}`, [VERSION_HEADER]: API_VERSION },
    name,
  });
}

const body = (r) => (r.status === 200 ? r.json() : null);
const page = (r, limit) => {
  const b = body(r);
  return b !== null && Array.isArray(b.items) && b.items.length <= limit && typeof b.count === "number";
};

/** One list call checked for shape, `every` item satisfying the filter, and the count when `count` is given. */
function checkedList(fx, query, name, { limit = 100, every = () => true, count } = {}) {
  const res = list(fx, query, name);
  check(res, {
    [`${name}: 200, a page within the limit`]: (r) => page(r, limit),
    [`${name}: every item matches the filters`]: (r) => page(r, limit) && body(r).items.every(every),
    ...(count === undefined ? {} : { [`${name}: count as expected`]: (r) => page(r, limit) && body(r).count === count }),
  });
  return res;
}

const QUERIES = [
  { name: "mid-insights default", weight: 15, run: (fx) => checkedList(fx, "limit=100", "mid-insights default", { count: fx.total }) },
  {
    name: "mid-insights onboarded by last transaction",
    weight: 15,
    run: (fx) =>
      checkedList(
        fx,
        "status=onboarded&sort=lastSeenTransactionDate&order=desc&lastSeenTransactionDateFrom=1970-01-01&limit=50",
        "mid-insights onboarded by last transaction",
        { limit: 50, every: (i) => i.status === "onboarded" && i.lastSeenTransactionDate !== null },
      ),
  },
  {
    name: "mid-insights by origin",
    weight: 10,
    run: (fx) => {
      const origin = pick(ORIGINS);
      checkedList(fx, `origin=${origin}&sort=created&order=asc&limit=50`, "mid-insights by origin", { limit: 50, every: (i) => i.origin === origin });
    },
  },
  {
    name: "mid-insights last 14 days",
    weight: 15,
    run: (fx) => {
      const from = day(fx.now, -14);
      const to = day(fx.now, 0);
      checkedList(fx, `lastSeenTransactionDateFrom=${from}&lastSeenTransactionDateTo=${to}&sort=eventTs&limit=100`, "mid-insights last 14 days", {
        every: (i) => i.lastSeenTransactionDate !== null && i.lastSeenTransactionDate.slice(0, 10) >= from && i.lastSeenTransactionDate.slice(0, 10) <= to,
      });
    },
  },
  {
    name: "mid-insights count",
    weight: 10,
    run: (fx) => {
      const q = pick([`status=onboarded`, `origin=${pick(ORIGINS)}`, `status=offboarded&lastSeenTransactionDateFrom=${day(fx.now, -30)}`]);
      const res = list(fx, `select=count&${q}`, "mid-insights count");
      check(res, { "mid-insights count: 200 with a count only": (r) => body(r) !== null && typeof body(r).count === "number" && !("items" in body(r)) });
    },
  },
  {
    name: "mid-insights exact identifier",
    weight: 10,
    run: (fx) => {
      const [field, value] = pick(fx.identifiers);
      checkedList(fx, `${field}=${encodeURIComponent(value)}`, "mid-insights exact identifier", { every: (i) => i[field] === value });
    },
  },
  {
    name: "mid-insights pages",
    weight: 25,
    run: (fx) => {
      // A sort and order at random, then up to two more pages through the cursor.
      const sort = pick(SORTS);
      const order = pick(["asc", "desc"]);
      const limit = pick([20, 50, 100]);
      const seen = new Set();
      let start = "";
      for (let n = 0; n < 3; n++) {
        const res = checkedList(fx, `sort=${sort}&order=${order}&limit=${limit}${start}`, "mid-insights pages", { limit, count: fx.total });
        const b = body(res);
        if (b === null) return;
        check(res, { "mid-insights pages: no row repeated across pages": () => b.items.every((i) => !seen.has(i.id)) });
        for (const i of b.items) seen.add(i.id);
        if (!b.last) return;
        start = `&start=${encodeURIComponent(b.last)}`;
      }
    },
  },
];

export const options = {
  scenarios: { insights: run.scenario },
  // Seeding runs in setup: about 15 s for 20,000 MIDs on PGlite.
  setupTimeout: "10m",
  summaryTrendStats: SUMMARY_TREND_STATS,
  thresholds: {
    "http_req_failed{scenario:insights}": ["rate<0.01"],
    "http_req_duration{scenario:insights}": ["p(95)<500", "p(99)<1000"],
    "checks{scenario:insights}": ["rate>0.99"],
    dropped_iterations: [`count<=${Math.ceil(run.rate * run.seconds * 0.01)}`],
    ...Object.fromEntries(QUERIES.map((q) => [`http_req_duration{name:${q.name}}`, ["p(95)<1000"]])),
  },
};

export function setup() {
  const count = envInt("SEED_COUNT", 20_000, 1, 2_000_000);
  const account = createAccount("mid-insights", "premium");
  // MID insights are live-only: the program is made with the live key.
  const program = expectJson(
    call("POST", "/v1/programs", { headers: keyHeaders(account.keys.live), body: { name: "k6 mid insights" }, name: "setup" }),
    201,
    "POST /v1/programs (live)",
  );
  const seeded = expectJson(
    call("POST", `/admin/programs/${program.id}/mid-insights/seed`, {
      headers: adminHeaders(),
      body: { count, seed: envInt("SEED", 42, 0, 2 ** 31 - 1) },
      name: "setup",
      timeout: "10m",
    }),
    201,
    "POST /admin/programs/{programId}/mid-insights/seed",
  );
  const fx = { liveKey: account.keys.live, programId: program.id, total: seeded.created, now: serviceNow() };
  // Identifiers to filter on exactly, taken from the first page.
  const first = expectJson(list(fx, "limit=100", "setup"), 200, "GET /v1/programs/{programId}/mid-insights").items;
  const identifiers = [];
  for (const i of first) {
    for (const field of ["vmid", "seNumber", "mcLocationId", "brandId", "locationId"]) if (i[field] !== null) identifiers.push([field, i[field]]);
  }
  return { ...fx, identifiers };
}

export default function (fx) {
  weighted(QUERIES).run({ ...fx, now: new Date(fx.now) });
}
