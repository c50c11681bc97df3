// MID insights: the record, the writers (one per network or transaction event), the offboard request and
// the simulated network's offboarding. The filtered, sorted, keyset-paged list is mid-insights-list.ts.
import { dueIn, dueParams, envNowSql, type DueTime } from "../../platform/clock/environment.ts";
import type { Ctx } from "../../platform/context.ts";
import { DomainError, notFound } from "../../domain/errors.ts";
import type { Db } from "../../platform/db.ts";
import { writeTogether, type WritePart } from "../../platform/write-together.ts";
import type { SeedMid } from "./generator.ts";
import { newId } from "../../platform/ids.ts";
import { getProgram } from "../catalog/index.ts";
import {
  OFFBOARD_DELAY_MS,
  identifierProblems,
  latestEvent,
  networkKey,
  transition,
  type MidIdentifiers,
  type MidInsightStatus,
  type Origin,
  type Scheme,
} from "../../domain/mid-insights.ts";

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

// ---------------------------------------------------------------- writers (one per event)

interface LocationOwner {
  id: string;
  program_id: string;
  brand_id: string;
  account_id: string;
  live: boolean;
}

/** The network's MID for a location, created on first sight; identifiers checked against the scheme's formats. */
async function upsertMid(
  db: Db,
  input: { locationId: string; scheme: Scheme; identifiers: MidIdentifiers },
  now: Date,
): Promise<{ location: LocationOwner; midId: string }> {
  const problems = identifierProblems(input.scheme, input.identifiers);
  if (problems.length) throw new MidInsightEventError(problems.join("; "));
  const [location] = await db.query<LocationOwner>(
    "select id, program_id, brand_id, account_id, live from locations where id = $1",
    [input.locationId],
  );
  if (!location) throw new MidInsightEventError(`No location with id ${input.locationId}.`);
  // The no-op update makes the conflicting row come back, so the MID is found and created in one step.
  const [mid] = await db.query<{ id: string }>(
    `insert into mids (id, account_id, live, program_id, brand_id, location_id, scheme, network_key, created)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9)
     on conflict (program_id, scheme, network_key) do update set network_key = excluded.network_key
     returning id`,
    [
      newId(),
      location.account_id,
      location.live,
      location.program_id,
      location.brand_id,
      location.id,
      input.scheme,
      networkKey(input.scheme, input.identifiers),
      now,
    ],
  );
  return { location, midId: mid!.id };
}

async function insertInsight(
  db: Db,
  init: {
    location: LocationOwner;
    midId: string;
    scheme: Scheme;
    identifiers: MidIdentifiers;
    status: MidInsightStatus;
    origin: Origin;
    merchantName: string | null;
    midRequestId: string | null;
    sourcedAt: Date;
    onboardedAt: Date | null;
  },
  now: Date,
): Promise<MidInsightRow> {
  const ids = init.identifiers;
  const [row] = await db.query<MidInsightRow>(
    `insert into mid_insights (id, account_id, live, program_id, mid_id, brand_id, location_id, scheme, status, origin,
       card_network_merchant_name, mc_acquiring_mid, mc_location_id, se_number, visa_acquiring_mid, visa_bin, vmid, vsid,
       mid_request_id, sourced_at, onboarded_at, event_ts, created, updated)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $23)
     returning *`,
    [
      newId(),
      init.location.account_id,
      init.location.live,
      init.location.program_id,
      init.midId,
      init.location.brand_id,
      init.location.id,
      init.scheme,
      init.status,
      init.origin,
      init.merchantName,
      ids.mcAcquiringMid ?? null,
      ids.mcLocationId ?? null,
      ids.seNumber ?? null,
      ids.visaAcquiringMid ?? null,
      ids.visaBin ?? null,
      ids.vmid ?? null,
      ids.vsid ?? null,
      init.midRequestId,
      init.sourcedAt,
      init.onboardedAt,
      latestEvent(init.sourcedAt, init.onboardedAt),
      now,
    ],
  );
  return row!;
}

export interface NetworkMid {
  locationId: string;
  scheme: Scheme;
  identifiers: MidIdentifiers;
  /** The merchant name the network has on record. */
  merchantName?: string | null;
}

/**
 * The MID a network event names (recorded if new) and its insight, locked, with the insight's status after
 * `kind` (a refused transition throws), and how to insert the insight when there is none yet.
 */
async function lockInsight(tx: Db, event: NetworkMid & { at: Date }, kind: "onboarded" | "sourced", now: Date) {
  const { location, midId } = await upsertMid(tx, event, now);
  const [current] = await tx.query<MidInsightRow>("select * from mid_insights where mid_id = $1 for update", [midId]);
  const next = transition(current?.status, kind);
  if (!next.ok) throw new MidInsightEventError(next.reason);
  const insert = (fields: { origin: Origin; midRequestId: string | null; onboardedAt: Date | null }) =>
    insertInsight(
      tx,
      { location, midId, scheme: event.scheme, identifiers: event.identifiers, status: next.status, merchantName: event.merchantName ?? null, sourcedAt: event.at, ...fields },
      now,
    );
  return { current, next, insert };
}

/**
 * A network's onboarding reply for a location: the MID is onboarded (created, or moved from sourced or
 * offboarded). `origin` says how the MID was found; it is kept from the first time the MID was sourced.
 */
export async function recordOnboardingReply(
  db: Db,
  event: NetworkMid & { origin: Origin; midRequestId?: string | null; at: Date },
  now: Date,
): Promise<MidInsight> {
  return db.tx(async (tx) => {
    const { current, next, insert } = await lockInsight(tx, event, "onboarded", now);
    if (!current) {
      return toMidInsight(await insert({ origin: event.origin, midRequestId: event.midRequestId ?? null, onboardedAt: event.at }));
    }
    const [row] = await tx.query<MidInsightRow>(
      `update mid_insights set status = $2, onboarded_at = $3, offboarded_at = null, offboard_requested_at = null,
         offboard_due = null, card_network_merchant_name = coalesce($4, card_network_merchant_name),
         mid_request_id = coalesce(mid_request_id, $5), event_ts = greatest(event_ts, $3), updated = $6
       where id = $1 returning *`,
      [current.id, next.status, event.at, event.merchantName ?? null, event.midRequestId ?? null, now],
    );
    return toMidInsight(row!);
  });
}

/**
 * A missing-transaction look-up identified a MID at a location: a MID the program did not have is
 * sourced (origin missing-transaction-lookup); one it has is left as it is.
 */
export async function recordMissingTransactionLookup(
  db: Db,
  event: NetworkMid & { at: Date },
  now: Date,
): Promise<MidInsight> {
  return db.tx(async (tx) => {
    const { current, insert } = await lockInsight(tx, event, "sourced", now);
    if (current) return toMidInsight(current);
    return toMidInsight(await insert({ origin: "missing-transaction-lookup", midRequestId: null, onboardedAt: null }));
  });
}

/** The transactions a batch saw on one MID: the latest by transaction time, and the first auth and clearing. */
export interface MidTouch {
  midId: string;
  programId: string;
  /** The latest transaction's time (its local time read in the location's time zone). */
  at: Date;
  lastId: string;
  firstAuth: string | null;
  firstClearing: string | null;
}

/**
 * Transactions seen on MIDs, as a part of a batch's statement (write-together.ts): the latest one (by
 * transaction time) becomes lastSeenTransactionDate/Id; the first authorisation and the first clearing
 * recorded are kept.
 */
export function transactionsSeenPart(touches: MidTouch[], now: Date): WritePart | undefined {
  if (touches.length === 0) return undefined;
  return {
    ctes: [
      `mid_insights_seen as (
         update mid_insights m set
           last_seen_transaction_id = case when m.last_seen_transaction_date is null or u.at >= m.last_seen_transaction_date
             then u.last_id else m.last_seen_transaction_id end,
           last_seen_transaction_date = greatest(m.last_seen_transaction_date, u.at),
           first_transaction_auth_id = coalesce(m.first_transaction_auth_id, u.first_auth),
           first_transaction_clearing_id = coalesce(m.first_transaction_clearing_id, u.first_clearing),
           event_ts = greatest(m.event_ts, u.at), updated = $2
         from jsonb_to_recordset($1::jsonb) as u(mid_id uuid, program_id uuid, at timestamptz, last_id uuid, first_auth uuid, first_clearing uuid)
         where m.mid_id = u.mid_id and m.program_id = u.program_id
       )`,
    ],
    params: [
      JSON.stringify(touches.map((t) => ({ mid_id: t.midId, program_id: t.programId, at: t.at, last_id: t.lastId, first_auth: t.firstAuth, first_clearing: t.firstClearing }))),
      now,
    ],
  };
}

/** Transactions seen on MIDs, in a statement of their own. */
export async function recordTransactionsSeen(db: Db, touches: MidTouch[], now: Date): Promise<void> {
  await writeTogether(db, [transactionsSeenPart(touches, now)]);
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

/** The network reports a MID offboarded (on request or on its own): status offboarded at `at`. */
export async function recordOffboarded(
  db: Db,
  event: { programId: string; midId: string; at: Date },
  now: Date,
): Promise<MidInsight> {
  return db.tx(async (tx) => {
    const [current] = await tx.query<MidInsightRow>(
      "select * from mid_insights where mid_id = $1 and program_id = $2 for update",
      [event.midId, event.programId],
    );
    if (!current) throw new MidInsightEventError(`No MID ${event.midId} in program ${event.programId}.`);
    const next = transition(current.status, "offboarded");
    if (!next.ok) throw new MidInsightEventError(next.reason);
    const [row] = await tx.query<MidInsightRow>(
      `update mid_insights set status = $2, offboarded_at = $3, offboard_due = null,
         event_ts = greatest(event_ts, $3), updated = $4
       where id = $1 returning *`,
      [current.id, next.status, event.at, now],
    );
    return toMidInsight(row!);
  });
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

// ---------------------------------------------------------------- offboarding

/**
 * The offboard request: the MID stays onboarded until the simulated network acts on it,
 * OFFBOARD_DELAY_MS of service time later (runOffboardingDue). Asking again while it is pending changes nothing.
 */
export async function requestOffboarding(ctx: Ctx, programId: string, midInsightId: string): Promise<MidInsight> {
  await getProgram(ctx, programId);
  return ctx.db.tx(async (db) => {
    const [current] = await db.query<MidInsightRow>(
      "select * from mid_insights where id = $1 and program_id = $2 and account_id = $3 and live = $4 for update",
      [midInsightId, programId, ctx.accountId, ctx.live],
    );
    if (!current) throw notFound("MID insight", midInsightId);
    const next = transition(current.status, "offboard-requested");
    if (!next.ok) throw new DomainError("conflict", `midInsightId: ${next.reason}.`);
    if (current.offboard_requested_at) return toMidInsight(current);
    const now = ctx.clock.now();
    const [row] = await db.query<MidInsightRow>(
      `update mid_insights set offboard_requested_at = $2, offboard_due = $3, event_ts = greatest(event_ts, $2),
         updated = $2
       where id = $1 returning *`,
      [current.id, now, new Date(now.getTime() + OFFBOARD_DELAY_MS)],
    );
    return toMidInsight(row!);
  });
}

/** What the simulated network does to an insight whose offboard request fell due. */
const OFFBOARD_DUE_SET = `status = 'offboarded', offboarded_at = offboard_due, offboard_due = null,
  event_ts = greatest(event_ts, offboard_due)`;

/**
 * The simulated networks act on every offboard request due in its environment by `at`: status offboarded, offboardedAt the
 * moment it fell due. Runs when the service clock advances, and for a program before its insights are read.
 */
export async function runOffboardingDue(db: Db, at: DueTime): Promise<number> {
  const [row] = await db.query<{ n: number }>(
    `with done as (
       update mid_insights set ${OFFBOARD_DUE_SET}, updated = ${envNowSql("account_id", 1)}
       where ${dueIn("offboard_due", "account_id", 1)} and status = 'onboarded'
       returning 1
     ) select count(*)::int as n from done`,
    dueParams(at),
  );
  return row?.n ?? 0;
}

/**
 * The caller's program (404 otherwise), with the offboardings that fell due in it applied first, in one
 * round trip: reads come before anything else a list request does.
 */
export async function readable(ctx: Ctx, programId: string): Promise<void> {
  const [row] = await ctx.db.query<{ found: boolean }>(
    `with program as (select id from programs where id = $1 and account_id = $2 and live = $3),
     done as (
       update mid_insights set ${OFFBOARD_DUE_SET}, updated = $4
       where program_id = (select id from program) and offboard_due <= $4 and status = 'onboarded'
       returning 1
     )
     select exists (select 1 from program) as found, (select count(*) from done) as offboarded`,
    [programId, ctx.accountId, ctx.live, ctx.clock.now()],
  );
  if (!row?.found) throw notFound("program", programId);
}

// ---------------------------------------------------------------- the seed

const MID_COLUMNS = `mid_id uuid, insight_id uuid, location_id uuid, brand_id uuid, scheme mid_scheme, network_key text,
  status mid_insight_status, origin mid_origin, merchant_name text, se_number text, vmid text, vsid text,
  visa_acquiring_mid text, visa_bin text, mc_location_id text, mc_acquiring_mid text, mid_request_id uuid,
  sourced_at timestamptz, onboarded_at timestamptz, offboarded_at timestamptz, offboard_requested_at timestamptz,
  offboard_due timestamptz, last_seen_transaction_date timestamptz, last_seen_transaction_id uuid,
  first_transaction_auth_id uuid, first_transaction_clearing_id uuid, event_ts timestamptz, created timestamptz,
  updated timestamptz`;

/** Generated MID records with their insights (the MID-insights seed); returns the insights it added. */
export async function seedMids(db: Db, programId: string, owner: { account_id: string; live: boolean }, mids: SeedMid[]): Promise<number> {
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
