// Countries by ISO 3166-1 alpha-3 code, from maintained data sets: world-countries (codes, capitals),
// country-to-currency (ISO 4217 currency) and countries-and-timezones (IANA zones).
import { createRequire } from "node:module";
import type { Countries } from "world-countries";
import countryToCurrency from "country-to-currency";
import { getCountry } from "countries-and-timezones";

export interface Country {
  alpha3: string;
  alpha2: string;
  name: string;
  currency: string | null;
  /** The zone an offer's status is computed in: the country's main timezone. */
  mainTimezone: string | null;
}

// world-countries is CommonJS whose types claim a default export; require gives the array itself.
const worldCountries = createRequire(import.meta.url)("world-countries") as Countries;
const currencies = countryToCurrency as Record<string, string>;

function mainTimezone(alpha2: string, capital: string | undefined): string | null {
  const all = getCountry(alpha2)?.timezones ?? [];
  const zones = all.some((z) => !z.startsWith("Antarctica/")) ? all.filter((z) => !z.startsWith("Antarctica/")) : all;
  if (zones.length <= 1) return zones[0] ?? null;
  // The capital's zone when its name is the capital's; otherwise the rules (January and July
  // offsets) most of the country's zones share, first by name: the data sets carry no populations.
  const city = capital?.replace(/ /g, "_");
  const byCapital = city ? zones.find((z) => z.endsWith(`/${city}`)) : undefined;
  if (byCapital) return byCapital;
  const offsetAt = (z: string, month: number) =>
    new Intl.DateTimeFormat("en", { timeZone: z, timeZoneName: "shortOffset" })
      .formatToParts(new Date(Date.UTC(2025, month, 15)))
      .find((p) => p.type === "timeZoneName")?.value;
  const offsetOf = (z: string) => `${offsetAt(z, 0)}/${offsetAt(z, 6)}`;
  const counts = new Map<string | undefined, number>();
  for (const z of zones) counts.set(offsetOf(z), (counts.get(offsetOf(z)) ?? 0) + 1);
  const [top] = [...counts.entries()].sort((a, b) => b[1] - a[1]);
  return zones.find((z) => offsetOf(z) === top?.[0]) ?? zones[0] ?? null;
}

const byAlpha3 = new Map<string, Country>();
for (const c of worldCountries) {
  byAlpha3.set(c.cca3, {
    alpha3: c.cca3,
    alpha2: c.cca2,
    name: c.name.common,
    currency: currencies[c.cca2] ?? null,
    get mainTimezone() {
      const zone = mainTimezone(c.cca2, c.capital[0]);
      Object.defineProperty(this, "mainTimezone", { value: zone });
      return zone;
    },
  });
}

export const countryByAlpha3 = (code: string): Country | undefined => byAlpha3.get(code);

/** Every ISO 3166-1 alpha-3 code known here, sorted. */
export const COUNTRY_CODES: readonly string[] = [...byAlpha3.keys()].sort();

export const isTimeZone = (zone: string): boolean => {
  try {
    new Intl.DateTimeFormat("en", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
};

const minorDigits = new Map<string, number>();

/**
 * Digits after the decimal point in the currency's minor unit (JPY 0, BHD 3, most 2). Asked once per
 * currency (an Intl.NumberFormat is costly to build), then from memory: the qualifier asks per decision.
 */
export function currencyMinorDigits(currency: string): number {
  let digits = minorDigits.get(currency);
  if (digits === undefined) {
    digits = new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions().maximumFractionDigits ?? 2;
    minorDigits.set(currency, digits);
  }
  return digits;
}
