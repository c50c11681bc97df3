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
import { programOwner, seedBrands, seedLocations, seedNetworks } from "../catalog/index.ts";

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
  // The program's account and environment, which every seeded row takes.
  const owner = await programOwner(db, req.programId);
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

const MID_COLUMNS = `mid_id uuid, insight_id uuid, location_id uuid, brand_id uuid, scheme mid_scheme, network_key text,
  status mid_insight_status, origin mid_origin, merchant_name text, se_number text, vmid text, vsid text,
  visa_acquiring_mid text, visa_bin text, mc_location_id text, mc_acquiring_mid text, mid_request_id uuid,
  sourced_at timestamptz, onboarded_at timestamptz, offboarded_at timestamptz, offboard_requested_at timestamptz,
  offboard_due timestamptz, last_seen_transaction_date timestamptz, last_seen_transaction_id uuid,
  first_transaction_auth_id uuid, first_transaction_clearing_id uuid, event_ts timestamptz, created timestamptz,
  updated timestamptz`;

/** Generated MID records with their insights (the MID-insights seed); returns the insights it added. */
async function seedMids(db: Db, programId: string, owner: { account_id: string; live: boolean }, mids: SeedMid[]): Promise<number> {
  const [row] = await db.query<{ n: number }>(
    `with rows as (select * from json_to_recordset($1::json) as m(${MID_COLUMNS})),
     added as (
       insert into mids (id, account_id, live, program_id, brand_id, location_id, scheme, network_key, created)
       select mid_id, $2, $3, $4, brand_id, location_id, scheme, network_key, created from rows
       on conflict do nothing returning id
     ),
     insights as (
       insert into mid_insights (id, account_id, live, program_id, mid_id, brand_id, location_id, scheme, status, origin,
         card_network_merchant_name, mc_acquiring_mid, mc_location_id, se_number, visa_acquiring_mid, visa_bin, vmid, vsid,
         mid_request_id, sourced_at, onboarded_at, offboarded_at, offboard_requested_at, offboard_due,
         last_seen_transaction_date, last_seen_transaction_id, first_transaction_auth_id, first_transaction_clearing_id,
         event_ts, created, updated)
       select insight_id, $2, $3, $4, mid_id, brand_id, location_id, scheme, status, origin, merchant_name,
         mc_acquiring_mid, mc_location_id, se_number, visa_acquiring_mid, visa_bin, vmid, vsid, mid_request_id,
         sourced_at, onboarded_at, offboarded_at, offboard_requested_at, offboard_due, last_seen_transaction_date,
         last_seen_transaction_id, first_transaction_auth_id, first_transaction_clearing_id, event_ts, created, updated
       from rows join added on added.id = rows.mid_id
       returning 1
     )
     select count(*)::int as n from insights`,
    [JSON.stringify(mids.map(toRecord)), owner.account_id, owner.live, programId],
  );
  return row?.n ?? 0;
}

const toRecord = (m: SeedMid) => ({
  mid_id: m.midId,
  insight_id: m.insightId,
  location_id: m.locationId,
  brand_id: m.brandId,
  scheme: m.scheme,
  network_key: m.networkKey,
  status: m.status,
  origin: m.origin,
  merchant_name: m.merchantName,
  se_number: m.seNumber,
  vmid: m.vmid,
  vsid: m.vsid,
  visa_acquiring_mid: m.visaAcquiringMid,
  visa_bin: m.visaBin,
  mc_location_id: m.mcLocationId,
  mc_acquiring_mid: m.mcAcquiringMid,
  mid_request_id: m.midRequestId,
  sourced_at: m.sourcedAt,
  onboarded_at: m.onboardedAt,
  offboarded_at: m.offboardedAt,
  offboard_requested_at: m.offboardRequestedAt,
  offboard_due: m.offboardDue,
  last_seen_transaction_date: m.lastSeenTransactionDate,
  last_seen_transaction_id: m.lastSeenTransactionId,
  first_transaction_auth_id: m.firstTransactionAuthId,
  first_transaction_clearing_id: m.firstTransactionClearingId,
  event_ts: m.eventTs,
  created: m.created,
  updated: m.updated,
});
