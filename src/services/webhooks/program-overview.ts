// The dashboard overview's figures: a program's transactions and their qualification rate (through the
// transactions face) beside its hooks' webhook delivery latency and failures, per minute (or hour, or day),
// over any window of service time. Set-based: one grouped query each, whatever the number of rows.
import type { Ctx } from "../../platform/context.ts";
import { getProgram } from "../catalog/index.ts";
import { invalid } from "../../domain/errors.ts";
import { DAY_MS, HOUR_MS } from "../../domain/time-units.ts";
import { bucketOf, transactionFigures, type Bucket, type MinuteFigures } from "../transactions/index.ts";

export interface DeliveryMinute {
  minute: string;
  attempts: number;
  failures: number;
  /** Mean latency of the bucket's attempts, whole milliseconds. */
  meanLatencyMs: number;
}

export interface Overview {
  from: string;
  to: string;
  /** What one entry of the figures covers: minutes up to 6 hours, hours up to 14 days, days beyond. */
  bucket: Bucket;
  transactions: MinuteFigures[];
  deliveries: DeliveryMinute[];
}

/** The longest window the overview shows. */
export const OVERVIEW_MAX_DAYS = 366;

/** The program's hooks' webhook attempts in [from, to] of service time, per bucket: how many, how many failed, mean latency. */
async function deliveryFigures(ctx: Ctx, programId: string, window: { from: Date; to: Date; bucket: Bucket }): Promise<DeliveryMinute[]> {
  const { from, to, bucket } = window;
  const deliveries = await ctx.db.query<{ minute: Date; attempts: number; failures: number; latency: number }>(
    `select date_trunc($6, a.attempted) as minute, count(*)::int as attempts,
       (count(*) filter (where a.response_code is null or a.response_code not between 200 and 299))::int as failures,
       round(avg(a.latency_ms))::int as latency
     from webhook_attempts a join webhook_deliveries d on d.id = a.delivery_id join hooks h on h.id = d.hook_id
     where h.program_id = $1 and d.account_id = $2 and d.live = $3 and a.attempted >= $4 and a.attempted <= $5
     group by 1 order by 1`,
    [programId, ctx.accountId, ctx.live, from, to, bucket],
  );
  return deliveries.map((r) => ({
    minute: r.minute.toISOString(),
    attempts: r.attempts,
    failures: r.failures,
    meanLatencyMs: r.latency,
  }));
}

/**
 * Figures of the program's transactions and of its hooks' webhook attempts in [from, to] of service time
 * (the last hour unless given), per minute, hour or day as the window's length asks.
 */
export async function programOverview(ctx: Ctx, programId: string, window: { from?: Date; to?: Date } = {}): Promise<Overview> {
  await getProgram(ctx, programId);
  const to = window.to ?? ctx.clock.now();
  const from = window.from ?? new Date(to.getTime() - HOUR_MS);
  if (to <= from) throw invalid("to", "must be later than from.");
  if (to.getTime() - from.getTime() > OVERVIEW_MAX_DAYS * DAY_MS) throw invalid("from", `the window is at most ${OVERVIEW_MAX_DAYS} days.`);
  const figuresWindow = { from, to, bucket: bucketOf(from, to) };
  return {
    from: from.toISOString(),
    to: to.toISOString(),
    bucket: figuresWindow.bucket,
    transactions: await transactionFigures(ctx, programId, figuresWindow),
    deliveries: await deliveryFigures(ctx, programId, figuresWindow),
  };
}
