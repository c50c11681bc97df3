// Generated MIDs and insights for demos and load tests: brands, their locations and one MID per scheme
// at each location, in each network's identifier formats. Every record is a function of (program, seed,
// index) and the service time, so a seed gives the same data again, in any batch size. No I/O.
import type { NewLocation } from "../catalog/index.ts";
import { createHash } from "node:crypto";
import { Faker, base, en, en_GB, en_US } from "@faker-js/faker";
import { countryByAlpha3 } from "../../domain/countries.ts";
import { DAY_MS } from "../../domain/time-units.ts";
import { OFFBOARD_DELAY_MS, latestEvent, networkKey, type MidInsightStatus, type Origin, type Scheme } from "../../domain/mid-insights.ts";

const MIDS_PER_LOCATION = 3;
const SCHEME_OF_SLOT: readonly Scheme[] = ["visa", "mastercard", "amex"];

export interface SeedPlan {
  programId: string;
  seed: number;
  /** Service time the data is generated relative to. */
  now: Date;
}

export const locationOfMid = (index: number) => Math.floor(index / MIDS_PER_LOCATION);
export const locationsFor = (count: number) => Math.ceil(count / MIDS_PER_LOCATION);

/**
 * Brands own consecutive runs of locations, 20 to 280 of them (150 on average), sized from the seed
 * alone: a location's brand never depends on how many MIDs are generated.
 */
export function brandBlocks(seed: number) {
  const starts = [0];
  const extend = (location: number) => {
    while (starts[starts.length - 1]! <= location) {
      const b = starts.length - 1;
      starts.push(starts[b]! + 20 + (mix32(seed ^ mix32(b + 0x51ed)) % 261));
    }
  };
  return {
    /** The brand index of a location. */
    brandOf(location: number): number {
      extend(location);
      let lo = 0;
      let hi = starts.length - 2;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (starts[mid]! <= location) lo = mid;
        else hi = mid - 1;
      }
      return lo;
    },
  };
}

// ---------------------------------------------------------------- deterministic randomness

/** A 32-bit integer hash (murmur3's finaliser) to spread small inputs over the whole range. */
function mix32(x: number): number {
  let h = x >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** mulberry32: a small, fast PRNG; one stream per record keeps records independent of batching. */
function randomFor(seed: number, kind: number, index: number): () => number {
  let state = mix32(mix32(seed) ^ mix32(kind * 0x9e3779b1 + index));
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Two UUIDs (RFC 9562 version 8) from a SHA-256 of the program, seed, kind and index: stable and unique. */
function seedIds(plan: SeedPlan, kind: string, index: number): [string, string] {
  const hex = createHash("sha256").update(`${plan.programId}:${plan.seed}:${kind}:${index}`).digest("hex");
  const uuid = (h: string) =>
    `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
  return [uuid(hex.slice(0, 32)), uuid(hex.slice(32, 64))];
}

function randomUuid(r: () => number): string {
  const hex = [r(), r(), r(), r()].map((u) => Math.floor(u * 4294967296).toString(16).padStart(8, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

const digits = (r: () => number, n: number) => Array.from({ length: n }, () => Math.floor(r() * 10)).join("");

/**
 * A number unique per index within [low, low + span): index * 7919 + offset, mod span, is a bijection
 * because 7919 is a prime that divides none of the spans used.
 */
const uniqueNumber = (index: number, low: number, span: number, offset: number) =>
  String(low + ((index * 7919 + offset) % span));

function pick<T>(r: () => number, weighted: readonly (readonly [T, number])[]): T {
  let u = r() * weighted.reduce((s, [, w]) => s + w, 0);
  for (const [value, w] of weighted) {
    u -= w;
    if (u < 0) return value;
  }
  return weighted[weighted.length - 1]![0];
}

// ---------------------------------------------------------------- brands and locations

interface Market {
  country: string;
  faker: Faker;
  centre: [number, number];
  pool?: { streets: string[]; cities: string[]; postcodes: string[] };
}

const MARKETS: Market[] = [
  { country: "GBR", faker: new Faker({ locale: [en_GB, en, base] }), centre: [52.6, -1.6] },
  { country: "USA", faker: new Faker({ locale: [en_US, en, base] }), centre: [39.8, -89.6] },
];

/**
 * Street names, towns and postcodes of a market, drawn once from faker with a fixed seed: picking from
 * them per location is a hundred times faster than asking faker each time, and as varied as needed.
 */
function poolOf(market: Market) {
  if (!market.pool) {
    const f = market.faker;
    f.seed(20_260_105);
    const draw = (n: number, make: () => string) => Array.from({ length: n }, make);
    market.pool = {
      streets: draw(2000, () => f.location.street()),
      cities: draw(500, () => f.location.city()),
      postcodes: draw(5000, () => f.location.zipCode()),
    };
  }
  return market.pool;
}

/** Acquirer BINs (Visa) the generated merchants bank with. */
const VISA_ACQUIRER_BINS = ["400016", "402360", "408540", "412752", "426684", "433274", "446272", "455701", "476173", "489537"];

export interface SeedBrand {
  id: string;
  name: string;
  market: number;
  visaBin: string;
  vmid: string;
  mcAcquiringMid: string;
  created: Date;
}

export function seedBrand(plan: SeedPlan, index: number): SeedBrand {
  const r = randomFor(plan.seed, 1, index);
  const market = r() < 0.6 ? 0 : 1;
  const { faker } = MARKETS[market]!;
  faker.seed([plan.seed, 1, index]);
  return {
    id: seedIds(plan, "brand", index)[0],
    name: faker.company.name(),
    market,
    visaBin: VISA_ACQUIRER_BINS[Math.floor(r() * VISA_ACQUIRER_BINS.length)]!,
    vmid: uniqueNumber(index, 100_000, 99_900_000, mix32(plan.seed) % 99_900_000),
    mcAcquiringMid: digits(r, 15),
    created: new Date(plan.now.getTime() - (800 + Math.floor(r() * 200)) * DAY_MS),
  };
}

export type SeedLocation = NewLocation;

export function seedLocation(plan: SeedPlan, index: number, brand: SeedBrand): SeedLocation {
  const r = randomFor(plan.seed, 2, index);
  const market = MARKETS[brand.market]!;
  const pool = poolOf(market);
  const within = <T>(list: T[]) => list[Math.floor(r() * list.length)]!;
  // A box of a few hundred kilometres around the market's centre: spread enough for maps.
  const [lat, lng] = market.centre;
  return {
    id: seedIds(plan, "location", index)[0],
    brandId: brand.id,
    address: `${1 + Math.floor(r() * 250)} ${within(pool.streets)}`,
    city: within(pool.cities),
    postcode: within(pool.postcodes),
    countryCode: market.country,
    timezone: countryByAlpha3(market.country)?.mainTimezone ?? "UTC",
    latitude: Math.round((lat + (r() - 0.5) * 7) * 1e6) / 1e6,
    longitude: Math.round((lng + (r() - 0.5) * 10) * 1e6) / 1e6,
    created: new Date(plan.now.getTime() - (30 + Math.floor(r() * 730)) * DAY_MS - Math.floor(r() * DAY_MS)),
  };
}

// ---------------------------------------------------------------- MIDs and insights

const ORIGIN_WEIGHTS: readonly (readonly [Origin, number])[] = [
  ["address-match", 30],
  ["system-provided-mid", 18],
  ["customer-provided-mid", 14],
  ["brand-provided-mid", 10],
  ["processor-provided-mid", 8],
  ["third-party-provided-mid", 5],
  ["system-mid-lookup", 6],
  ["missing-transaction-lookup", 6],
  ["manual-mid-lookup", 3],
];

export interface SeedMid {
  midId: string;
  insightId: string;
  locationId: string;
  brandId: string;
  scheme: Scheme;
  networkKey: string;
  status: MidInsightStatus;
  origin: Origin;
  merchantName: string;
  seNumber: string | null;
  vmid: string | null;
  vsid: string | null;
  visaAcquiringMid: string | null;
  visaBin: string | null;
  mcLocationId: string | null;
  mcAcquiringMid: string | null;
  midRequestId: string | null;
  sourcedAt: Date;
  onboardedAt: Date | null;
  offboardedAt: Date | null;
  offboardRequestedAt: Date | null;
  offboardDue: Date | null;
  lastSeenTransactionDate: Date | null;
  lastSeenTransactionId: string | null;
  firstTransactionAuthId: string | null;
  firstTransactionClearingId: string | null;
  eventTs: Date;
  created: Date;
  updated: Date;
}

const at = (t: number) => new Date(Math.floor(t));

/** When a seeded MID was sourced (days after its location), onboarded (a week or two later) and perhaps offboarded since. */
function seedLifecycle(r: () => number, now: number, locationCreated: number, origin: Origin) {
  const sourcedAt = locationCreated + Math.floor(r() * 3 * DAY_MS);
  let status: MidInsightStatus = pick(
    r,
    origin === "missing-transaction-lookup"
      ? [["sourced", 60], ["onboarded", 35], ["offboarded", 5]]
      : [["onboarded", 80], ["offboarded", 10], ["sourced", 10]],
  );
  // Onboarding takes the networks one to two weeks; a MID sourced more recently is still sourced.
  const onboardedAt = sourcedAt + (7 + r() * 7) * DAY_MS;
  if (onboardedAt > now) status = "sourced";

  let offboardedAt: number | null = null;
  let offboardRequestedAt: number | null = null;
  if (status === "offboarded") {
    offboardedAt = onboardedAt + (0.2 + r() * 0.75) * (now - onboardedAt);
    offboardRequestedAt = Math.max(onboardedAt, offboardedAt - OFFBOARD_DELAY_MS);
  } else if (status === "onboarded" && r() < 0.01) {
    offboardRequestedAt = now - r() * OFFBOARD_DELAY_MS; // a request the network has not acted on yet
  }
  return { status, sourcedAt, onboardedAt, offboardedAt, offboardRequestedAt };
}

/** The transactions a seeded MID has seen between its onboarding and `end` (offboarding, or now). */
function seedTransactionsSeen(r: () => number, status: MidInsightStatus, onboardedAt: number, end: number) {
  let lastSeen: number | null = null;
  let firstAuth: string | null = null;
  let firstClearing: string | null = null;
  let lastSeenId: string | null = null;
  if (status !== "sourced" && r() < 0.85) {
    lastSeen = end - r() ** 3 * (end - onboardedAt); // most MIDs saw a transaction recently
    firstAuth = randomUuid(r);
    firstClearing = r() < 0.9 ? randomUuid(r) : null;
    lastSeenId = randomUuid(r);
  }
  return { lastSeen, firstAuth, firstClearing, lastSeenId };
}

/** A seeded MID's identifiers in its network's formats, unique per location. */
function seedIdentifiers(r: () => number, seed: number, scheme: Scheme, location: SeedLocation & { index: number }, brand: SeedBrand) {
  const offset = mix32(seed ^ 0x5eed);
  return {
    seNumber: scheme === "amex" ? uniqueNumber(location.index, 1_000_000_000, 9_000_000_000, offset % 9_000_000_000) : null,
    vmid: scheme === "visa" ? brand.vmid : null,
    vsid: scheme === "visa" ? uniqueNumber(location.index, 10_000_000, 90_000_000, offset % 90_000_000) : null,
    visaAcquiringMid: scheme === "visa" ? digits(r, 15) : null,
    visaBin: scheme === "visa" ? brand.visaBin : null,
    mcLocationId: scheme === "mastercard" ? uniqueNumber(location.index, 100_000_000, 900_000_000, offset % 900_000_000) : null,
    mcAcquiringMid: scheme === "mastercard" ? brand.mcAcquiringMid : null,
  };
}

// Each part draws from the MID's one random stream in turn, so the parts are called in this order: a seed
// gives the same MID again.
export function seedMid(plan: SeedPlan, index: number, location: SeedLocation & { index: number }, brand: SeedBrand): SeedMid {
  const r = randomFor(plan.seed, 3, index);
  const now = plan.now.getTime();
  const scheme = SCHEME_OF_SLOT[index % MIDS_PER_LOCATION]!;
  let origin = pick(r, ORIGIN_WEIGHTS);
  // Only Visa MIDs are found through a Mastercard card acceptor id.
  if (origin === "system-mid-lookup" && scheme !== "visa") origin = "system-provided-mid";
  const { status, sourcedAt, onboardedAt, offboardedAt, offboardRequestedAt } = seedLifecycle(r, now, location.created.getTime(), origin);
  const { lastSeen, firstAuth, firstClearing, lastSeenId } = seedTransactionsSeen(r, status, onboardedAt, offboardedAt ?? now);

  // Networks keep short upper-case names; Visa and Amex add the town.
  const merchantName = (scheme === "mastercard" ? brand.name : `${brand.name} ${location.city}`).toUpperCase().slice(0, 25).trim();
  const ids = seedIdentifiers(r, plan.seed, scheme, location, brand);
  const onboarded = status === "sourced" ? null : onboardedAt;
  const eventTs = latestEvent(
    at(sourcedAt),
    onboarded === null ? null : at(onboarded),
    offboardRequestedAt === null ? null : at(offboardRequestedAt),
    offboardedAt === null ? null : at(offboardedAt),
    lastSeen === null ? null : at(lastSeen),
  );
  const [midId, insightId] = seedIds(plan, "mid", index);
  return {
    midId,
    insightId,
    locationId: location.id,
    brandId: brand.id,
    scheme,
    networkKey: networkKey(scheme, ids),
    status,
    origin,
    merchantName,
    ...ids,
    midRequestId: origin === "customer-provided-mid" ? randomUuid(r) : null,
    sourcedAt: at(sourcedAt),
    onboardedAt: onboarded === null ? null : at(onboarded),
    offboardedAt: offboardedAt === null ? null : at(offboardedAt),
    offboardRequestedAt: offboardRequestedAt === null ? null : at(offboardRequestedAt),
    offboardDue: status === "onboarded" && offboardRequestedAt !== null ? at(offboardRequestedAt + OFFBOARD_DELAY_MS) : null,
    lastSeenTransactionDate: lastSeen === null ? null : at(lastSeen),
    lastSeenTransactionId: lastSeenId,
    firstTransactionAuthId: firstAuth,
    firstTransactionClearingId: firstClearing,
    eventTs,
    created: at(sourcedAt),
    // Written a little after the latest event (processing), never after the service time.
    updated: at(Math.min(now, eventTs.getTime() + r() * 300_000)),
  };
}
