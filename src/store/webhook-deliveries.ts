// Webhook deliveries: fan-out of outbox events to the hooks registered for them, claiming due
// deliveries, and recording each attempt.
import type { Db } from "./db.ts";
import type { Ctx } from "../api/context.ts";
import { notFound } from "../api/errors.ts";
import { newId } from "./ids.ts";
import { Filters, pageByCreated, type Page, type PageQuery } from "./page.ts";
import { getTransaction } from "./transactions.ts";

/** Turns undispatched outbox events into one pending delivery per matching hook. Returns events handled. */
export async function fanOut(db: Db, now: Date, batch = 500): Promise<number> {
  return db.tx(async (tx) => {
    const events = await tx.query<{ id: string }>(
      `select id from outbox where dispatched is null order by created, id limit $1 for update skip locked`,
      [batch],
    );
    if (events.length === 0) return 0;
    const ids = events.map((e) => e.id);
    // An event without a program (offer events) goes to the publisher's hooks on every program.
    await tx.query(
      `insert into webhook_deliveries (id, event_id, hook_id, account_id, live, status, next_attempt, created, updated)
       select gen_random_uuid(), e.id, h.id, e.account_id, e.live, 'pending', $2, $2, $2
       from outbox e join hooks h on h.account_id = e.account_id and h.live = e.live and h.event = e.event
         and (e.program_id is null or h.program_id = e.program_id)
       where e.id = any($1::uuid[])`,
      [ids, now],
    );
    await tx.query("update outbox set dispatched = $2 where id = any($1::uuid[])", [ids, now]);
    return ids.length;
  });
}

export interface DueDelivery {
  id: string;
  attempts: number;
  url: string;
  secret: string;
  eventId: string;
  body: string;
}

/**
 * Claims up to `limit` due deliveries. A claim is a lease of `leaseSeconds` on the database's own
 * clock, so a delivery whose process died is picked up again even while service time stands still.
 */
export async function claimDue(db: Db, now: Date, limit: number, leaseSeconds = 60): Promise<DueDelivery[]> {
  const rows = await db.query<{
    id: string;
    attempts: number;
    url: string;
    secret: string;
    event_id: string;
    event: string;
    data: unknown;
    event_created: Date;
  }>(
    `with due as (
       select d.id from webhook_deliveries d
       where d.status = 'pending' and d.next_attempt <= $1 and (d.lease_until is null or d.lease_until < now())
       order by d.next_attempt limit $2 for update skip locked
     )
     update webhook_deliveries d set lease_until = now() + make_interval(secs => $3)
     from due, hooks h, outbox e
     where d.id = due.id and h.id = d.hook_id and e.id = d.event_id
     returning d.id, d.attempts, h.url, h.secret, e.id as event_id, e.event, e.data, e.created as event_created`,
    [now, limit, leaseSeconds],
  );
  return rows.map((r) => ({
    id: r.id,
    attempts: r.attempts,
    url: r.url,
    secret: r.secret,
    eventId: r.event_id,
    body: JSON.stringify({ id: r.event_id, event: r.event, created: r.event_created.toISOString(), data: r.data }),
  }));
}

export interface AttemptOutcome {
  attempted: Date;
  latencyMs: number;
  responseCode: number | null;
  error: string | null;
  /** Service time of the next attempt, or null: succeeded, or no attempt left. */
  nextAttempt: Date | null;
  succeeded: boolean;
}

export async function recordAttempt(db: Db, delivery: DueDelivery, outcome: AttemptOutcome): Promise<void> {
  await db.tx(async (tx) => {
    const attempt = delivery.attempts + 1;
    await tx.query(
      `insert into webhook_attempts (id, delivery_id, attempt, attempted, latency_ms, response_code, error)
       values ($1, $2, $3, $4, $5, $6, $7)`,
      [newId(), delivery.id, attempt, outcome.attempted, Math.round(outcome.latencyMs), outcome.responseCode, outcome.error],
    );
    const status = outcome.succeeded ? "succeeded" : outcome.nextAttempt ? "pending" : "failed";
    await tx.query(
      `update webhook_deliveries set attempts = $2, status = $3, next_attempt = $4, last_response_code = $5,
         lease_until = null, updated = $6 where id = $1`,
      [delivery.id, attempt, status, outcome.nextAttempt, outcome.responseCode, outcome.attempted],
    );
  });
}

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
  from webhook_deliveries d join outbox e on e.id = d.event_id) deliveries`;

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

/** Queues the event again for every hook now registered for it; the webhook-id stays the event id. */
export async function redeliver(ctx: Ctx, eventId: string): Promise<{ eventId: string; deliveries: number }> {
  const now = ctx.clock.now();
  const rows = await ctx.db.query<{ id: string }>(
    `insert into webhook_deliveries (id, event_id, hook_id, account_id, live, status, next_attempt, created, updated)
     select gen_random_uuid(), e.id, h.id, e.account_id, e.live, 'pending', $4, $4, $4
     from outbox e join hooks h on h.account_id = e.account_id and h.live = e.live and h.event = e.event
       and (e.program_id is null or h.program_id = e.program_id)
     where e.id = $1 and e.account_id = $2 and e.live = $3
     returning id`,
    [eventId, ctx.accountId, ctx.live, now],
  );
  if (rows.length === 0) {
    const [event] = await ctx.db.query("select 1 from outbox where id = $1 and account_id = $2 and live = $3", [
      eventId,
      ctx.accountId,
      ctx.live,
    ]);
    if (!event) throw notFound("webhook event", eventId);
  }
  return { eventId, deliveries: rows.length };
}
