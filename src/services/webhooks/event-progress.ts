// How far the events about a subject have come: their ids as written, whether the dispatcher has fanned them out,
// and the first tries of their deliveries. For a caller that fired them and waits to show what happened.
import type { Ctx } from "../../platform/context.ts";

/** One delivery of an event with the answer to its latest attempt (none yet: attempts 0, no code, no error). */
export interface DeliveryTry {
  hookId: string;
  url: string;
  status: "pending" | "succeeded" | "failed";
  attempts: number;
  responseCode: number | null;
  error: string | null;
}

/** The events about a subject, by its id: a transaction event's stored data (its stage's view) keeps the transaction's. */
export const eventIdsAbout = async (ctx: Ctx, event: string, subjectId: string): Promise<string[]> =>
  (
    await ctx.db.query<{ id: string }>(
      `select id from outbox_events where account_id = $1 and live = $2 and event = $3
         and (data->>'id' = $4 or data->'location'->>'id' = $4) order by created, id`,
      [ctx.accountId, ctx.live, event, subjectId],
    )
  ).map((r) => r.id);

/** Whether the dispatcher has fanned every one of the events out. */
export async function allFannedOut(ctx: Ctx, eventIds: string[]): Promise<boolean> {
  return (await ctx.db.query("select 1 from outbox_events where id = any($1::uuid[]) and dispatched is null limit 1", [eventIds])).length === 0;
}

/** The caller's deliveries of the events, oldest first, each with its latest attempt's answer. */
export async function firstTries(ctx: Ctx, eventIds: string[]): Promise<DeliveryTry[]> {
  const rows = await ctx.db.query<{
    hook_id: string;
    url: string;
    status: DeliveryTry["status"];
    attempts: number;
    response_code: number | null;
    error: string | null;
  }>(
    `select d.hook_id, h.url, d.status, d.attempts, a.response_code, a.error
     from webhook_deliveries d join hooks h on h.id = d.hook_id
     left join lateral (select response_code, error from webhook_attempts where delivery_id = d.id order by attempt desc limit 1) a on true
     where d.event_id = any($1::uuid[]) and d.account_id = $2 order by d.created, d.id`,
    [eventIds, ctx.accountId],
  );
  return rows.map((r) => ({ hookId: r.hook_id, url: r.url, status: r.status, attempts: r.attempts, responseCode: r.response_code, error: r.error }));
}
