// Webhook deliveries: fan-out of outbox events to the hooks registered for them, claiming due
// deliveries per endpoint, renewing the claims, and recording attempts in batches (with the endpoints'
// health, which is the hooks service's to write); an event delivered again, a hook's failures recovered.
// How the API lists deliveries is in delivery-list.ts.
import type { Db } from "../../platform/db.ts";
import type { Ctx } from "../../platform/context.ts";
import { invalid, notFound } from "../../domain/errors.ts";
import { HOOK_DISABLED, recordEndpointHealth, type EndpointPolicy, type EndpointTally } from "./hooks.ts";
import { dispatchEvents } from "../../platform/outbox.ts";

/**
 * The hooks an event `e` (a row of `outbox_events`, or of the `outbox` view) goes to (`h`): the account's
 * of its environment registered for it, on its program (an event without a program goes to the publisher's
 * hooks on every program). `hook.disabled` goes to the program's other hooks, never the one disabled.
 */
const HOOKS_OF_EVENT = `h.account_id = e.account_id and h.live = e.live and h.event = e.event
  and (e.program_id is null or h.program_id = e.program_id)
  and not (e.event = '${HOOK_DISABLED}' and h.id::text = e.data->>'id')`;

/** Turns undispatched outbox events into one pending delivery per matching hook, in one statement. Returns events handled. */
export async function fanOut(db: Db, now: Date, batch = 500): Promise<number> {
  // An event without a program (offer events) goes to the publisher's hooks on every program.
  const [row] = await db.query<{ events: number }>(
    `with e as (${dispatchEvents({ limit: "$1", now: "$2" })}),
     d as (
       insert into webhook_deliveries (id, event_id, hook_id, account_id, live, status, next_attempt, created, updated)
       select gen_random_uuid(), e.id, h.id, e.account_id, e.live, 'pending', $2, $2, $2
       from e join hooks h on ${HOOKS_OF_EVENT}
     )
     select count(*)::int as events from e`,
    [batch, now],
  );
  return row!.events;
}

export interface DueDelivery {
  id: string;
  hookId: string;
  /** The hook was in a failure streak when claimed (its health must be written whatever the outcome). */
  hookFailing: boolean;
  attempts: number;
  url: string;
  secret: string;
  eventId: string;
  body: string;
  /** Service time the event was written (the outbox row's `created`). */
  eventCreated: Date;
}

export interface ClaimRequest {
  /** Service time: deliveries whose next attempt is at or before it are due. */
  now: Date;
  /** At most this many deliveries in all. */
  limit: number;
  /** The claiming dispatcher; only it renews the lease. */
  owner: string;
  /** Lease length in milliseconds, on the database's own clock. */
  leaseMs: number;
  /** How many more deliveries each hook the dispatcher knows may get now (its free per-endpoint slots). */
  allowance: { hookIds: string[]; allowed: number[] };
  /** The allowance of a hook not in `allowance` (one the dispatcher has not delivered to yet). */
  defaultAllowed: number;
}

/**
 * Claims due deliveries, hook by hook in random order and at most each hook's allowance, so one
 * endpoint's backlog never fills a claim. A hook that is disabled or paused after failures gets
 * nothing; one in a failure streak at most one delivery (a probe). A claim is a lease on the
 * database's own clock, so a delivery whose dispatcher died is picked up again even while service
 * time stands still.
 */
export async function claimDue(db: Db, req: ClaimRequest): Promise<DueDelivery[]> {
  const rows = await db.query<{
    id: string;
    hook_id: string;
    failure_streak: number;
    attempts: number;
    url: string;
    secret: string;
    event_id: string;
    event: string;
    data: unknown;
    event_created: Date;
  }>(
    `with allowance (hook_id, allowed) as (select * from unnest($3::uuid[], $4::int[])),
     open_hooks as (
       select h.id, case when h.failure_streak > 0 then least(coalesce(a.allowed, $5), 1) else coalesce(a.allowed, $5) end as allowed
       from hooks h left join allowance a on a.hook_id = h.id
       where h.disabled_at is null and (h.paused_until is null or h.paused_until <= $1)
       order by random()
     ),
     due as (
       select c.id from open_hooks h cross join lateral (
         select d.id from webhook_deliveries d
         where d.hook_id = h.id and d.status = 'pending' and d.next_attempt <= $1
           and (d.lease_until is null or d.lease_until < now())
         order by d.hook_id, d.next_attempt limit h.allowed
         for update skip locked
       ) c
       where h.allowed > 0
       limit $2
     )
     update webhook_deliveries d set lease_until = now() + make_interval(secs => $6 / 1000.0), lease_owner = $7
     from hooks h, outbox e -- the view: a transaction event's payload assembled from its transaction (migration 036)
     where d.id = any(array(select id from due)) and h.id = d.hook_id and e.id = d.event_id
     returning d.id, d.hook_id, h.failure_streak, d.attempts, h.url, h.secret, e.id as event_id, e.event, e.data, e.created as event_created`,
    [req.now, req.limit, req.allowance.hookIds, req.allowance.allowed, req.defaultAllowed, req.leaseMs, req.owner],
  );
  return rows.map((r) => ({
    id: r.id,
    hookId: r.hook_id,
    hookFailing: r.failure_streak > 0,
    attempts: r.attempts,
    url: r.url,
    secret: r.secret,
    eventId: r.event_id,
    body: JSON.stringify({ id: r.event_id, event: r.event, created: r.event_created.toISOString(), data: r.data }),
    eventCreated: r.event_created,
  }));
}

/** Extends the leases `owner` still holds on `ids`; a lease another dispatcher took over is left alone. */
export async function renewLeases(db: Db, owner: string, ids: string[], leaseMs: number): Promise<void> {
  if (ids.length === 0) return;
  await db.query(
    `update webhook_deliveries set lease_until = now() + make_interval(secs => $3 / 1000.0)
     where id = any($1::uuid[]) and lease_owner = $2 and status = 'pending'`,
    [ids, owner, leaseMs],
  );
}

export interface AttemptOutcome {
  deliveryId: string;
  hookId: string;
  hookFailing: boolean;
  /** Service time the request was sent. */
  attempted: Date;
  /** Service time the answer (or the error) came. */
  finished: Date;
  latencyMs: number;
  responseCode: number | null;
  error: string | null;
  succeeded: boolean;
  /**
   * The attempt was cut short by the dispatcher itself (it was stopping): recorded, due again at once
   * for any dispatcher, and no mark against the endpoint.
   */
  cancelled: boolean;
  /** The headers the request was sent with (the signature among them; never the secret). */
  requestHeaders: Record<string, string>;
  /** The first 4 KB of the answer's body; null when no answer came. */
  responseBody: string | null;
  /** How long the answer's `Retry-After` asked to wait (429 and 503 only); null when it did not. */
  retryAfterMs: number | null;
  /** A random number in [0, 1): how far into the policy's jitter this attempt's retry is put. */
  jitter: number;
}

function tallyEndpoints(outcomes: AttemptOutcome[]): EndpointTally[] {
  const tallies = new Map<string, EndpointTally>();
  for (const o of outcomes) {
    // A success at a healthy hook changes nothing in its health: no write for it.
    if (o.cancelled || (o.succeeded && !o.hookFailing && !tallies.has(o.hookId))) continue;
    let t = tallies.get(o.hookId);
    if (!t) {
      t = { hookId: o.hookId, reset: false, failures: 0, firstFailure: null, finished: o.finished, lastError: null, gone: false, retryAfterMs: null };
      tallies.set(o.hookId, t);
    }
    if (o.finished > t.finished) t.finished = o.finished;
    if (o.responseCode === GONE) t.gone = true;
    if (o.retryAfterMs !== null) t.retryAfterMs = Math.max(t.retryAfterMs ?? 0, o.retryAfterMs);
    if (o.succeeded) {
      t.reset = true;
      t.failures = 0;
      t.firstFailure = null;
      t.lastError = null;
    } else {
      t.failures++;
      t.firstFailure ??= o.attempted;
      t.lastError = o.error ?? (o.responseCode === GONE ? "answered 410 Gone" : `answered ${o.responseCode}`);
    }
  }
  return [...tallies.values()];
}

/** 410 Gone: the receiver says the endpoint is no more. */
const GONE = 410;

/**
 * Records a batch of attempts with set-based statements: one attempt row each (with the request's headers and
 * the head of the answer's body) with the deliveries' status and next attempt (the retry schedule with its
 * jitter, no earlier than a `Retry-After`; none after a 410) in one statement, and in the same transaction,
 * when the batch changes any, each hook's failure streak, pause and, after a long streak or a 410, its
 * disabling. A delivery that no longer exists (its hook was deleted meanwhile) is skipped. Returns the hooks
 * this batch disabled.
 */
export async function recordAttempts(
  db: Db,
  outcomes: AttemptOutcome[],
  policy: EndpointPolicy,
): Promise<{ hookId: string; reason: string }[]> {
  if (outcomes.length === 0) return [];
  const tallies = tallyEndpoints(outcomes);
  // Booleans travel as text arrays: postgres.js sends a JS boolean array as one boolean, not an array.
  const record = (tx: Db) =>
    tx.query(
      `with o as (
         select * from unnest($1::uuid[], $2::timestamptz[], $3::int[], $4::int[], $5::text[], $6::text[]::boolean[], $7::text[]::boolean[],
             $9::text[]::jsonb[], $10::text[], $11::int[], $12::float8[])
           as o (id, attempted, latency_ms, response_code, error, succeeded, cancelled, request_headers, response_body, retry_after_ms, jitter)
       ),
       d as (
         update webhook_deliveries d set
           attempts = d.attempts + 1,
           status = case when d.status <> 'pending' or o.cancelled then d.status
             when o.succeeded then 'succeeded'
             when o.response_code = ${GONE} then 'failed'
             when d.attempts + 1 <= cardinality($8::int[]) then 'pending' else 'failed' end,
           next_attempt = case when d.status <> 'pending' then d.next_attempt
             when o.cancelled then o.attempted
             when o.succeeded or o.response_code = ${GONE} then null
             when d.attempts + 1 <= cardinality($8::int[]) then o.attempted + make_interval(secs =>
               greatest(($8::int[])[d.attempts + 1] * (1 + $13::float8 * o.jitter), coalesce(o.retry_after_ms, 0)) / 1000.0)
             else null end,
           last_response_code = o.response_code, lease_until = null, lease_owner = null, updated = o.attempted
         from o where d.id = o.id
         returning d.id, d.attempts
       )
       insert into webhook_attempts (id, delivery_id, attempt, attempted, latency_ms, response_code, error, request_headers, response_body, retry_after_ms)
       select gen_random_uuid(), d.id, d.attempts, o.attempted, o.latency_ms, o.response_code, o.error, o.request_headers, o.response_body, o.retry_after_ms
       from d join o on o.id = d.id`,
      [
        outcomes.map((o) => o.deliveryId),
        outcomes.map((o) => o.attempted.toISOString()),
        outcomes.map((o) => Math.round(o.latencyMs)),
        outcomes.map((o) => o.responseCode),
        outcomes.map((o) => o.error),
        outcomes.map((o) => String(o.succeeded)),
        outcomes.map((o) => String(o.cancelled)),
        [...policy.retryDelaysMs],
        outcomes.map((o) => JSON.stringify(o.requestHeaders)),
        // PostgreSQL text cannot hold NUL: a body with one keeps it escaped.
        outcomes.map((o) => o.responseBody?.replaceAll("\u0000", "\\u0000") ?? null),
        outcomes.map((o) => o.retryAfterMs),
        outcomes.map((o) => o.jitter),
        policy.jitter,
      ],
    );
  // Healthy hooks' successes change no hook: one statement, atomic on its own, needs no transaction around it.
  if (tallies.length === 0) {
    await record(db);
    return [];
  }
  return db.tx(async (tx) => {
    await record(tx);
    return recordEndpointHealth(tx, tallies, policy);
  });
}

/**
 * Queues the event again for every hook now registered for it, due at `dueAt` — the dispatcher's time, the
 * service clock's now, which a sandbox's clock need not be; the webhook-id stays the event id.
 */
export async function redeliver(ctx: Ctx, eventId: string, dueAt: Date): Promise<{ eventId: string; deliveries: number }> {
  const now = ctx.clock.now();
  const rows = await ctx.db.query<{ id: string }>(
    `insert into webhook_deliveries (id, event_id, hook_id, account_id, live, status, next_attempt, created, updated)
     select gen_random_uuid(), e.id, h.id, e.account_id, e.live, 'pending', $5, $4, $4
     from outbox_events e join hooks h on ${HOOKS_OF_EVENT}
     where e.id = $1 and e.account_id = $2 and e.live = $3
     returning id`,
    [eventId, ctx.accountId, ctx.live, now, dueAt],
  );
  if (rows.length === 0) {
    const [event] = await ctx.db.query("select 1 from outbox_events where id = $1 and account_id = $2 and live = $3", [
      eventId,
      ctx.accountId,
      ctx.live,
    ]);
    if (!event) throw notFound("webhook event", eventId);
  }
  return { eventId, deliveries: rows.length };
}

export interface Recovery {
  hookId: string;
  since: string;
  until: string;
  /** Deliveries that go now: `failed` plus `retrying`. */
  deliveries: number;
  /** Events whose delivery to the hook failed for good, queued again (a new delivery each). */
  failed: number;
  /** Deliveries whose last attempt failed and that waited for a retry, now due at once. */
  retrying: number;
}

/**
 * Delivers again, to this hook, what failed at it among the events written in [since, until) of the
 * environment's time (until: now when not given), due at `dueAt` (the dispatcher's time, the service clock's now): every event whose delivery to it failed for good (none to it pending or
 * succeeded) gets a new delivery, and every delivery whose last attempt failed and that waits for a retry is
 * due at once — its scheduled retry is dropped, its attempts count on. A delivered event is never sent again.
 * The hook's pause after its failures is lifted (the caller says the receiver is back): the first delivery
 * goes at once, as the probe of its failure streak. Each keeps its event id, so `webhook-id` is the one
 * receivers saw. A disabled hook's recovered deliveries wait until it is re-enabled. One recovery of a hook
 * at a time (its row is locked), so two at once never queue an event twice.
 */
export async function recoverHook(ctx: Ctx, hookId: string, window: { since: Date; until?: Date | undefined }, dueAt: Date): Promise<Recovery> {
  const now = ctx.clock.now();
  const until = window.until ?? now;
  return ctx.db.tx(async (db) => {
    const [hook] = await db.query("select 1 from hooks where id = $1 and account_id = $2 and live = $3 for update", [hookId, ctx.accountId, ctx.live]);
    if (!hook) throw notFound("hook", hookId);
    if (until <= window.since) throw invalid("until", "must be later than since.");
    const [counts] = await db.query<{ failed: number; retrying: number }>(
      `with again as (
         insert into webhook_deliveries (id, event_id, hook_id, account_id, live, status, next_attempt, created, updated)
         select gen_random_uuid(), e.id, h.id, e.account_id, e.live, 'pending', $5, $4, $4
         from hooks h join outbox_events e on ${HOOKS_OF_EVENT}
         where h.id = $1 and e.created >= $2 and e.created < $3
           and exists (select 1 from webhook_deliveries d where d.event_id = e.id and d.hook_id = h.id and d.status = 'failed')
           and not exists (select 1 from webhook_deliveries d where d.event_id = e.id and d.hook_id = h.id and d.status <> 'failed')
         returning id
       ),
       retrying as (
         update webhook_deliveries d set next_attempt = least(d.next_attempt, $5), updated = $4
         from outbox_events e
         where d.hook_id = $1 and e.id = d.event_id and e.created >= $2 and e.created < $3
           and d.status = 'pending' and d.attempts > 0 and (d.lease_until is null or d.lease_until < now())
         returning d.id
       )
       select (select count(*) from again)::int as failed, (select count(*) from retrying)::int as retrying`,
      [hookId, window.since, until, now, dueAt],
    );
    const { failed, retrying } = counts!;
    if (failed + retrying > 0) await db.query("update hooks set paused_until = null where id = $1 and paused_until > $2", [hookId, dueAt]);
    return { hookId, since: window.since.toISOString(), until: until.toISOString(), deliveries: failed + retrying, failed, retrying };
  });
}
