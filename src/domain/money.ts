// Money arithmetic in a currency's minor unit, so 12.345 EUR becomes 12.35 and 1234.5 JPY 1235.
import { currencyMinorDigits } from "./countries.ts";

/** Rounds half away from zero to the currency's minor unit, via integers to avoid 1.005-style drift. */
export function roundMoney(value: number, currency: string): number {
  const digits = currencyMinorDigits(currency);
  const factor = 10 ** digits;
  const scaled = Math.abs(value) * factor;
  // Only a value within float noise of a half needs the 12-digit cleaning (1.005 * 100 = 100.49999…);
  // anywhere else (12 significant digits move a value by at most scaled * 5e-12) Math.round alone gives
  // the same answer without building a string.
  const fraction = scaled - Math.floor(scaled);
  const rounded = Math.abs(fraction - 0.5) < 1e-9 + scaled * 1e-11 ? Math.round(Number(scaled.toPrecision(12))) : Math.round(scaled);
  return (Math.sign(value) * rounded) / factor || 0;
}
