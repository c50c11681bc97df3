// A location's state at each network (location_networks: this module is its one writer) and the live
// location sync: a program's sync (one running at a time), the onboarding request of each location and
// scheme on the bus, and the networks' answers — Active with the scheme's MIDs (MID records and insights, mid-insights/onboarding.ts,
// follow) or Not found with a case — each reported as a location.status event.
import { DomainError } from "../../domain/errors.ts";
import type { Bus } from "../../platform/bus/bus.ts";
import type { MerchantIds, OnboardingReply, OnboardingRequest } from "../../platform/bus/messages.ts";
import { TOPICS } from "../../platform/bus/topics.ts";
import type { Scheme } from "../../domain/card-number.ts";
import { answerKind, networkTransition, type NetworkStatus } from "../../domain/location-status.ts";
import { fillsIn, sameMid, schemeIdentifiers, type MidIdentifiers } from "../../domain/mid-insights.ts";
import type { Db } from "../../platform/db.ts";
import { newId } from "../../platform/ids.ts";
import { locationRecord } from "./location-records.ts";
import { latestSyncs, SYNC_COLUMNS, toSync, type ProgramSync, type SyncRow } from "./program-syncs.ts";
import { setProgramStatus } from "./programs.ts";
import { lockProgram } from "./rows.ts";
import { enqueueEvent } from "../../platform/outbox.ts";

function conflict(sync: ProgramSync): DomainError {
  return new DomainError(
    "conflict",
    `status: sync ${sync.id} of this program is running since ${sync.started} ` +
      `(${sync.requests.pending} of ${sync.requests.total} onboarding requests still wait for the networks); ` +
      "one sync per program at a time: start the next one when it has ended (GET the program, or wait for its location.status events).",
  );
}

/**
 * Starts a sync, inside the caller's transaction, of the program's Idle locations — all of them, or
 * only `locationIds` — and gives each location and scheme an onboarding request to send. 409 naming
 * the running sync if there is one. A sync with no Idle location to take ends at once. In test, where
 * every location was onboarded at its creation, the test networks answer a sync at once: it takes the
 * program's locations as they stand and ends in the same transaction. Each move of the program's status
 * is a `program.status` event (setProgramStatus).
 */
export async function beginSync(
  db: Db,
  owner: { accountId: string; live: boolean; programId: string },
  now: Date,
  locationIds: string[] | null,
): Promise<ProgramSync> {
  // The program row is the lock that keeps two syncs of one program from starting together.
  await lockProgram(db, owner.programId);
  const [running] = await db.query<SyncRow>(`select ${SYNC_COLUMNS} from program_syncs s where s.program_id = $1 and s.status = 'running'`, [
    owner.programId,
  ]);
  if (running) throw conflict(toSync(running));
  const id = newId();
  await db.query(
    `insert into program_syncs (id, account_id, live, program_id, status, started) values ($1, $2, $3, $4, 'running', $5)`,
    [id, owner.accountId, owner.live, owner.programId, now],
  );
  const taken = await db.query<{ location_id: string }>(
    owner.live
      ? `update location_networks n set status = 'Syncing', sync_id = $2, request_id = gen_random_uuid(), request_sent = null,
           sync_started = $4, updated = $4
         from locations l
         where l.id = n.location_id and l.program_id = $1 and n.status = 'Idle' and ($3::uuid[] is null or l.id = any($3::uuid[]))
         returning n.location_id`
      : `update location_networks n set sync_id = $2 from locations l
         where l.id = n.location_id and l.program_id = $1 and ($3::uuid[] is null or l.id = any($3::uuid[]))
         returning n.location_id`,
    [owner.programId, id, locationIds, ...(owner.live ? [now] : [])],
  );
  if (taken.length > 0 || !owner.live) await setProgramStatus(db, owner.programId, "syncing", now);
  if (taken.length === 0 || !owner.live) {
    await db.query("update program_syncs set status = 'completed', ended = $2 where id = $1", [id, now]);
    await setProgramStatus(db, owner.programId, "idle", now);
  }
  return (await latestSyncs(db, [owner.programId])).get(owner.programId)!;
}

/** Ends the program's running sync once no location in it waits for an answer (also after a deletion). */
export async function closeFinishedSync(db: Db, programId: string, now: Date): Promise<void> {
  const ended = await db.query<{ id: string }>(
    `update program_syncs s set status = 'completed', ended = $2
     where s.program_id = $1 and s.status = 'running'
       and not exists (select 1 from location_networks n where n.sync_id = s.id and n.status = 'Syncing')
     returning s.id`,
    [programId, now],
  );
  if (ended.length > 0) await setProgramStatus(db, programId, "idle", now);
}

/** A MID as the bus carries it: every identifier field, null where the scheme has none. */
export const fullIds = (ids: MidIdentifiers, merchantName: string | null = null): MerchantIds => ({
  vmid: ids.vmid ?? null,
  vsid: ids.vsid ?? null,
  visaAcquiringMid: ids.visaAcquiringMid ?? null,
  visaBin: ids.visaBin ?? null,
  mcLocationId: ids.mcLocationId ?? null,
  mcAcquiringMid: ids.mcAcquiringMid ?? null,
  seNumber: ids.seNumber ?? null,
  merchantName,
});

interface UnsentRow {
  request_id: string;
  scheme: Scheme;
  location_id: string;
  program_id: string;
  live: boolean;
  brand_name: string;
  address: string;
  city: string;
  postcode: string;
  country_code: string;
  client_mids: MidIdentifiers[];
  environment: string | null;
  requested_at: Date;
}

/**
 * Publishes the onboarding requests not sent yet (all, or those of one location), then marks them sent.
 * Called after the transaction that made them, and by the workers for what a failed publish left.
 */
export async function sendOnboardingRequests(db: Db, bus: Bus, now: Date, scope: { locationIds?: string[]; syncId?: string } = {}): Promise<number> {
  const rows = await db.query<UnsentRow>(
    `select n.request_id, n.scheme, n.location_id, l.program_id, l.live, b.name as brand_name, l.address, l.city, l.postcode,
       l.country_code, n.client_mids, sandbox_of(l.account_id) as environment, n.updated as requested_at
     from location_networks n join locations l on l.id = n.location_id join brands b on b.id = l.brand_id
     where n.request_id is not null and n.request_sent is null
       and ($1::uuid[] is null or n.location_id = any($1::uuid[])) and ($2::uuid is null or n.sync_id = $2)
     order by n.updated limit 500`,
    [scope.locationIds ?? null, scope.syncId ?? null],
  );
  for (const r of rows) {
    const request: OnboardingRequest = {
      requestId: r.request_id,
      scheme: r.scheme,
      locationId: r.location_id,
      programId: r.program_id,
      brandName: r.brand_name,
      address: r.address,
      city: r.city,
      postcode: r.postcode,
      countryCode: r.country_code,
      mids: r.client_mids.map((m) => fullIds(m)),
      // When the request was made, in its environment's time: a network answers 1 to 2 weeks of that time later.
      requestedAt: r.requested_at.toISOString(),
      live: r.live,
      environment: r.environment,
    };
    await bus.publish(TOPICS.onboardingRequests.name, r.location_id, request);
  }
  if (rows.length > 0) {
    await db.query("update location_networks set request_sent = $2 where request_id = any($1::uuid[])", [rows.map((r) => r.request_id), now]);
  }
  return rows.length;
}

/** Publishes what `sendOnboardingRequests` would, leaving a failure to the workers' next pass. */
export async function trySendOnboardingRequests(db: Db, bus: Bus | undefined, now: Date, scope: Parameters<typeof sendOnboardingRequests>[3]): Promise<void> {
  if (!bus) return;
  try {
    await sendOnboardingRequests(db, bus, now, scope);
  } catch {
    // The requests stay unsent; the workers send them on their next pass.
  }
}

interface AnsweredRow {
  location_id: string;
  scheme: Scheme;
  status: NetworkStatus;
  live: boolean;
  account_id: string;
  program_id: string;
  client_mids: MidIdentifiers[];
  answered: Date | null;
}

export type ReplyOutcome = "applied" | "stale" | "unknown";

/** A MID a live network onboarded: the MID records and insights record it (mid-insights/onboarding.ts). */
export interface OnboardedMid {
  locationId: string;
  scheme: Scheme;
  identifiers: MidIdentifiers;
  merchantName: string | null;
  origin: "customer-provided-mid" | "address-match";
  at: Date;
}

/**
 * A network's answer to an onboarding request, inside the caller's transaction. Live: Syncing -> Active
 * (the scheme's MIDs on the location, returned as `onboarded`) or Not found (a case opened), a
 * location.status event, and the sync ends when it was the last answer. Test: the MIDs the network
 * assigned, where the location has none (its status and events came at creation). A redelivered or
 * late answer changes nothing.
 */
export async function applyOnboardingReply(tx: Db, reply: OnboardingReply, now: Date): Promise<{ outcome: ReplyOutcome; onboarded: OnboardedMid[] }> {
  const [row] = await tx.query<AnsweredRow>(
    `select n.location_id, n.scheme, n.status, l.live, l.account_id, l.program_id, n.client_mids, n.answered
     from location_networks n join locations l on l.id = n.location_id
     where n.request_id = $1 and n.scheme = $2 for update of n`,
    [reply.requestId, reply.scheme],
  );
  if (!row) return { outcome: "unknown", onboarded: [] };
  const mids = reply.mids.map((m) => schemeIdentifiers(row.scheme, m as unknown as Record<string, unknown>)).filter((m) => Object.keys(m).length > 0);
  if (!row.live) {
    if (row.answered) return { outcome: "stale", onboarded: [] };
    // The client's MIDs stay, each as the network completed it (a Visa BIN alone gains the network's vmid
    // and vsid, which its messages carry): the ids the service matches are the ids the messages carry.
    const completed = row.client_mids.length === 0 ? mids : row.client_mids.map((given) => mids.find((full) => fillsIn(full, given)) ?? given);
    await tx.query("update location_networks set mids = $3::jsonb, answered = $4 where location_id = $1 and scheme = $2", [
      row.location_id,
      row.scheme,
      JSON.stringify(completed),
      now,
    ]);
    return { outcome: "applied", onboarded: [] };
  }
  const next = networkTransition(row.status, reply.status === "ACTIVE" ? "network-confirmed" : "network-issue");
  if (!next.ok) return { outcome: "stale", onboarded: [] };
  // Answers of one sync apply one at a time: the last of two concurrent answers must see the other's,
  // or neither would end the sync.
  await tx.query("select id from program_syncs where id = (select sync_id from location_networks where location_id = $1 and scheme = $2) for update", [
    row.location_id,
    row.scheme,
  ]);
  const at = new Date(reply.respondedAt);
  const onboarded: OnboardedMid[] = [];
  if (next.status === "Active") {
    await tx.query("update location_networks set status = 'Active', mids = $3::jsonb, answered = $4, updated = $4 where location_id = $1 and scheme = $2", [
      row.location_id,
      row.scheme,
      JSON.stringify(mids),
      now,
    ]);
    onboarded.push(
      ...mids.map((identifiers, i): OnboardedMid => ({
        locationId: row.location_id,
        scheme: row.scheme,
        identifiers,
        merchantName: reply.mids[i]?.merchantName ?? null,
        origin: row.client_mids.some((m) => sameMid(m, identifiers)) ? "customer-provided-mid" : "address-match",
        at,
      })),
    );
  } else {
    await tx.query(
      `update location_networks set status = 'Not found', case_id = $3, case_reason = $4, case_opened = $5, updated = $5
       where location_id = $1 and scheme = $2`,
      [row.location_id, row.scheme, newId(), reply.reason ?? "The network could not onboard the location.", now],
    );
  }
  const location = await locationRecord(tx, row.location_id);
  await enqueueEvent(
    tx,
    {
      accountId: row.account_id,
      live: true,
      programId: row.program_id,
      event: "location.status",
      data: { location, scheme: row.scheme, status: answerKind(next.status) },
    },
    now,
  );
  await closeFinishedSync(tx, row.program_id, now);
  return { outcome: "applied", onboarded };
}

// ------------------------------------------------------------------ a location's networks

export interface NewNetwork {
  locationId: string;
  scheme: Scheme;
  status: NetworkStatus;
  mids: unknown[];
  clientMids: unknown[];
  /** The onboarding request to send now (a test location's), or null. */
  requestId: string | null;
}

/** A new location's row at each network. */
export async function addNetworks(db: Db, networks: NewNetwork[], now: Date): Promise<void> {
  await db.query(
    `insert into location_networks (location_id, scheme, status, mids, client_mids, request_id, updated)
     select location_id, scheme, status, mids, client_mids, request_id, $2
     from jsonb_to_recordset($1::jsonb) as n(location_id uuid, scheme text, status text, mids jsonb, client_mids jsonb, request_id uuid)`,
    [JSON.stringify(networks.map((n) => ({ location_id: n.locationId, scheme: n.scheme, status: n.status, mids: n.mids, client_mids: n.clientMids, request_id: n.requestId }))), now],
  );
}

/** A location's MIDs at one network (the publisher's own, or one a missing-transaction look-up found). */
/** MIDs a network showed the location has (a missing-transaction look-up's). */
export async function setNetworkMids(db: Db, locationId: string, scheme: Scheme, mids: unknown[], now: Date): Promise<void> {
  await db.query("update location_networks set mids = $3::jsonb, updated = $4 where location_id = $1 and scheme = $2", [
    locationId,
    scheme,
    JSON.stringify(mids),
    now,
  ]);
}

/**
 * The client's MIDs for one scheme of a location. A test network is told them, as at creation: a new
 * onboarding request carries them (sent after the transaction), and until it answers the location's
 * purchases on the scheme wait, so none goes out under MIDs the network does not hold. No MIDs means
 * none to tell: the location then has none on the scheme, and a purchase there is refused.
 */
export async function setClientMids(db: Db, locationId: string, scheme: Scheme, mids: unknown[], { now, tellTestNetwork }: { now: Date; tellTestNetwork: boolean }): Promise<void> {
  await db.query(
    `update location_networks set mids = $3::jsonb, client_mids = $3::jsonb, updated = $4,
       request_id = case when $5 then gen_random_uuid() else request_id end,
       request_sent = case when $5 then null else request_sent end,
       answered = case when $5 then null else answered end
     where location_id = $1 and scheme = $2`,
    [locationId, scheme, JSON.stringify(mids), now, tellTestNetwork && mids.length > 0],
  );
}

/** Generated locations' networks (the MID-insights seed): Active with their MIDs, or Idle. */
export async function seedNetworks(
  db: Db,
  locations: { id: string; created: Date; networks: Record<Scheme, { status: "Active" | "Idle"; mids: Record<string, string>[] }> }[],
): Promise<void> {
  if (locations.length === 0) return;
  await db.query(
    `insert into location_networks (location_id, scheme, status, mids, updated)
     select l.id, n.key, n.value->>'status', n.value->'mids', l.created
     from json_to_recordset($1::json) as l(id uuid, created timestamptz, networks jsonb) cross join lateral jsonb_each(l.networks) n`,
    [JSON.stringify(locations.map((l) => ({ id: l.id, created: l.created, networks: l.networks })))],
  );
}

/** Whether any of these onboarding requests still waits for its network's answer. */
export async function anyOnboardingUnanswered(db: Db, requestIds: string[]): Promise<boolean> {
  if (requestIds.length === 0) return false;
  const [row] = await db.query<{ waiting: boolean }>(
    "select exists (select 1 from location_networks where request_id = any($1::uuid[]) and answered is null) as waiting",
    [requestIds],
  );
  return row!.waiting;
}
