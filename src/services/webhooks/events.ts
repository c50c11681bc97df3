// Webhook events as a publisher sees them: a program's events with their payloads and where each stands
// (delivered, failed, pending), and one event with every attempt of every delivery — the request headers
// sent, the answer's status, latency and the first 4 KB of its body. Read-only: the outbox is written by
// the modules whose changes the events report, deliveries and attempts by webhook-deliveries.ts. Events are
// read through the `outbox` view, which assembles a transaction event's payload from its transaction
// (migration 036).
import type { Ctx } from "../../platform/context.ts";
import { notFound } from "../../domain/errors.ts";
import { Filters, pageByCreated, type Page, type PageQuery } from "../../platform/page.ts";
import { getProgram } from "../catalog/index.ts";
import type { HookEvent } from "./hooks.ts";

/**
 * `pending`: not yet handed to its hooks, or a delivery awaits an attempt. `failed`: every delivery to
 * some hook has failed (none to it pending or succeeded). `delivered`: every hook it went to got it.
 * `no_hooks`: no hook was registered for it when it happened.
 */
export const EVENT_STATUSES = ["delivered", "failed", "pending", "no_hooks"] as const;
export type EventStatus = (typeof EVENT_STATUSES)[number];

export interface EventAttempt {
  attempt: number;
  attempted: string;
  latencyMs: number;
  responseCode: number | null;
  error: string | null;
  /** The headers the request carried (`webhook-signature` among them); null where the attempt's record has none. */
  requestHeaders: Record<string, string> | null;
  /** The first 4 KB of the answer's body; null when no answer came. */
  responseBody: string | null;
  /** The wait the answer asked for with `Retry-After` (429 and 503), in milliseconds. */
  retryAfterMs: number | null;
}

export interface EventDelivery {
  id: string;
  hookId: string;
  url: string;
  status: "pending" | "succeeded" | "failed";
  attemptCount: number;
  lastResponseCode: number | null;
  nextAttempt: string | null;
  created: string;
}

export interface WebhookEvent {
  id: string;
  event: HookEvent;
  programId: string | null;
  /** The transaction a transaction event reports. */
  transactionId: string | null;
  created: string;
  status: EventStatus;
  /** The body every delivery of it carries (`webhook-id` is its `id`). */
  payload: { id: string; event: HookEvent; created: string; data: unknown };
  deliveries: EventDelivery[];
}

export interface WebhookEventDetail extends WebhookEvent {
  deliveries: (EventDelivery & { attempts: EventAttempt[] })[];
}

interface AttemptJson {
  attempt: number;
  attempted: string;
  latency_ms: number;
  response_code: number | null;
  error: string | null;
  request_headers: Record<string, string> | null;
  response_body: string | null;
  retry_after_ms: number | null;
}

interface DeliveryJson {
  id: string;
  hook_id: string;
  url: string;
  status: EventDelivery["status"];
  attempts: number;
  last_response_code: number | null;
  next_attempt: string | null;
  created: string;
  attempt_list?: AttemptJson[];
}

interface EventRow {
  id: string;
  event: HookEvent;
  program_id: string | null;
  transaction_id: string | null;
  data: unknown;
  created: Date;
  status: EventStatus;
  delivery_list: DeliveryJson[];
}

const iso = (t: string | null) => (t === null ? null : new Date(t).toISOString());

const toDelivery = (d: DeliveryJson): EventDelivery => ({
  id: d.id,
  hookId: d.hook_id,
  url: d.url,
  status: d.status,
  attemptCount: d.attempts,
  lastResponseCode: d.last_response_code,
  nextAttempt: iso(d.next_attempt),
  created: new Date(d.created).toISOString(),
});

const toEvent = (r: EventRow): WebhookEvent => ({
  id: r.id,
  event: r.event,
  programId: r.program_id,
  transactionId: r.transaction_id,
  created: r.created.toISOString(),
  status: r.status,
  payload: { id: r.id, event: r.event, created: r.created.toISOString(), data: r.data },
  deliveries: r.delivery_list.map(toDelivery),
});

const toDetail = (r: EventRow): WebhookEventDetail => ({
  ...toEvent(r),
  deliveries: r.delivery_list.map((d) => ({
    ...toDelivery(d),
    attempts: (d.attempt_list ?? []).map((a) => ({
      attempt: a.attempt,
      attempted: new Date(a.attempted).toISOString(),
      latencyMs: a.latency_ms,
      responseCode: a.response_code,
      error: a.error,
      requestHeaders: a.request_headers,
      responseBody: a.response_body,
      retryAfterMs: a.retry_after_ms,
    })),
  })),
});

/** The events with their status and deliveries (and, for one event, every attempt), as a table to filter and page. */
const eventView = (withAttempts: boolean) => `(select e.id, e.account_id, e.live, e.program_id, e.event, e.data, e.created,
    case when e.event like 'transaction.%' then coalesce(e.transaction_id::text, e.data->>'id') end as transaction_id,
    case when e.dispatched is null or s.pending_hooks > 0 then 'pending'
      when s.hooks = 0 then 'no_hooks'
      when s.failed_hooks > 0 then 'failed'
      else 'delivered' end as status,
    (select coalesce(json_agg(json_build_object('id', d.id, 'hook_id', d.hook_id, 'url', h.url, 'status', d.status,
        'attempts', d.attempts, 'last_response_code', d.last_response_code, 'next_attempt', d.next_attempt, 'created', d.created
        ${withAttempts ? `, 'attempt_list', (select coalesce(json_agg(json_build_object('attempt', a.attempt, 'attempted', a.attempted,
          'latency_ms', a.latency_ms, 'response_code', a.response_code, 'error', a.error, 'request_headers', a.request_headers,
          'response_body', a.response_body, 'retry_after_ms', a.retry_after_ms) order by a.attempt), '[]'::json)
          from webhook_attempts a where a.delivery_id = d.id)` : ""}
      ) order by d.created, d.id), '[]'::json)
      from webhook_deliveries d join hooks h on h.id = d.hook_id where d.event_id = e.id) as delivery_list
  from outbox e
  cross join lateral (
    select count(*)::int as hooks,
      (count(*) filter (where ph.pending > 0))::int as pending_hooks,
      (count(*) filter (where ph.pending = 0 and ph.succeeded = 0))::int as failed_hooks
    from (select d.hook_id, count(*) filter (where d.status = 'pending') as pending, count(*) filter (where d.status = 'succeeded') as succeeded
          from webhook_deliveries d where d.event_id = e.id group by d.hook_id) ph
  ) s) events`;

const LIST_VIEW = eventView(false);
const DETAIL_VIEW = eventView(true);

export interface EventFilters {
  event?: string;
  transactionId?: string;
  status?: EventStatus;
  /** Events written at or after this service time … */
  from?: Date;
  /** … and before this one. */
  to?: Date;
}

/**
 * A program's webhook events, newest first, with their payloads and deliveries. Events without a
 * program (offer events, sent to the publisher's hooks on every program) are in every program's list.
 */
export async function listWebhookEvents(ctx: Ctx, programId: string, filters: EventFilters, page: PageQuery): Promise<Page<WebhookEvent>> {
  await getProgram(ctx, programId);
  const f = new Filters()
    .add("account_id = ?", ctx.accountId)
    .add("live = ?", ctx.live)
    .add("(program_id = ? or program_id is null)", programId);
  if (filters.event) f.add("event = ?", filters.event);
  if (filters.transactionId) f.add("id in (select event_id from transaction_stages where transaction_id = ?)", filters.transactionId);
  if (filters.status) f.add("status = ?", filters.status);
  if (filters.from) f.add("created >= ?", filters.from);
  if (filters.to) f.add("created < ?", filters.to);
  return pageByCreated(ctx.db, LIST_VIEW, f, page, toEvent);
}

/**
 * The caller's events about one record (a transaction: a transaction event's own; a location: its
 * `data.location`; a missing transaction request, an offer, a hook: its `data`) written at or after `since`,
 * newest first, with their deliveries: the webhooks a request that made or changed that record caused (the
 * request log's link). A transaction event is matched by its transaction, not by the location in its payload,
 * and without assembling the payload.
 */
export async function listWebhookEventsAbout(ctx: Ctx, about: { resourceId: string; since: Date }, page: PageQuery): Promise<Page<WebhookEvent>> {
  const f = new Filters()
    .add("account_id = ?", ctx.accountId)
    .add("live = ?", ctx.live)
    .add("created >= ?", about.since)
    .add("coalesce(transaction_id, data->'location'->>'id', data->>'id') = ?", about.resourceId);
  return pageByCreated(ctx.db, LIST_VIEW, f, page, toEvent);
}

/** One of the caller's events with every attempt of every delivery, or 404 — never another account's or environment's. */
export async function getWebhookEvent(ctx: Ctx, id: string): Promise<WebhookEventDetail> {
  const [row] = await ctx.db.query<EventRow>(`select * from ${DETAIL_VIEW} where id = $1 and account_id = $2 and live = $3`, [
    id,
    ctx.accountId,
    ctx.live,
  ]);
  if (!row) throw notFound("webhook event", id);
  return toDetail(row);
}
