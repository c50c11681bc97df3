// The versions of the live-offer and location indexes: triggers bump them on every write the indexes
// depend on (migration 010), so a reader holding an in-memory copy learns in one tiny query whether it
// is still current.
import type { Db } from "../../platform/db.ts";

export interface IndexVersions {
  offers: number;
  locations: number;
}

export async function indexVersions(db: Db): Promise<IndexVersions> {
  const [row] = await db.query<{ offers: number; locations: number }>(
    `select (select version from offer_index_version) as offers, (select version from location_index_version) as locations`,
  );
  return { offers: Number(row!.offers), locations: Number(row!.locations) };
}
