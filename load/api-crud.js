// k6: the management API at a constant arrival rate — list and get programs, cards, locations and offers,
// follow list cursors, enrol cards — against a fresh account's fixture (load/setup.js).
import { check } from "k6";
import { testCardNumbers } from "./card-numbers.js";
import { SUMMARY_TREND_STATS, arrivalScenario, call, createFixture, envInt, keyHeaders, pick, serviceNow, weighted } from "./setup.js";

const run = arrivalScenario({ rate: 30, duration: "60s", vus: 10 });
const NEW_CARD_NUMBERS = testCardNumbers(220);

const items = (r) => (r.status === 200 ? r.json("items") : null);
const isList = (r) => Array.isArray(items(r)) && typeof r.json("count") === "number";

/** A list call, then its next page when there is one (the cursor `last` passed back as `start`). */
function listWithNextPage(fx, path, name, extra = "") {
  const headers = keyHeaders(fx.key);
  const first = call("GET", `${path}?limit=20${extra}`, { headers, name });
  check(first, { [`${name} 200 list`]: isList });
  const last = isList(first) ? first.json("last") : undefined;
  if (!last) return;
  const seen = new Set(items(first).map((item) => item.id));
  const next = call("GET", `${path}?limit=20${extra}&start=${encodeURIComponent(last)}`, { headers, name });
  check(next, {
    [`${name} next page 200`]: isList,
    [`${name} next page repeats nothing of the first`]: (r) => isList(r) && items(r).every((item) => !seen.has(item.id)),
  });
}

function getOne(fx, path, name, id) {
  const res = call("GET", path, { headers: keyHeaders(fx.key), name });
  check(res, { [`${name} 200 with its id`]: (r) => r.status === 200 && r.json("id") === id });
}

// Reads outnumber writes, as on a publisher's dashboard and back office.
const OPERATIONS = [
  { name: "GET /v1/programs", weight: 10, run: (fx) => listWithNextPage(fx, "/v1/programs", "GET /v1/programs") },
  { name: "GET /v1/programs/{id}", weight: 10, run: (fx) => getOne(fx, `/v1/programs/${fx.programId}`, "GET /v1/programs/{id}", fx.programId) },
  {
    name: "GET /v1/programs/{id}/cards",
    weight: 15,
    run: (fx) => listWithNextPage(fx, `/v1/programs/${fx.programId}/cards`, "GET /v1/programs/{id}/cards"),
  },
  {
    name: "GET /v1/cards/{id}",
    weight: 15,
    run: (fx) => {
      const card = pick(fx.cards);
      getOne(fx, `/v1/cards/${card.id}`, "GET /v1/cards/{id}", card.id);
    },
  },
  {
    name: "GET /v1/programs/{id}/locations",
    weight: 10,
    run: (fx) =>
      listWithNextPage(fx, `/v1/programs/${fx.programId}/locations`, "GET /v1/programs/{id}/locations", Math.random() < 0.5 ? `&brandId=${fx.brandId}` : ""),
  },
  {
    name: "GET /v1/locations/{id}",
    weight: 10,
    run: (fx) => {
      const id = pick(fx.locationIds);
      getOne(fx, `/v1/locations/${id}`, "GET /v1/locations/{id}", id);
    },
  },
  {
    name: "GET /v1/offers",
    weight: 10,
    run: (fx) => {
      const res = call("GET", `/v1/offers?status=live&brandId=${fx.brandId}`, { headers: keyHeaders(fx.key), name: "GET /v1/offers" });
      check(res, { "GET /v1/offers lists the live offer": (r) => isList(r) && items(r).some((o) => o.id === fx.offerId && o.status === "live") });
    },
  },
  { name: "GET /v1/offers/{id}", weight: 5, run: (fx) => getOne(fx, `/v1/offers/${fx.offerId}`, "GET /v1/offers/{id}", fx.offerId) },
  {
    name: "POST /v1/programs/{id}/cards",
    weight: 15,
    run: (fx) => {
      const number = pick(NEW_CARD_NUMBERS);
      const res = call("POST", `/v1/programs/${fx.programId}/cards`, {
        headers: keyHeaders(fx.key),
        name: "POST /v1/programs/{id}/cards",
        body: { number, expMonth: 12, expYear: fx.expYear, countryCode: "GBR", termsOfUse: true, metadata: { source: "k6" } },
      });
      check(res, {
        "POST /v1/programs/{id}/cards 201": (r) => r.status === 201,
        "POST /v1/programs/{id}/cards keeps only the first six and last four": (r) =>
          r.status === 201 && r.json("firstNumbers") === number.slice(0, 6) && r.json("lastNumbers") === number.slice(-4) && !("number" in r.json()),
      });
    },
  },
];

const latency = (p95, p99) => [`p(95)<${p95}`, `p(99)<${p99}`];

export const options = {
  scenarios: { crud: run.scenario },
  setupTimeout: "120s",
  summaryTrendStats: SUMMARY_TREND_STATS,
  thresholds: {
    "http_req_failed{scenario:crud}": ["rate<0.01"],
    "http_req_duration{scenario:crud}": latency(300, 800),
    "checks{scenario:crud}": ["rate>0.99"],
    dropped_iterations: [`count<=${Math.ceil(run.rate * run.seconds * 0.01)}`],
    // One entry per operation, so the summary shows each one's percentiles.
    ...Object.fromEntries(OPERATIONS.map((op) => [`http_req_duration{name:${op.name}}`, latency(500, 1000)])),
  },
};

export function setup() {
  const fx = createFixture({ label: "crud", locations: envInt("LOCATIONS", 40, 1, 500), cards: envInt("CARDS", 60, 1, 1000) });
  return { ...fx, expYear: serviceNow().getUTCFullYear() + 3 };
}

export default function (fx) {
  weighted(OPERATIONS).run(fx);
}
