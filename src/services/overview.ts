// The dashboard overview's figures: transactions and their qualification rate per minute, webhook
// delivery latency and failures per minute, over a window of service time. Set-based: one grouped
// query each, whatever the number of rows.
import type { Ctx } from "./context.ts";
import { getProgram } from "./programs.ts";

export interface MinuteFigures {
  /** Start of the minute, ISO 8601 UTC. */
  minute: string;
  transactions: number;
  qualified: number;
}

export interface DeliveryMinute {
  minute: string;
  attempts: number;
  failures: number;
  /** Mean latency of the minute's attempts, whole milliseconds. */
  meanLatencyMs: number;
}

export interface Overview {
  from: string;
  to: string;
  transactions: MinuteFigures[];
  deliveries: DeliveryMinute[];
}

/** Figures of the program's transactions and of the account's webhook attempts in [to - minutes, to]. */
export async function programOverview(ctx: Ctx, programId: string, minutes = 60): Promise<Overview> {
  await getProgram(ctx, programId);
  const to = ctx.clock.now();
  const from = new Date(to.getTime() - minutes * 60_000);
  const transactions = await ctx.db.query<{ minute: Date; transactions: number; qualified: number }>(
    `select date_trunc('minute', created) as minute, count(*)::int as transactions,
       (count(*) filter (where (offer->>'qualified')::boolean))::int as qualified
     from transactions where program_id = $1 and account_id = $2 and live = $3 and created >= $4 and created <= $5
     group by 1 order by 1`,
    [programId, ctx.accountId, ctx.live, from, to],
  );
  const deliveries = await ctx.db.query<{ minute: Date; attempts: number; failures: number; latency: number }>(
    `select date_trunc('minute', a.attempted) as minute, count(*)::int as attempts,
       (count(*) filter (where a.response_code is null or a.response_code not between 200 and 299))::int as failures,
       round(avg(a.latency_ms))::int as latency
     from webhook_attempts a join webhook_deliveries d on d.id = a.delivery_id join hooks h on h.id = d.hook_id
     where h.program_id = $1 and d.account_id = $2 and d.live = $3 and a.attempted >= $4 and a.attempted <= $5
     group by 1 order by 1`,
    [programId, ctx.accountId, ctx.live, from, to],
  );
  return {
    from: from.toISOString(),
    to: to.toISOString(),
    transactions: transactions.map((r) => ({
      minute: r.minute.toISOString(),
      transactions: r.transactions,
      qualified: r.qualified,
    })),
    deliveries: deliveries.map((r) => ({
      minute: r.minute.toISOString(),
      attempts: r.attempts,
      failures: r.failures,
      meanLatencyMs: r.latency,
    })),
  };
}
