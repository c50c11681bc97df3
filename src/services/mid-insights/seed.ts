// Generates brands, locations, MIDs and insights for a program and writes them in large batches through
// their services (each a statement over a JSON array: json_to_recordset works on PostgreSQL and PGlite
// alike; COPY does not).
import { DomainError, notFound } from "../../domain/errors.ts";
import type { Db } from "../../platform/db.ts";
import {
  brandBlocks,
  locationOfMid,
  locationsFor,
  seedBrand,
  seedLocation,
  seedMid,
  type SeedBrand,
  type SeedLocation,
  type SeedMid,
  type SeedPlan,
} from "./generator.ts";
import { IDENTIFIER_FIELDS, type Scheme } from "../../domain/mid-insights.ts";
import { seedBrands } from "../catalog/index.ts";
import { seedLocations } from "../catalog/index.ts";
import { seedNetworks } from "../catalog/index.ts";
import { seedMids } from "./mid-insights.ts";

/** MIDs per batch: about 2 MB of JSON, large enough that statement overhead stops mattering. */
const BATCH = 3000;
export const MAX_SEED_COUNT = 2_000_000;

export interface SeedRequest {
  programId: string;
  count: number;
  seed: number;
  now: Date;
  /** Called after each batch with the insights created so far. */
  onProgress?: (created: number) => void;
}

/** The program's account and environment, which every seeded row takes. */
interface Owner {
  account_id: string;
  live: boolean;
}

/** Per scheme, the location's sync status and the MIDs it is onboarded with, as the locations store keeps them. */
type Networks = Record<Scheme, { status: "Active" | "Idle"; mids: Record<string, string>[] }>;

/** One batch of MIDs [from, to) with the locations they sit at. */
function generateBatch(plan: SeedPlan, brands: SeedBrand[], brandOf: (location: number) => number, from: number, to: number) {
  const mids: SeedMid[] = [];
  const locations = new Map<number, SeedLocation & { index: number; networks: Networks }>();
  for (let i = from; i < to; i++) {
    const l = locationOfMid(i);
    const brand = brands[brandOf(l)]!;
    let location = locations.get(l);
    if (!location) {
      const idle = () => ({ status: "Idle" as const, mids: [] });
      location = { ...seedLocation(plan, l, brand), index: l, networks: { visa: idle(), mastercard: idle(), amex: idle() } };
      locations.set(l, location);
    }
    const mid = seedMid(plan, i, location, brand);
    if (mid.status === "onboarded") {
      const ids = Object.fromEntries(
        IDENTIFIER_FIELDS.flatMap((f) => (mid[f] === null ? [] : [[f, mid[f]]])),
      ) as Record<string, string>;
      location.networks[mid.scheme] = { status: "Active", mids: [ids] };
    }
    mids.push(mid);
  }
  return { mids, locations: [...locations.values()] };
}

/**
 * Creates `count` generated MID insights (with their brands and locations) in a live program. The ids
 * derive from (program, seed, index), so running a seed again creates only what is missing.
 * Returns the number of insights created.
 */
export async function seedMidInsights(db: Db, req: SeedRequest): Promise<number> {
  const [owner] = await db.query<Owner>("select account_id, live from programs where id = $1", [req.programId]);
  if (!owner) throw notFound("program", req.programId);
  if (!owner.live) {
    throw new DomainError("invalid", "programId: MID insights exist for live programs only; this is a test program.");
  }
  const plan: SeedPlan = { programId: req.programId, seed: req.seed, now: req.now };
  const { brandOf } = brandBlocks(req.seed);
  const brands = Array.from({ length: brandOf(locationsFor(req.count) - 1) + 1 }, (_, b) => seedBrand(plan, b));
  for (let b = 0; b < brands.length; b += 1000) await seedBrands(db, owner, brands.slice(b, b + 1000), req.now);

  // Batches end on a location boundary (three MIDs a location) so each location is written once.
  let created = 0;
  let pending: Promise<number> | undefined;
  for (let from = 0; from < req.count; from += BATCH) {
    const batch = generateBatch(plan, brands, brandOf, from, Math.min(req.count, from + BATCH));
    // The next batch is generated while the database writes this one.
    if (pending) {
      created += await pending;
      req.onProgress?.(created);
    }
    pending = db.tx(async (tx) => {
      const added = await seedLocations(tx, req.programId, owner, batch.locations);
      await seedNetworks(tx, batch.locations.filter((l) => added.has(l.id)));
      return seedMids(tx, req.programId, owner, batch.mids);
    });
  }
  if (pending) {
    created += await pending;
    req.onProgress?.(created);
  }
  // Fresh statistics after a bulk load: PGlite has no autovacuum, and without them the planner walks
  // a program's whole index where the partial offboarding index holds a few rows.
  if (created > 0) await db.exec("analyze mids; analyze mid_insights; analyze mid_insight_counts");
  return created;
}
