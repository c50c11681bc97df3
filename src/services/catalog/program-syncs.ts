// A program's location syncs as the API shows them: each sync's locations and its onboarding requests by
// answer so far. Reads only; location-sync.ts writes program_syncs.
import type { Db } from "../../platform/db.ts";

export interface ProgramSync {
  id: string;
  status: "running" | "completed";
  started: string;
  ended: string | null;
  /** Locations in the sync. */
  locations: number;
  /** Onboarding requests (one per location and scheme) by answer so far. */
  requests: { total: number; pending: number; active: number; notFound: number };
}

export interface SyncRow {
  id: string;
  program_id: string;
  status: "running" | "completed";
  started: Date;
  ended: Date | null;
  locations: number;
  total: number;
  pending: number;
  active: number;
  not_found: number;
}

export const toSync = (r: SyncRow): ProgramSync => ({
  id: r.id,
  status: r.status,
  started: r.started.toISOString(),
  ended: r.ended?.toISOString() ?? null,
  locations: r.locations,
  requests: { total: r.total, pending: r.pending, active: r.active, notFound: r.not_found },
});

export const SYNC_COLUMNS = `s.id, s.program_id, s.status, s.started, s.ended,
  (select count(distinct n.location_id)::int from location_networks n where n.sync_id = s.id) as locations,
  (select count(*)::int from location_networks n where n.sync_id = s.id) as total,
  (select count(*)::int from location_networks n where n.sync_id = s.id and n.status = 'Syncing') as pending,
  (select count(*)::int from location_networks n where n.sync_id = s.id and n.status = 'Active') as active,
  (select count(*)::int from location_networks n where n.sync_id = s.id and n.status = 'Not found') as not_found`;

/** The latest sync of each program (running or not), by program id. */
export async function latestSyncs(db: Db, programIds: string[]): Promise<Map<string, ProgramSync>> {
  if (programIds.length === 0) return new Map();
  const rows = await db.query<SyncRow>(
    `select distinct on (s.program_id) ${SYNC_COLUMNS} from program_syncs s
     where s.program_id = any($1::uuid[]) order by s.program_id, s.started desc, s.id desc`,
    [programIds],
  );
  return new Map(rows.map((r) => [r.program_id, toSync(r)]));
}
