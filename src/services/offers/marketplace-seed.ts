// The simulated marketplace's content: content providers' offers generated from a seed, and the seeder
// that stores them. (The brands' answers to adoptions are runMarketplaceDue in offers.ts.)
import { Faker, en } from "@faker-js/faker";
import { addMonths, localAt } from "../../domain/local-dates.ts";
import type { MarketplaceOfferInput } from "../../domain/offer-marketplace.ts";
import { statusZone } from "../../domain/offer-status.ts";
import type { Db } from "../../platform/db.ts";
import { createMarketplaceOffer, type MarketplaceOfferAdmin } from "./marketplace.ts";

const COUNTRIES = ["GBR", "USA", "IRL", "FRA", "DEU", "ESP", "NLD", "CAN", "AUS", "JPN"] as const;

/**
 * `count` realistic content-provider offers from `seed`: the same seed and service time give the same
 * offers. They start between 10 days ago and 20 days ahead (local to their country) and run 3 to 12 months.
 */
export function generateMarketplaceOffers(seed: number, count: number, now: Date): MarketplaceOfferInput[] {
  const f = new Faker({ locale: [en] });
  f.seed(seed);
  return Array.from({ length: count }, () => {
    const countryCode = f.helpers.arrayElement(COUNTRIES);
    const today = localAt(now, statusZone(countryCode)).slice(0, 10);
    const start = new Date(`${today}T00:00:00Z`);
    start.setUTCDate(start.getUTCDate() + f.number.int({ min: -10, max: 20 }));
    const startDate = `${start.toISOString().slice(0, 10)}T00:00:00`;
    const discount = f.datatype.boolean();
    const percent = f.number.int({ min: 5, max: 25 });
    const brandName = f.company.name();
    const zeroDecimals = countryCode === "JPN";
    const supplierType = f.helpers.arrayElement(["merchant", "affiliate"] as const);
    return {
      name: discount ? `${percent}% off at ${brandName}` : `Cashback at ${brandName}`,
      brandName,
      brandLogoURL: `https://logos.example.com/${f.string.alphanumeric(10).toLowerCase()}.png`,
      countryCode,
      channels: f.helpers.arrayElements(["online", "in-store"] as const, { min: 1, max: 2 }),
      startDate,
      endDate: addMonths(startDate, f.number.int({ min: 3, max: 12 })),
      type: discount
        ? { name: "discount", value: percent, maxRewardAmount: zeroDecimals ? 5000 : 50 }
        : { name: "amount", value: zeroDecimals ? f.number.int({ min: 300, max: 1500 }) : f.number.int({ min: 2, max: 15 }) },
      activation: f.datatype.boolean({ probability: 0.3 })
        ? { enabled: true, qualifiedTransactionsLimit: f.number.int({ min: 1, max: 5 }) }
        : { enabled: false },
      schemes: f.helpers.arrayElements(["visa", "mastercard", "amex"] as const, { min: 1, max: 3 }),
      minTransactionAmount: zeroDecimals ? f.number.int({ min: 0, max: 3000 }) : f.number.int({ min: 0, max: 30 }),
      returnPeriod: f.helpers.arrayElement([0, 0, 14, 30]),
      // On amount offers the fees are money in the offer's currency: whole yen in Japan.
      fees: discount
        ? { publisherFee: 1, serviceFee: 0.5 }
        : zeroDecimals
          ? { publisherFee: 50, serviceFee: 25 }
          : { publisherFee: 0.5, serviceFee: 0.25 },
      targeting: f.helpers.arrayElement([
        null,
        null,
        { name: "new" as const },
        { name: "lapsed" as const, from: 90, to: 365 },
        { name: "existing" as const, from: 0, to: 90 },
      ]),
      additionalTerms: f.datatype.boolean() ? "One reward per purchase. Excludes gift cards." : null,
      supplier: {
        id: `cp_${f.string.alphanumeric(12).toLowerCase()}`,
        type: supplierType,
        name: supplierType === "merchant" ? brandName : `${f.company.name()} Rewards`,
      },
      brandDecision: {
        decision: f.datatype.boolean({ probability: 0.85 }) ? "accept" : "decline",
        afterHours: f.number.int({ min: 12, max: 96 }),
      },
    };
  });
}

/** Puts `count` generated offers on the marketplace. */
export async function seedMarketplace(db: Db, options: { count: number; seed: number }, now: Date): Promise<MarketplaceOfferAdmin[]> {
  const created: MarketplaceOfferAdmin[] = [];
  for (const input of generateMarketplaceOffers(options.seed, options.count, now)) {
    created.push(await createMarketplaceOffer(db, input, now));
  }
  return created;
}
