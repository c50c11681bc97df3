// The population traffic draws from: the service's enrolled cards of the scheme and its locations,
// split by whether this network has onboarded them (location status Active for the scheme).
import type { Db } from "../../src/store/db.ts";
import type { Pools } from "./generator.ts";
import type { NetworkSimulator } from "./network.ts";
import { emptyMids, type Card, type Merchant } from "./types.ts";

/** At most this many cards and locations are drawn from; enough for any demo or load test here. */
const LIMIT = 10_000;

interface LocationRow {
  id: string;
  address: string;
  city: string;
  postcode: string;
  country_code: string;
  timezone: string;
  brand_name: string;
  status: string | null;
  mids: Merchant["mids"][] | null;
}

export async function loadPools(network: NetworkSimulator, db: Db, programId: string | undefined): Promise<Pools> {
  const scheme = network.scheme;
  const byProgram = programId ? "and program_id = $2" : "";
  const params = programId ? [scheme, programId] : [scheme];
  const cards = await db.query<{ id: string; first_numbers: string; last_numbers: string }>(
    `select id, first_numbers, last_numbers from cards where scheme = $1 ${byProgram} order by id limit ${LIMIT}`,
    params,
  );
  const locations = await db.query<LocationRow>(
    `select l.id, l.address, l.city, l.postcode, l.country_code, l.timezone, b.name as brand_name, n.status, n.mids
     from locations l join brands b on b.id = l.brand_id
     left join location_networks n on n.location_id = l.id and n.scheme = $1
     where true ${byProgram.replace("program_id", "l.program_id")} order by l.id limit ${LIMIT}`,
    params,
  );
  const onboarded: Merchant[] = [];
  const notOnboarded: Merchant[] = [];
  for (const l of locations) {
    const active = l.status === "Active";
    const merchant = await network.merchantForLocation(
      { id: l.id, brandName: l.brand_name, address: l.address, city: l.city, postcode: l.postcode, countryCode: l.country_code, timezone: l.timezone },
      { assigned: active, upgrade: active },
      (l.mids ?? []).map((m) => ({ ...emptyMids(), ...m })),
    );
    (active ? onboarded : notOnboarded).push(merchant);
  }
  const population: Card[] = cards.map((c) => ({ id: c.id, firstSix: c.first_numbers, lastFour: c.last_numbers }));
  return { cards: population, onboarded, notOnboarded };
}
