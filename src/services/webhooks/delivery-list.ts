// Webhook deliveries as the API lists them: a hook's, or those of a transaction's events, each with its
// attempts in order.
import type { Ctx } from "../../platform/context.ts";
import { notFound } from "../../domain/errors.ts";
import { Filters, pageByCreated, type Page, type PageQuery } from "../../platform/page.ts";
import { getTransaction } from "../transactions/index.ts";

export interface Delivery {
  id: string;
  hookId: string;
  eventId: string;
  event: string;
  status: "pending" | "succeeded" | "failed";
  nextAttempt: string | null;
  attempts: { attempt: number; attempted: string; latencyMs: number; responseCode: number | null; error: string | null }[];
  created: string;
  updated: string;
}

interface DeliveryRow {
  id: string;
  hook_id: string;
  event_id: string;
  event: string;
  status: Delivery["status"];
  next_attempt: Date | null;
  attempt_list: { attempt: number; attempted: string; latency_ms: number; response_code: number | null; error: string | null }[];
  created: Date;
  updated: Date;
}

const toDelivery = (r: DeliveryRow): Delivery => ({
  id: r.id,
  hookId: r.hook_id,
  eventId: r.event_id,
  event: r.event,
  status: r.status,
  nextAttempt: r.next_attempt?.toISOString() ?? null,
  attempts: r.attempt_list.map((a) => ({
    attempt: a.attempt,
    attempted: new Date(a.attempted).toISOString(),
    latencyMs: a.latency_ms,
    responseCode: a.response_code,
    error: a.error,
  })),
  created: r.created.toISOString(),
  updated: r.updated.toISOString(),
});

const DELIVERY_VIEW = `(select d.*, e.event,
    coalesce((select json_agg(json_build_object('attempt', a.attempt, 'attempted', a.attempted,
      'latency_ms', a.latency_ms, 'response_code', a.response_code, 'error', a.error) order by a.attempt)
      from webhook_attempts a where a.delivery_id = d.id), '[]'::json) as attempt_list
  from webhook_deliveries d join outbox_events e on e.id = d.event_id) deliveries`;

export async function listDeliveries(ctx: Ctx, hookId: string, page: PageQuery): Promise<Page<Delivery>> {
  const [hook] = await ctx.db.query("select 1 from hooks where id = $1 and account_id = $2 and live = $3", [
    hookId,
    ctx.accountId,
    ctx.live,
  ]);
  if (!hook) throw notFound("hook", hookId);
  return pageByCreated(ctx.db, DELIVERY_VIEW, new Filters().add("hook_id = ?", hookId), page, toDelivery);
}

/** The deliveries of a transaction's webhook events (one event per stage), with their attempts. */
export async function listTransactionDeliveries(ctx: Ctx, transactionId: string, page: PageQuery): Promise<Page<Delivery>> {
  await getTransaction(ctx, transactionId);
  const filters = new Filters()
    .add("event_id in (select event_id from transaction_stages where transaction_id = ?)", transactionId)
    .add("account_id = ?", ctx.accountId)
    .add("live = ?", ctx.live);
  return pageByCreated(ctx.db, DELIVERY_VIEW, filters, page, toDelivery);
}
