// The network's merchant records: one builder of a merchant from a place and its MIDs (the client's over the
// ones the network assigns), and the record a batch finds or makes for one of the service's locations.
import { countryByAlpha3 } from "../../src/domain/countries.ts";
import { findMerchant } from "./store.ts";
import { hashSeed, seededRandom } from "./random.ts";
import { descriptor } from "./scheme.ts";
import type { Batch, Network } from "./batch.ts";
import type { Merchant, MerchantIds } from "./types.ts";

/** One of the service's locations as the network sees it. */
export interface Place {
  id: string;
  brandName: string;
  address: string;
  city: string;
  postcode: string;
  countryCode: string;
  timezone?: string | null;
}

/** The ids the network assigns a place (deterministically, from the seed): all of them when `onboarded`, else only those it has before onboarding. */
export const assignedMids = (net: Network, place: Place, onboarded: boolean): MerchantIds =>
  net.adapter.assignMids(seededRandom(hashSeed(net.deps.seed, net.scheme, place.id)), descriptor(place.brandName, place.city), onboarded);

/** What the client gave wins field by field; the network fills in what it left out (a Visa CAID and BIN next to a vmid, say). */
export const mergedMids = (assigned: MerchantIds, given: MerchantIds): MerchantIds => ({
  ...assigned,
  ...Object.fromEntries(Object.entries(given).filter(([, v]) => v != null)),
});

/** The merchant at `place` with `mids`: what the network `known` holds of its timezone and MCC wins. */
export function merchantOf(place: Place, mids: MerchantIds, known?: Merchant): Merchant {
  return {
    key: place.id,
    locationId: place.id,
    name: place.brandName,
    address: place.address,
    city: place.city,
    postcode: place.postcode,
    countryCode: place.countryCode,
    timezone: known?.timezone ?? place.timezone ?? countryByAlpha3(place.countryCode)?.mainTimezone ?? "UTC",
    mcc: known?.mcc ?? "5999",
    mids: { ...mids, merchantName: mids.merchantName ?? descriptor(place.brandName, place.city) },
  };
}

/**
 * The merchant record for one of the service's locations: what the network already holds, else
 * the MIDs the service gave, else ids the network assigns — all of them when `assigned`, else only
 * those it has before onboarding. A new record is the environment's, made at `now`, and goes with the batch.
 */
export async function merchantForLocation(
  net: Network,
  b: Batch,
  place: Place,
  { assigned, environment, now }: { assigned: boolean; environment: string; now: Date },
  supplied: MerchantIds[] = [],
): Promise<Merchant> {
  if (!b.known.has(place.id)) b.known.set(place.id, (await findMerchant(net.deps.db, net.scheme, place.id)) ?? null);
  const known = b.known.get(place.id);
  if (known) return known.merchant;
  const ids = assignedMids(net, place, assigned);
  // The service's MIDs win, so the ids the service knows are the ids its messages carry.
  const given = supplied.map((m) => mergedMids(ids, m)).find((m) => net.adapter.validMids(m));
  const merchant = merchantOf(place, given ?? ids);
  b.merchants.push({ scheme: net.scheme, merchant, onboarded: assigned, at: now, environment });
  b.known.set(place.id, { merchant, onboarded: assigned });
  return merchant;
}
