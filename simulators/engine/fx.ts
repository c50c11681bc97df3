// Currency conversion as a network does it for a purchase abroad: the purchase keeps its own amount and
// currency, and the message carries beside them what the cardholder is billed in theirs, at the network's
// rate of the day it processes the message (so an authorisation and its clearing days later are billed a
// little differently). Rates are simulated: reference rates for the common currencies, a made-up but
// fixed one for any other, moved by at most 0.5 % a day, the same in every process.
import { hashSeed } from "./random.ts";
import { roundMoney } from "../../src/domain/money.ts";

/** US dollars per unit of each currency the networks have a reference rate for. */
const USD_PER: Record<string, number> = {
  USD: 1,
  EUR: 1.08,
  GBP: 1.27,
  CHF: 1.12,
  CAD: 0.74,
  AUD: 0.66,
  NZD: 0.61,
  JPY: 0.0067,
  SEK: 0.095,
  NOK: 0.094,
  DKK: 0.145,
  PLN: 0.25,
  SGD: 0.74,
  HKD: 0.128,
  INR: 0.012,
  MXN: 0.058,
  BRL: 0.2,
  ZAR: 0.054,
};

/** A currency's reference rate: the table's, else a fixed one from its code (between 0.01 and 2 dollars). */
const usdPer = (currency: string): number => USD_PER[currency] ?? 0.01 + (hashSeed("fx", currency) % 19_900) / 10_000;

/** Units of `to` per unit of `from` on the day of `at`, to 6 decimals. */
export function conversionRate(from: string, to: string, at: Date): number {
  const wobble = ((hashSeed("fx-day", at.toISOString().slice(0, 10)) % 1001) / 1000 - 0.5) / 100;
  return Math.round((usdPer(from) / usdPer(to)) * (1 + wobble) * 1e6) / 1e6;
}

/** What the cardholder billed in `billingCurrency` pays for `amount` of `currency` processed at `at`; null when nothing is converted. */
export function billed(amount: number, currency: string, billingCurrency: string | null | undefined, at: Date): { amount: number; currency: string; rate: number } | null {
  if (!billingCurrency || billingCurrency === currency) return null;
  const rate = conversionRate(currency, billingCurrency, at);
  return { amount: roundMoney(amount * rate, billingCurrency), currency: billingCurrency, rate };
}
