// Generated traffic: realistic merchants, cards and purchases from faker's own seeded instance, so one
// seed gives the same stream, purchase for purchase. The stream reseeds every CHUNK purchases, which
// lets a restarted run pick up at purchase n without replaying the whole run.
import { Faker, base, en } from "@faker-js/faker";
import { countryByAlpha3 } from "../../src/domain/countries.ts";
import { localAt } from "../../src/domain/local-dates.ts";
import { roundMoney } from "../../src/domain/money.ts";
import { AUTH_EXPIRY_DAYS, TIP_BOUND } from "../../src/domain/purchase-follow-ups.ts";
import { DAY_MS, HOUR_MS } from "../../src/domain/time-units.ts";
import { descriptor, type SchemeAdapter } from "./scheme.ts";
import { derivedRandom, derivedUuid } from "./random.ts";
import type { Card, Merchant, Plan, Purchase, Scheme } from "./types.ts";
import type { TrafficOptionsSetting } from "../../src/platform/bus/messages.ts";

const CHUNK = 1000;
const SCHEME_NUMBER: Record<Scheme, number> = { visa: 1, mastercard: 2, amex: 3 };

/** Where generated merchants are, weighted roughly by card-linking volume. */
const COUNTRIES: [string, number][] = [
  ["GBR", 30],
  ["USA", 30],
  ["FRA", 8],
  ["DEU", 8],
  ["IRL", 5],
  ["ESP", 5],
  ["NLD", 5],
  ["CAN", 5],
  ["AUS", 4],
];

/** Merchant categories with the amount range a purchase there usually has (major units). */
const CATEGORIES = [
  { mcc: "5812", kind: "Kitchen", min: 8, max: 120, weight: 18 },
  { mcc: "5814", kind: "Burgers", min: 3, max: 25, weight: 14 },
  { mcc: "5411", kind: "Market", min: 5, max: 180, weight: 20 },
  { mcc: "5541", kind: "Fuel", min: 20, max: 110, weight: 8 },
  { mcc: "5651", kind: "Outfitters", min: 15, max: 250, weight: 8 },
  { mcc: "5732", kind: "Electronics", min: 20, max: 1500, weight: 4 },
  { mcc: "5912", kind: "Pharmacy", min: 4, max: 60, weight: 8 },
  { mcc: "5999", kind: "Store", min: 5, max: 200, weight: 10 },
  { mcc: "4121", kind: "Cabs", min: 6, max: 60, weight: 5 },
  { mcc: "5942", kind: "Books", min: 5, max: 80, weight: 5 },
] as const;

const WALLETS: [string | null, number][] = [
  [null, 73],
  ["APPLE_PAY", 15],
  ["GOOGLE_PAY", 10],
  ["SAMSUNG_PAY", 2],
];

/**
 * Shares of generated purchases (the rest are enrolled cards at onboarded locations), and the days an
 * authorisation left uncleared lasts: a traffic run's options beside its rate, seed, length, schemes and
 * program, each field as the run's setting (src/platform/bus/schemas/simulator-setting.avsc) describes it.
 */
export type TrafficMix = Omit<TrafficOptionsSetting, "rate" | "seed" | "durationSeconds" | "schemes" | "programId">;

export const DEFAULT_MIX: TrafficMix = {
  unenrolledCards: 0.1,
  unknownMerchants: 0.1,
  notOnboardedLocations: 0.1,
  targetingTags: { new: 0.1, lapsed: 0.05, existing: 0.15 },
  voids: 0.04,
  refunds: 0.06,
  unreferencedRefunds: 0.3,
  partialClearings: 0.03,
  multipleClearings: 0.03,
  clearingsWithoutAuth: 0.02,
  tips: 0.03,
  expiries: 0.01,
  incrementalAuths: 0.01,
  duplicateClearings: 0.01,
  crossBorder: 0.05,
  authExpiryDays: AUTH_EXPIRY_DAYS,
};

/** The currencies a cross-border purchase is billed in: the cardholder's, never the merchant's. */
const BILLING_CURRENCIES = ["USD", "EUR", "GBP"];

/** How a purchase planned to clear in parts clears: one part of 50 to 95 % of it, or two or three parts adding up to it. */
export function clearingParts(amount: number, currency: string, multiple: boolean, random: () => number): number[] {
  if (!multiple) return [roundMoney(amount * (0.5 + 0.45 * random()), currency)];
  const count = random() < 0.5 ? 2 : 3;
  const parts: number[] = [];
  let left = amount;
  for (let i = 1; i < count; i++) {
    const part = roundMoney(left * (0.3 + 0.4 * random()), currency);
    parts.push(part);
    left = roundMoney(left - part, currency);
  }
  parts.push(left);
  // A part too small to carry (an amount of a few minor units) leaves the purchase to clear at once.
  return parts.every((p) => p > 0) ? parts : [amount];
}

/** What the stream draws from: the service's cards and locations (or generated ones for a dry run). */
export interface Pools {
  cards: Card[];
  onboarded: Merchant[];
  notOnboarded: Merchant[];
}

export interface Generated {
  purchase: Purchase;
  plan: Plan;
}

const newFaker = (seed: number[]) => {
  const faker = new Faker({ locale: [en, base] });
  faker.seed(seed);
  return faker;
};

function weighted<T>(faker: Faker, items: readonly (readonly [T, number])[]): T {
  return faker.helpers.weightedArrayElement(items.map(([value, weight]) => ({ value, weight })));
}

/** A merchant the network knows, with ids assigned (or, `assigned` false, not yet) for the scheme. */
function generateMerchant(faker: Faker, adapter: SchemeAdapter, seed: number, assigned: boolean): Merchant {
  const category = faker.helpers.weightedArrayElement(CATEGORIES.map((c) => ({ value: c, weight: c.weight })));
  const countryCode = weighted(faker, COUNTRIES);
  const key = faker.string.uuid();
  const name = `${faker.company.name().split(/[ ,]/)[0]} ${category.kind}`;
  const city = faker.location.city();
  return {
    key,
    locationId: null,
    name,
    address: faker.location.streetAddress(),
    city,
    postcode: faker.location.zipCode(),
    countryCode,
    timezone: countryByAlpha3(countryCode)?.mainTimezone ?? "UTC",
    mcc: category.mcc,
    mids: adapter.assignMids(derivedRandom(seed, adapter.scheme, key), descriptor(name, city), assigned),
  };
}

function generateCard(faker: Faker, adapter: SchemeAdapter): Card {
  const id = faker.string.uuid();
  return { id, ...adapter.cardPrefix(derivedRandom(adapter.scheme, id)) };
}

/** A population made up entirely by the generator (the dry run's, and traffic's noise). */
export function generatePools(adapter: SchemeAdapter, seed: number, sizes: { cards: number; merchants: number }): Pools {
  const faker = newFaker([seed, SCHEME_NUMBER[adapter.scheme], 0]);
  const cards = Array.from({ length: sizes.cards }, () => generateCard(faker, adapter));
  const notOnboardedCount = Math.floor(sizes.merchants / 5);
  const merchants = Array.from({ length: sizes.merchants }, (_, i) =>
    generateMerchant(faker, adapter, seed, i >= notOnboardedCount),
  );
  return { cards, onboarded: merchants.slice(notOnboardedCount), notOnboarded: merchants.slice(0, notOnboardedCount) };
}

export class PurchaseStream {
  private faker: Faker | undefined;
  private chunk = -1;
  /** How many purchases the stream has produced. */
  position = 0;

  constructor(
    private readonly adapter: SchemeAdapter,
    private readonly seed: number,
    private readonly pools: Pools,
    private readonly mix: TrafficMix = DEFAULT_MIX,
    /**
     * Salts purchase ids (a traffic run's id), so a second run with the same seed makes the same
     * purchases under new ids instead of replaying the first run's transactions.
     */
    private readonly idSalt = "",
  ) {}

  /** Jumps to purchase `n` (a run resumed after a restart). */
  seek(n: number) {
    this.chunk = -1;
    this.position = n;
  }

  next(at: Date): Generated {
    const chunk = Math.floor(this.position / CHUNK);
    if (chunk !== this.chunk || !this.faker) {
      this.faker = newFaker([this.seed, SCHEME_NUMBER[this.adapter.scheme], chunk + 1]);
      this.chunk = chunk;
      const epoch = new Date(0);
      for (let i = chunk * CHUNK; i < this.position; i++) this.draw(this.faker, epoch);
    }
    this.position++;
    return this.draw(this.faker, at);
  }

  private draw(faker: Faker, at: Date): Generated {
    const { pools, mix, adapter } = this;
    const drawn = faker.string.uuid();
    const id = this.idSalt ? derivedUuid(drawn, this.idSalt) : drawn;
    const unenrolled = faker.number.float() < mix.unenrolledCards || pools.cards.length === 0;
    const card = unenrolled ? generateCard(faker, adapter) : faker.helpers.arrayElement(pools.cards);
    const r = faker.number.float();
    let merchant: Merchant;
    if (r < mix.unknownMerchants) merchant = generateMerchant(faker, adapter, this.seed, true);
    else if (r < mix.unknownMerchants + mix.notOnboardedLocations && pools.notOnboarded.length) {
      merchant = faker.helpers.arrayElement(pools.notOnboarded);
    } else if (pools.onboarded.length) merchant = faker.helpers.arrayElement(pools.onboarded);
    else merchant = generateMerchant(faker, adapter, this.seed, true);

    const category = CATEGORIES.find((c) => c.mcc === merchant.mcc) ?? CATEGORIES[7];
    const currency = countryByAlpha3(merchant.countryCode)?.currency ?? "USD";
    // Most purchases are small: skew towards the bottom of the category's range.
    const amount = roundMoney(category.min + (category.max - category.min) * faker.number.float() ** 2, currency);
    const cardPresent = faker.number.float() < 0.7;
    const wallet = weighted(faker, WALLETS);
    const t = faker.number.float();
    const tags = mix.targetingTags;
    const targetingTag = t < tags.new ? "new" : t < tags.new + tags.lapsed ? "lapsed" : t < tags.new + tags.lapsed + tags.existing ? "existing" : null;

    const o = faker.number.float();
    // Draws beyond the stream's own (whether a refund names its purchase, how it clears in parts, what the
    // network does beside the plan) come from the purchase's own random streams, so adding them left the
    // rest of the stream as it was. The network's own behaviours draw on the unsalted id: one seed, one stream.
    const network = derivedRandom(this.seed, adapter.scheme, drawn, "network");
    const [incremented, duplicated, abroad] = [network(), network(), network()];
    let plan: Plan;
    // The outcomes after the auth, one range of `o` each, in the order they were added (the older ones' ranges never move).
    let from = mix.voids + mix.refunds + mix.partialClearings + mix.multipleClearings;
    const within = (share: number) => o >= from && o < (from += share);
    if (o < mix.voids) plan = { outcome: "void", afterMs: faker.number.int({ min: 1, max: 12 }) * HOUR_MS };
    else if (o < mix.voids + mix.refunds) {
      const partial = faker.number.float() < 0.4;
      plan = {
        outcome: "refund",
        amount: partial ? roundMoney(amount * faker.number.float({ min: 0.1, max: 0.9 }), currency) : amount,
        afterClearingMs: faker.number.int({ min: 1, max: 10 }) * DAY_MS,
        referenced: derivedRandom(this.seed, adapter.scheme, id, "refund")() >= mix.unreferencedRefunds,
      };
    } else if (o < mix.voids + mix.refunds + mix.partialClearings + mix.multipleClearings) {
      const multiple = o >= mix.voids + mix.refunds + mix.partialClearings;
      plan = { outcome: "clear", clearings: clearingParts(amount, currency, multiple, derivedRandom(this.seed, adapter.scheme, id, "clearings")) };
    } else if (within(mix.clearingsWithoutAuth)) plan = { outcome: "clear", withoutAuth: true };
    else if (within(mix.tips)) plan = { outcome: "clear", clearings: [roundMoney(amount * (1 + (0.05 + (TIP_BOUND - 0.05) * network())), currency)] };
    else if (within(mix.expiries)) plan = { outcome: "expire" };
    else plan = { outcome: "clear" };
    if (plan.outcome === "clear" && !plan.withoutAuth) {
      if (!plan.clearings && incremented < mix.incrementalAuths) {
        plan.increment = { amount: roundMoney(amount * (0.1 + 0.4 * network()), currency), afterMs: (1 + Math.floor(network() * 24)) * HOUR_MS };
      }
      if (duplicated < mix.duplicateClearings) plan.duplicate = true;
    }
    const billingCurrency = abroad < mix.crossBorder ? BILLING_CURRENCIES.filter((c) => c !== currency)[Math.floor(network() * 2)]! : null;

    return {
      purchase: {
        id,
        scheme: adapter.scheme,
        card,
        merchant,
        amount,
        currency,
        localDateTime: localAt(at, merchant.timezone),
        authorizedAt: at.toISOString(),
        cardPresent,
        wallet,
        targetingTag,
        billingCurrency,
        authExpiryDays: mix.authExpiryDays,
      },
      plan,
    };
  }
}
