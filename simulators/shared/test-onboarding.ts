// The test environment's networks onboard a location the moment it is created: each scheme assigns
// its MIDs at once, derived from the location id so any process computes the same ones.
import type { MerchantIds } from "../../src/bus/messages.ts";
import { ADAPTERS } from "./schemes.ts";
import { hashSeed, seededRandom } from "./random.ts";
import { descriptor } from "./scheme.ts";
import type { Scheme } from "./types.ts";

const SCHEME_FIELDS = {
  visa: ["vmid", "vsid", "visaAcquiringMid", "visaBin"],
  mastercard: ["mcLocationId", "mcAcquiringMid"],
  amex: ["seNumber"],
} as const satisfies Record<Scheme, readonly (keyof MerchantIds)[]>;

/** The scheme's own MID fields of `mids`, without the empty ones: what a location stores. */
function schemeMids(scheme: Scheme, mids: Partial<MerchantIds>): Record<string, string> {
  return Object.fromEntries(
    SCHEME_FIELDS[scheme].flatMap((field) => (mids[field] ? [[field, mids[field]]] : [])),
  );
}

export function testOnboardingMids(
  scheme: Scheme,
  location: { id: string; brandName: string; city: string },
): Record<string, string> {
  const random = seededRandom(hashSeed("test-onboarding", scheme, location.id));
  return schemeMids(scheme, ADAPTERS[scheme].assignMids(random, descriptor(location.brandName, location.city), true));
}
