// Shared by the k6 scenarios: their environment (BASE_URL, ADMIN_TOKEN, …), one way to call Cardlink, and
// the fixture they load: a fresh account with a program, a brand, locations, test cards, a live offer
// linked to every location and, when HOOK_URL is set, hooks delivering there.
import http from "k6/http";
import { testCardNumbers } from "./card-numbers.js";
import { localUrl } from "./local-url.js";

export const BASE_URL = localUrl("BASE_URL", __ENV.BASE_URL || "http://localhost:3000");
const SERVICE_NAME = __ENV.SERVICE_NAME || "Cardlink";
export const KEY_HEADER = `${SERVICE_NAME}-Key`;
export const VERSION_HEADER = `${SERVICE_NAME}-Version`;

/** A whole number from the environment, `fallback` when unset; out of [min, max] stops the run naming it. */
export function envInt(name, fallback, min, max) {
  const raw = __ENV[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`${name}: must be a whole number from ${min} to ${max} (got ${raw})`);
  return n;
}

/** A share (0 to 1) from the environment. */
export function envShare(name, fallback) {
  const raw = __ENV[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0 || n > 1) throw new Error(`${name}: must be a number from 0 to 1 (got ${raw})`);
  return n;
}

/** A k6 duration from the environment ("45s", "2m", "1m30s"), at most an hour, and its length in seconds. */
export function envDuration(name, fallback) {
  const value = __ENV[name] || fallback;
  const m = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(value);
  const seconds = m ? Number(m[1] || 0) * 3600 + Number(m[2] || 0) * 60 + Number(m[3] || 0) : 0;
  if (!m || seconds < 1 || seconds > 3600) throw new Error(`${name}: must be a duration like 45s, 2m or 1m30s, up to 1h (got ${value})`);
  return { value, seconds };
}

/**
 * One constant-arrival-rate scenario from RATE, DURATION, VUS and MAX_VUS: `rate` iterations a second,
 * whatever the latency, so a slow service shows as latency and dropped_iterations instead of fewer requests.
 */
export function arrivalScenario({ rate, duration, vus }) {
  const r = envInt("RATE", rate, 1, 1000);
  const d = envDuration("DURATION", duration);
  const preAllocatedVUs = envInt("VUS", vus, 1, 500);
  return {
    rate: r,
    seconds: d.seconds,
    scenario: {
      executor: "constant-arrival-rate",
      rate: r,
      timeUnit: "1s",
      duration: d.value,
      preAllocatedVUs,
      maxVUs: envInt("MAX_VUS", preAllocatedVUs * 2, preAllocatedVUs, 1000),
      gracefulStop: "10s",
    },
  };
}

/** Percentiles the end-of-test summary shows for every trend. */
export const SUMMARY_TREND_STATS = ["avg", "min", "med", "p(90)", "p(95)", "p(99)", "max", "count"];

/** Headers of a management call with a secret key. */
export const keyHeaders = (key) => ({ [KEY_HEADER]: key, "Content-Type": "application/json" });

/** Headers of an operator call. */
export function adminHeaders() {
  if (!__ENV.ADMIN_TOKEN) throw new Error("ADMIN_TOKEN: set it to the admin token `npm start` printed (or ADMIN_TOKEN of docker compose)");
  return { Authorization: `Bearer ${__ENV.ADMIN_TOKEN}`, "Content-Type": "application/json" };
}

/**
 * A request to Cardlink. `name` groups the URL in the metrics ("GET /v1/cards/{cardId}"); every request
 * has a 30 s timeout so a stuck service ends the run instead of holding it.
 */
export function call(method, path, { headers, body, name, timeout = "30s" }) {
  return http.request(method, `${BASE_URL}${path}`, body === undefined ? null : JSON.stringify(body), {
    headers,
    tags: { name: name || `${method} ${path}` },
    timeout,
  });
}

/** The JSON body of `res` when its status is `status`; otherwise stops with what was asked and the answer. */
export function expectJson(res, status, what) {
  if (res.status !== status) {
    throw new Error(`${what}: expected ${status}, got ${res.status} ${res.error || ""} ${String(res.body || "").slice(0, 300)}`);
  }
  return res.json();
}

/** Requests in batches of `size`, each expected to answer `status`; the JSON bodies in order. */
export function batchJson(requests, status, what, size = 10) {
  const out = [];
  for (let i = 0; i < requests.length; i += size) {
    const chunk = requests.slice(i, i + size).map((r) => ({
      method: r.method,
      url: `${BASE_URL}${r.path}`,
      body: JSON.stringify(r.body),
      params: { headers: r.headers, tags: { name: r.name }, timeout: "30s" },
    }));
    for (const res of http.batch(chunk)) out.push(expectJson(res, status, what));
  }
  return out;
}

/** A fresh account of `tier` with its test and live keys, through POST /admin/accounts. */
export function createAccount(label, tier = "premium") {
  const body = { name: `k6 ${label} ${new Date().toISOString()}`, tier };
  return expectJson(call("POST", "/admin/accounts", { headers: adminHeaders(), body, name: "setup" }), 201, "POST /admin/accounts");
}

/** The service clock's now (it may be frozen, fast or moved forward, so it is not the k6 machine's time). */
export function serviceNow() {
  const clock = expectJson(call("GET", "/admin/clock", { headers: adminHeaders(), name: "setup" }), 200, "GET /admin/clock");
  return new Date(clock.now);
}

const LOCAL_DAY_MS = 86_400_000;
/** An offer date-time (local, no zone) `days` after the service clock's day. */
export const offerDate = (now, days) => `${new Date(now.getTime() + days * LOCAL_DAY_MS).toISOString().slice(0, 10)}T00:00:00`;

/** The events the fixture's hooks subscribe to: every stage of a test purchase's life. */
export const HOOK_EVENTS = ["transaction.auth", "transaction.auth.qualified", "transaction.clearing", "transaction.refund"];

/** The offer every fixture has: 10% off, at most 25 GBP, from 5 GBP. */
export const OFFER = { percent: 10, maxReward: 25, minAmount: 5 };

/**
 * The fixture of the management and transaction scenarios, made through the API in the test environment:
 * account (premium), program, brand, `locations` locations in London, `cards` test cards cycling Visa,
 * Mastercard and Amex, a live offer linked to every location, and one hook per HOOK_EVENTS event at `hookUrl`.
 */
export function createFixture({ label, locations, cards, hookUrl }) {
  const account = createAccount(label);
  const key = account.keys.test;
  const headers = keyHeaders(key);
  // publisherId is the caller's account id, which GET /v1/account tells.
  const publisherId = expectJson(call("GET", "/v1/account", { headers, name: "setup" }), 200, "GET /v1/account").id;
  const program = expectJson(
    call("POST", "/v1/programs", { headers, body: { name: `k6 ${label}` }, name: "setup" }),
    201,
    "POST /v1/programs",
  );
  const brand = expectJson(
    call("POST", "/v1/brands", { headers, body: { name: `k6 coffee ${label}`, logoUrl: "https://example.com/coffee.png" }, name: "setup" }),
    201,
    "POST /v1/brands",
  );
  const locationRows = batchJson(
    Array.from({ length: locations }, (_, i) => ({
      method: "POST",
      path: `/v1/programs/${program.id}/locations`,
      headers,
      name: "setup",
      body: {
        brandId: brand.id,
        address: `${i + 1} High Street`,
        city: "London",
        postcode: "SW1A 1AA",
        countryCode: "GBR",
        geolocation: { latitude: 51.5 + i / 10_000, longitude: -0.14 },
      },
    })),
    201,
    "POST /v1/programs/{programId}/locations",
  );
  const now = serviceNow();
  const cardRows = batchJson(
    testCardNumbers(cards).map((number, i) => ({
      method: "POST",
      path: `/v1/programs/${program.id}/cards`,
      headers,
      name: "setup",
      body: { number, expMonth: 12, expYear: now.getUTCFullYear() + 3, countryCode: "GBR", termsOfUse: true, metadata: { userId: `k6-${i}` } },
    })),
    201,
    "POST /v1/programs/{programId}/cards",
  );
  const offer = expectJson(
    call("POST", "/v1/offers", {
      headers,
      name: "setup",
      body: {
        brandId: brand.id,
        countryCode: "GBR",
        name: `${OFFER.percent}% off coffee`,
        publisherId,
        // Two days back on the service clock: live at once in every time zone of the country.
        startDate: offerDate(now, -2),
        type: { name: "discount", value: OFFER.percent, maxRewardAmount: OFFER.maxReward },
        minTransactionAmount: OFFER.minAmount,
        feeSplit: 1.5,
      },
    }),
    201,
    "POST /v1/offers",
  );
  const linked = expectJson(
    call("POST", `/v1/offers/${offer.id}/programs/${program.id}/locations`, { headers, name: "setup" }),
    200,
    "POST /v1/offers/{offerId}/programs/{programId}/locations",
  );
  if (linked.status !== "live" || linked.locationsTotal !== locations) {
    throw new Error(`the offer is ${linked.status} with ${linked.locationsTotal} locations, expected live with ${locations}`);
  }
  const hookIds = hookUrl
    ? HOOK_EVENTS.map(
        (event) =>
          expectJson(
            call("POST", `/v1/programs/${program.id}/hooks`, { headers, body: { event, url: hookUrl }, name: "setup" }),
            201,
            "POST /v1/programs/{programId}/hooks",
          ).id,
      )
    : [];
  return {
    accountId: account.id,
    key,
    programId: program.id,
    brandId: brand.id,
    locationIds: locationRows.map((l) => l.id),
    cards: cardRows.map((c) => ({ id: c.id, scheme: c.scheme })),
    offerId: offer.id,
    hookIds,
  };
}

/** A random element of a non-empty array. */
export const pick = (items) => items[Math.floor(Math.random() * items.length)];

/** An operation drawn from `{weight}` entries in proportion to their weights. */
export function weighted(entries) {
  const total = entries.reduce((s, e) => s + e.weight, 0);
  let r = Math.random() * total;
  for (const e of entries) {
    r -= e.weight;
    if (r < 0) return e;
  }
  return entries[entries.length - 1];
}
