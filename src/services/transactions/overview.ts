// The transaction half of the dashboard overview's figures: a program's transactions and their qualification
// rate per minute (or hour, or day), over any window of service time, in one grouped query whatever the number of rows.
import type { Ctx } from "../../platform/context.ts";
import { DAY_MS, HOUR_MS } from "../../domain/time-units.ts";

export interface MinuteFigures {
  /** Start of the bucket (a minute, an hour or a day), ISO 8601 UTC. */
  minute: string;
  transactions: number;
  qualified: number;
}

export type Bucket = "minute" | "hour" | "day";

export const bucketOf = (from: Date, to: Date): Bucket => {
  const ms = to.getTime() - from.getTime();
  return ms <= 6 * HOUR_MS ? "minute" : ms <= 14 * DAY_MS ? "hour" : "day";
};

/** The program's transactions in [from, to] of service time, counted per bucket with how many qualified. */
export async function transactionFigures(ctx: Ctx, programId: string, window: { from: Date; to: Date; bucket: Bucket }): Promise<MinuteFigures[]> {
  const { from, to, bucket } = window;
  const transactions = await ctx.db.query<{ minute: Date; transactions: number; qualified: number }>(
    `select date_trunc($6, created) as minute, count(*)::int as transactions,
       (count(*) filter (where (offer->>'qualified')::boolean))::int as qualified
     from transactions where program_id = $1 and account_id = $2 and live = $3 and created >= $4 and created <= $5
     group by 1 order by 1`,
    [programId, ctx.accountId, ctx.live, from, to, bucket],
  );
  return transactions.map((r) => ({
    minute: r.minute.toISOString(),
    transactions: r.transactions,
    qualified: r.qualified,
  }));
}
