// MID insights: the record (the API's MidInsight and its row), the identifier columns, and finding MID
// records by their network key. Writers are writers.ts, offboarding offboarding.ts, the bulk seed seed.ts and
// the filtered, sorted, keyset-paged list list.ts.
import type { Db } from "../../platform/db.ts";
import { networkKey, type MidIdentifiers, type MidInsightStatus, type Origin, type Scheme } from "../../domain/mid-insights.ts";

export interface MidInsight {
  id: string;
  brandId: string;
  locationId: string;
  midId: string;
  programId: string;
  scheme: Scheme;
  status: MidInsightStatus;
  created: string;
  cardNetworkMerchantName: string | null;
  mcAcquiringMid: string | null;
  mcLocationId: string | null;
  seNumber: string | null;
  visaAcquiringMid: string | null;
  visaBin: string | null;
  vmid: string | null;
  vsid: string | null;
  midRequestId: string | null;
  origin: Origin;
  sourcedAt: string | null;
  onboardedAt: string | null;
  offboardedAt: string | null;
  lastSeenTransactionDate: string | null;
  lastSeenTransactionId: string | null;
  firstTransactionClearingId: string | null;
  firstTransactionAuthId: string | null;
  offboardRequestedAt: string | null;
  eventTs: string;
  updated: string;
}

export interface MidInsightRow {
  id: string;
  account_id: string;
  live: boolean;
  program_id: string;
  mid_id: string;
  brand_id: string;
  location_id: string;
  scheme: Scheme;
  status: MidInsightStatus;
  origin: Origin;
  card_network_merchant_name: string | null;
  mc_acquiring_mid: string | null;
  mc_location_id: string | null;
  se_number: string | null;
  visa_acquiring_mid: string | null;
  visa_bin: string | null;
  vmid: string | null;
  vsid: string | null;
  mid_request_id: string | null;
  sourced_at: Date | null;
  onboarded_at: Date | null;
  offboarded_at: Date | null;
  offboard_requested_at: Date | null;
  offboard_due: Date | null;
  last_seen_transaction_date: Date | null;
  last_seen_transaction_id: string | null;
  first_transaction_auth_id: string | null;
  first_transaction_clearing_id: string | null;
  event_ts: Date;
  created: Date;
  updated: Date;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export const toMidInsight = (r: MidInsightRow): MidInsight => ({
  id: r.id,
  brandId: r.brand_id,
  locationId: r.location_id,
  midId: r.mid_id,
  programId: r.program_id,
  scheme: r.scheme,
  status: r.status,
  created: r.created.toISOString(),
  cardNetworkMerchantName: r.card_network_merchant_name,
  mcAcquiringMid: r.mc_acquiring_mid,
  mcLocationId: r.mc_location_id,
  seNumber: r.se_number,
  visaAcquiringMid: r.visa_acquiring_mid,
  visaBin: r.visa_bin,
  vmid: r.vmid,
  vsid: r.vsid,
  midRequestId: r.mid_request_id,
  origin: r.origin,
  sourcedAt: iso(r.sourced_at),
  onboardedAt: iso(r.onboarded_at),
  offboardedAt: iso(r.offboarded_at),
  lastSeenTransactionDate: iso(r.last_seen_transaction_date),
  lastSeenTransactionId: r.last_seen_transaction_id,
  firstTransactionClearingId: r.first_transaction_clearing_id,
  firstTransactionAuthId: r.first_transaction_auth_id,
  offboardRequestedAt: iso(r.offboard_requested_at),
  eventTs: r.event_ts.toISOString(),
  updated: r.updated.toISOString(),
});

/** The column each identifier is stored in. */
export const IDENTIFIER_COLUMNS = {
  seNumber: "se_number",
  vmid: "vmid",
  vsid: "vsid",
  visaAcquiringMid: "visa_acquiring_mid",
  visaBin: "visa_bin",
  mcLocationId: "mc_location_id",
  mcAcquiringMid: "mc_acquiring_mid",
} as const satisfies Record<keyof MidIdentifiers, string>;

/** A writer was given an event the data cannot take (unknown location, malformed identifiers, wrong state). */
export class MidInsightEventError extends Error {
  override name = "MidInsightEventError";
}

export interface MidKey {
  programId: string;
  scheme: string;
  networkKey: string;
}

export const midKeyOf = (k: MidKey) => `${k.programId}|${k.scheme}|${k.networkKey}`;

/** The MID records of `keys` that exist: their ids by `midKeyOf`. */
export async function midIds(db: Db, keys: MidKey[]): Promise<Map<string, string>> {
  if (keys.length === 0) return new Map();
  const rows = await db.query<{ id: string; program_id: string; scheme: string; network_key: string }>(
    `select m.id, m.program_id, m.scheme::text as scheme, m.network_key from mids m
     join unnest($1::uuid[], $2::text[], $3::text[]) as k(program_id, scheme, network_key)
       on m.program_id = k.program_id and m.scheme::text = k.scheme and m.network_key = k.network_key`,
    [keys.map((k) => k.programId), keys.map((k) => k.scheme), keys.map((k) => k.networkKey)],
  );
  return new Map(rows.map((r) => [midKeyOf({ programId: r.program_id, scheme: r.scheme, networkKey: r.network_key }), r.id]));
}

/** The MID a network's identifiers name in a program, for writers that start from a transaction's identifiers. */
export async function findMid(
  db: Db,
  key: { programId: string; scheme: Scheme; identifiers: MidIdentifiers },
): Promise<string | undefined> {
  const [row] = await db.query<{ id: string }>(
    "select id from mids where program_id = $1 and scheme = $2 and network_key = $3",
    [key.programId, key.scheme, networkKey(key.scheme, key.identifiers)],
  );
  return row?.id;
}
