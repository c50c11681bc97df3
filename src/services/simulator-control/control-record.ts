// The service's record of the simulator controls, in the service's database: the faults and traffic
// runs the operator asked for (what /admin answers and what the simulator.settings messages carry),
// and what the networks reported back on simulator.traffic.progress. The simulators never read it.
import type { TrafficProgress } from "../../platform/bus/messages.ts";
import type { Db } from "../../platform/db.ts";
import { NO_FAULTS, faultsSchema, type Faults } from "../../../simulators/engine/faults.ts";
import { plannedPurchases, toRun, type RunRow, type SchemeCounts, type TrafficOptions, type TrafficRun } from "../../../simulators/engine/settings.ts";
import type { Scheme } from "../../../simulators/engine/types.ts";

export async function requestedFaults(db: Db, scheme: Scheme): Promise<Faults> {
  const [row] = await db.query<{ faults: unknown }>("select faults from network_faults where scheme = $1", [scheme]);
  // Settings written by an older version may lack newer fields: those take their defaults.
  return row ? faultsSchema.parse({ ...NO_FAULTS, ...(row.faults as object) }) : { ...NO_FAULTS };
}

/** Records the scheme's faults under a new version, which the setting message carries. */
export async function recordFaults(db: Db, scheme: Scheme, faults: Faults, now: Date): Promise<number> {
  const [row] = await db.query<{ version: number }>(
    `insert into network_faults (scheme, faults, version, updated) values ($1, $2::jsonb, nextval('simulator_setting_versions'), $3)
     on conflict (scheme) do update set faults = excluded.faults, version = excluded.version, updated = excluded.updated
     returning version`,
    [scheme, JSON.stringify(faults), now.toISOString()],
  );
  return row!.version;
}

export async function latestRequestedRun(db: Db): Promise<TrafficRun | undefined> {
  const [row] = await db.query<RunRow>("select id, options, state, started, stopped from traffic_runs order by seq desc limit 1");
  return row && toRun(row);
}

/** Starts a run, stopping one still going first (one run at a time). */
export async function recordRun(db: Db, id: string, options: TrafficOptions, now: Date): Promise<TrafficRun> {
  return db.tx(async (tx) => {
    await tx.query("update traffic_runs set state = 'stopped', stopped = $1 where state = 'running'", [now.toISOString()]);
    const [row] = await tx.query<RunRow>(
      "insert into traffic_runs (id, options, state, started) values ($1, $2::jsonb, 'running', $3) returning id, options, state, started, stopped",
      [id, JSON.stringify(options), now.toISOString()],
    );
    return toRun(row!);
  });
}

/** Stops the runs still going; answers them, stopped. */
export async function recordRunsStopped(db: Db, now: Date): Promise<TrafficRun[]> {
  const rows = await db.query<RunRow>(
    "update traffic_runs set state = 'stopped', stopped = $1 where state = 'running' returning id, options, state, started, stopped",
    [now.toISOString()],
  );
  return rows.map(toRun);
}

/**
 * A network's report on a run: totals, so a report never lowers what an earlier (redelivered later) one
 * said. A run with a duration is completed (at the report's time) once every network of the run has
 * reported its planned purchases.
 */
export async function recordProgress(db: Db, p: TrafficProgress): Promise<void> {
  const messages = Object.values(p.sent).reduce((a, b) => a + b, 0) + p.dropped;
  await db.query(
    `insert into traffic_run_counts (run_id, scheme, purchases, sent, dropped, duplicated, messages, reported)
     values ($1, $2, $3, $4::jsonb, $5, $6, $7, clock_timestamp())
     on conflict (run_id, scheme) do update set purchases = excluded.purchases, sent = excluded.sent,
       dropped = excluded.dropped, duplicated = excluded.duplicated, messages = excluded.messages,
       reported = case when excluded.purchases > traffic_run_counts.purchases then excluded.reported else traffic_run_counts.reported end
     where (traffic_run_counts.purchases, traffic_run_counts.messages) <= (excluded.purchases, excluded.messages)`,
    [p.runId, p.scheme, p.purchases, JSON.stringify(p.sent), p.dropped, p.duplicated, messages],
  );
  const [run] = await db.query<{ options: TrafficOptions }>("select options from traffic_runs where id = $1 and state = 'running'", [p.runId]);
  const planned = run && plannedPurchases(run.options);
  if (planned === undefined || planned === null) return;
  await db.query(
    `update traffic_runs set state = 'completed', stopped = $2
     where id = $1 and state = 'running'
       and (select count(*) from traffic_run_counts where run_id = $1 and purchases >= $3) >= $4`,
    [p.runId, p.reportedAt, planned, run!.options.schemes.length],
  );
}

/** Per scheme of the run: what its network has reported so far (nothing yet: zeros). */
export async function reportedCounts(db: Db, run: TrafficRun): Promise<Partial<Record<Scheme, SchemeCounts>>> {
  const rows = await db.query<{ scheme: Scheme; purchases: number; sent: SchemeCounts["sent"]; dropped: number; duplicated: number }>(
    "select scheme, purchases, sent, dropped, duplicated from traffic_run_counts where run_id = $1",
    [run.id],
  );
  const planned = plannedPurchases(run.options);
  const out: Partial<Record<Scheme, SchemeCounts>> = {};
  for (const scheme of run.options.schemes) {
    const row = rows.find((r) => r.scheme === scheme);
    out[scheme] = row
      ? { purchases: row.purchases, planned, sent: row.sent, dropped: row.dropped, duplicated: row.duplicated }
      : { purchases: 0, planned, sent: { auth: 0, clearing: 0, refund: 0, void: 0 }, dropped: 0, duplicated: 0 };
  }
  return out;
}

/**
 * Purchases per second the run achieved, all its networks together: their reported purchases over the real
 * time from the run's request to the latest report that counted more (reports come about once a second,
 * and at the run's end). Null before the first report.
 */
export async function achievedRate(db: Db, run: TrafficRun): Promise<number | null> {
  const [row] = await db.query<{ purchases: number; seconds: number | null }>(
    `select coalesce(sum(c.purchases), 0)::int8 as purchases, extract(epoch from max(c.reported) - r.requested)::float8 as seconds
     from traffic_runs r left join traffic_run_counts c on c.run_id = r.id where r.id = $1 group by r.requested`,
    [run.id],
  );
  if (!row || row.seconds === null || row.seconds <= 0) return null;
  return Math.round((row.purchases / row.seconds) * 10) / 10;
}
