// A location as the API, the events and a transaction's record show it: its place, its brand and one state
// per scheme with the MIDs known there. Reads only; locations.ts and location-sync.ts write.
import type { Scheme } from "../../domain/card-number.ts";
import type { NetworkStatus } from "../../domain/location-status.ts";
import type { Db } from "../../platform/db.ts";

export interface VisaMid {
  vmid?: string;
  vsid?: string;
  visaAcquiringMid?: string;
  visaBin?: string;
}
export interface MastercardMid {
  mcLocationId?: string;
  mcAcquiringMid?: string;
}
export interface AmexMid {
  seNumber: string;
}
export interface Mids {
  visa: VisaMid[];
  mastercard: MastercardMid[];
  amex: AmexMid[];
}

export interface NetworkState<M> {
  status: NetworkStatus;
  mids: M[];
  /** Not found: the case the network opened about the location. */
  case?: { id: string; reason: string; opened: string };
  updated: string;
}

/** Where a location is: the part of it a transaction's record copies. */
export type Place = ReturnType<typeof placeOfLocation>;

export interface Location extends Place {
  id: string;
  programId: string;
  brandId: string;
  live: boolean;
  status: { visa: NetworkState<VisaMid>; mastercard: NetworkState<MastercardMid>; amex: NetworkState<AmexMid> };
  created: string;
  updated: string;
}

export interface LocationRow {
  id: string;
  program_id: string;
  brand_id: string;
  address: string;
  city: string;
  postcode: string;
  country_code: string;
  timezone: string;
  latitude: number | null;
  longitude: number | null;
  metadata: Record<string, unknown> | null;
  live: boolean;
  created: Date;
  updated: Date;
}

interface NetworkRow {
  location_id: string;
  scheme: Scheme;
  status: NetworkStatus;
  mids: unknown[];
  case_id: string | null;
  case_reason: string | null;
  case_opened: Date | null;
  updated: Date;
}

type Networks = Location["status"];

/** Where a location is, as the API and a transaction's record show it. */
export const placeOfLocation = (r: LocationRow) => ({
  address: r.address,
  city: r.city,
  postcode: r.postcode,
  countryCode: r.country_code,
  timezone: r.timezone,
  geolocation: r.latitude === null || r.longitude === null ? null : { latitude: r.latitude, longitude: r.longitude },
  // An object everywhere, as in the transaction's location: {} when none was given.
  metadata: r.metadata ?? {},
});

const toLocation = (r: LocationRow, status: Networks): Location => ({
  id: r.id,
  programId: r.program_id,
  brandId: r.brand_id,
  ...placeOfLocation(r),
  live: r.live,
  status,
  created: r.created.toISOString(),
  updated: r.updated.toISOString(),
});

/** The per-scheme states of the given locations, by location id. */
async function loadNetworks(db: Db, ids: string[]): Promise<Map<string, Networks>> {
  const byLocation = new Map<string, Partial<Record<Scheme, NetworkState<unknown>>>>();
  if (ids.length === 0) return new Map();
  const rows = await db.query<NetworkRow>(
    "select location_id, scheme, status, mids, case_id, case_reason, case_opened, updated from location_networks where location_id = any($1::uuid[])",
    [ids],
  );
  for (const r of rows) {
    const states = byLocation.get(r.location_id) ?? {};
    states[r.scheme] = {
      status: r.status,
      mids: r.mids,
      ...(r.case_id ? { case: { id: r.case_id, reason: r.case_reason ?? "", opened: r.case_opened!.toISOString() } } : {}),
      updated: r.updated.toISOString(),
    };
    byLocation.set(r.location_id, states);
  }
  return new Map([...byLocation].map(([id, states]) => [id, states as Networks]));
}

export async function withNetworks(db: Db, rows: LocationRow[]): Promise<Location[]> {
  const networks = await loadNetworks(
    db,
    rows.map((r) => r.id),
  );
  return rows.map((r) => toLocation(r, networks.get(r.id)!));
}

/** One location by id, whoever owns it: for the workers that report on it. */
export async function locationRecord(db: Db, id: string): Promise<Location> {
  const [row] = await db.query<LocationRow>("select * from locations where id = $1", [id]);
  if (!row) throw new Error(`no location ${id}`);
  return (await withNetworks(db, [row]))[0]!;
}

/** A location with its brand's name and logo, as the transaction record shows them. */
export interface LocationWithBrand extends LocationRow {
  brand_name: string;
  brand_logo_url: string | null;
}
