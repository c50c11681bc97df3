// Offboarding MIDs: the offboard request, the network's report that a MID is offboarded, and the simulated
// networks acting on the requests that fell due (as due work, and for a program before its insights are listed).
import { dueIn, dueParams, envNowSql, type DueTime } from "../../platform/clock/environment.ts";
import type { Ctx } from "../../platform/context.ts";
import { DomainError, notFound } from "../../domain/errors.ts";
import type { Db } from "../../platform/db.ts";
import { callerProgramSql, getProgram } from "../catalog/index.ts";
import { OFFBOARD_DELAY_MS, transition } from "../../domain/mid-insights.ts";
import { MidInsightEventError, toMidInsight, type MidInsight, type MidInsightRow } from "./mid-insights.ts";

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
 * Applies the offboardings that fell due in the caller's program (404 when it is not the caller's), in one
 * round trip, so a list of its insights that follows reads them applied.
 */
export async function applyDueOffboardings(ctx: Ctx, programId: string): Promise<void> {
  const [row] = await ctx.db.query<{ found: boolean }>(
    `with program as (${callerProgramSql("$1", "$2", "$3")}),
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
