// Money arithmetic in a currency's minor unit, so 12.345 EUR becomes 12.35 and 1234.5 JPY 1235.
import { currencyMinorDigits } from "./countries.ts";

/** Rounds half away from zero to the currency's minor unit, via integers to avoid 1.005-style drift. */
export function roundMoney(value: number, currency: string): number {
  const digits = currencyMinorDigits(currency);
  const factor = 10 ** digits;
  const scaled = Math.abs(value) * factor;
  const rounded = Math.round(Number(scaled.toPrecision(12)));
  return (Math.sign(value) * rounded) / factor || 0;
}
