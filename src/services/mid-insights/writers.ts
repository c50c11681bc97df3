// MID insights' writers, one per network or transaction event: a network's onboarding reply, a missing
// transaction look-up's MID, and the transactions a batch saw on MIDs.
import type { Db } from "../../platform/db.ts";
import { writeTogether, type WritePart } from "../../platform/write-together.ts";
import { newId } from "../../platform/ids.ts";
import { locationOwner, type LocationOwner } from "../catalog/index.ts";
import { identifierProblems, latestEvent, networkKey, transition, type MidIdentifiers, type MidInsightStatus, type Origin, type Scheme } from "../../domain/mid-insights.ts";
import { MidInsightEventError, toMidInsight, type MidInsight, type MidInsightRow } from "./mid-insights.ts";

/** The network's MID for a location, created on first sight; identifiers checked against the scheme's formats. */
async function upsertMid(
  db: Db,
  input: { locationId: string; scheme: Scheme; identifiers: MidIdentifiers },
  now: Date,
): Promise<{ location: LocationOwner; midId: string }> {
  const problems = identifierProblems(input.scheme, input.identifiers);
  if (problems.length) throw new MidInsightEventError(problems.join("; "));
  const location = await locationOwner(db, input.locationId);
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
