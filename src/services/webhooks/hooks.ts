// Webhook endpoints registered on a program, one event each, with the secret their deliveries are
// signed with (Standard Webhooks: `whsec_` + base64 of the key bytes).
import { randomBytes } from "node:crypto";
import type { Ctx } from "../../platform/context.ts";
import type { Db } from "../../platform/db.ts";
import { DomainError, invalid, notFound } from "../../domain/errors.ts";
import { checkTarget, type TargetPolicy } from "../../domain/webhook-targets.ts";
import { Filters, pageByCreated, type Page, type PageQuery } from "../../platform/page.ts";
import { getProgram, lockProgram } from "../catalog/index.ts";
import { newId } from "../../platform/ids.ts";
import { enqueueEvent } from "../../platform/outbox.ts";

export const HOOK_EVENTS = [
  "transaction.auth",
  "transaction.clearing",
  "transaction.refund",
  "transaction.auth.qualified",
  "transaction.clearing.qualified",
  "transaction.refund.qualified",
  "transaction.auth.expired",
  "location.status",
  "missing-transaction-request.succeeded",
  "missing-transaction-request.failed",
  "offer.targeting.updated",
  "offer.extended",
  "hook.disabled",
  "brand.consent",
  "card.linked",
  "card.failed",
  "program.status",
  "marketplace.offer.live",
  "marketplace.offer.updated",
] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

/** `active`: delivered to; `failing`: in a failure streak, paused between probes; `disabled`: nothing is sent. */
export type HookStatus = "active" | "failing" | "disabled";

export interface Hook {
  id: string;
  programId: string;
  event: HookEvent;
  url: string;
  live: boolean;
  status: HookStatus;
  consecutiveFailures: number;
  failingSince: string | null;
  pausedUntil: string | null;
  lastError: string | null;
  disabledAt: string | null;
  disabledReason: string | null;
  created: string;
}

export interface HookWithSecret extends Hook {
  secret: string;
}

interface HookRow {
  id: string;
  account_id: string;
  program_id: string;
  event: HookEvent;
  url: string;
  secret: string;
  live: boolean;
  failure_streak: number;
  failing_since: Date | null;
  paused_until: Date | null;
  last_error: string | null;
  disabled_at: Date | null;
  disabled_reason: string | null;
  created: Date;
}

const toHook = (r: HookRow): Hook => ({
  id: r.id,
  programId: r.program_id,
  event: r.event,
  url: r.url,
  live: r.live,
  status: r.disabled_at ? "disabled" : r.failure_streak > 0 ? "failing" : "active",
  consecutiveFailures: r.failure_streak,
  failingSince: r.failing_since?.toISOString() ?? null,
  pausedUntil: r.paused_until?.toISOString() ?? null,
  lastError: r.last_error,
  disabledAt: r.disabled_at?.toISOString() ?? null,
  disabledReason: r.disabled_reason,
  created: r.created.toISOString(),
});

const withSecret = (r: HookRow): HookWithSecret => ({ ...toHook(r), secret: r.secret });

/** 32 random bytes: inside the 24–64 byte range Standard Webhooks asks of a signing key. */
export const newSigningSecret = (): string => `whsec_${randomBytes(32).toString("base64")}`;

/** Whether `secret` is a Standard Webhooks signing secret: `whsec_` + canonical base64 of 24 to 64 bytes. */
export function isSigningSecret(secret: string): boolean {
  const match = /^whsec_([A-Za-z0-9+/]+={0,2})$/.exec(secret);
  if (!match) return false;
  const bytes = Buffer.from(match[1]!, "base64");
  return bytes.length >= 24 && bytes.length <= 64 && bytes.toString("base64") === match[1];
}

/** Hooks one program may have: enough for every event several times over, few enough that one program cannot fan an event out without bound. */
export const HOOKS_PER_PROGRAM = 50;

/**
 * Registers a hook whose URL the target policy allows (a name is checked again on every address it
 * resolves to when the dispatcher connects), within the program's cap.
 */
export async function createHook(
  ctx: Ctx,
  programId: string,
  input: { event: HookEvent; url: string; secret?: string | undefined },
  targets: TargetPolicy,
): Promise<HookWithSecret> {
  const target = checkTarget(input.url, targets);
  if (!target.ok) throw invalid("url", target.rule);
  await getProgram(ctx, programId);
  // The count and the insert in one statement, under a lock on the program's row, so concurrent creations cannot pass the cap together.
  return ctx.db.tx(async (tx) => {
    await lockProgram(tx, programId);
    const [row] = await tx.query<HookRow>(
      `insert into hooks (id, account_id, live, program_id, event, url, secret, created)
       select $1, $2, $3, $4, $5, $6, $7, $8 where (select count(*) from hooks where program_id = $4) < $9 returning *`,
      [newId(), ctx.accountId, ctx.live, programId, input.event, input.url, input.secret ?? newSigningSecret(), ctx.clock.now(), HOOKS_PER_PROGRAM],
    );
    if (!row) {
      throw new DomainError("conflict", `Program ${programId} already has ${HOOKS_PER_PROGRAM} hooks, the most a program may have; delete one first.`);
    }
    return withSecret(row);
  });
}

/** A program's hooks, without their secrets: a list is no place to spread signing keys. */
export async function listHooks(ctx: Ctx, programId: string, page: PageQuery): Promise<Page<Hook>> {
  await getProgram(ctx, programId);
  return pageByCreated(
    ctx.db,
    "hooks",
    new Filters().add("program_id = ?", programId).add("account_id = ?", ctx.accountId).add("live = ?", ctx.live),
    page,
    toHook,
  );
}

async function hookRow(ctx: Ctx, id: string): Promise<HookRow> {
  const [row] = await ctx.db.query<HookRow>("select * from hooks where id = $1 and account_id = $2 and live = $3", [
    id,
    ctx.accountId,
    ctx.live,
  ]);
  if (!row) throw notFound("hook", id);
  return row;
}

/** The caller's hook, without its secret, or 404 — never another account's. */
export const getHook = async (ctx: Ctx, id: string): Promise<Hook> => toHook(await hookRow(ctx, id));

/** A hook's signing secret: only on its own route, so the hook itself can be read and logged freely. */
export const getHookSecret = async (ctx: Ctx, id: string): Promise<{ secret: string }> => ({ secret: (await hookRow(ctx, id)).secret });

export async function deleteHook(ctx: Ctx, id: string): Promise<void> {
  const rows = await ctx.db.query("delete from hooks where id = $1 and account_id = $2 and live = $3 returning id", [
    id,
    ctx.accountId,
    ctx.live,
  ]);
  if (rows.length === 0) throw notFound("hook", id);
}

/**
 * Re-enables a hook (its failure streak and pause cleared, so deliveries waiting for it go out at once)
 * or disables it by request. Deliveries keep being queued while a hook is disabled.
 */
export async function setHookEnabled(ctx: Ctx, id: string, enabled: boolean): Promise<Hook> {
  const [row] = await ctx.db.query<HookRow>(
    enabled
      ? `update hooks set disabled_at = null, disabled_reason = null, failure_streak = 0, failing_since = null,
           paused_until = null where id = $1 and account_id = $2 and live = $3 returning *`
      : `update hooks set disabled_at = coalesce(disabled_at, $4), disabled_reason = coalesce(disabled_reason, 'disabled by request')
           where id = $1 and account_id = $2 and live = $3 returning *`,
    enabled ? [id, ctx.accountId, ctx.live] : [id, ctx.accountId, ctx.live, ctx.clock.now()],
  );
  if (!row) throw notFound("hook", id);
  return toHook(row);
}

// ------------------------------------------------------------------ endpoint health (the dispatcher's)

export interface EndpointPolicy {
  /** Service-time delays between a delivery's attempts (the retry schedule), in milliseconds. */
  retryDelaysMs: readonly number[];
  /** Each delay is stretched by up to this share of itself, at random (the attempt's `jitter`). */
  jitter: number;
  /** The pause after the first failure of a streak; it doubles with each further failure … */
  pauseBaseMs: number;
  /** … up to this. */
  pauseMaxMs: number;
  /** A hook that has failed on every attempt for this long (service time) is disabled. */
  disableAfterMs: number;
}

export interface EndpointTally {
  hookId: string;
  /** A success came in this batch: the streak restarts from the failures after the last one. */
  reset: boolean;
  failures: number;
  firstFailure: Date | null;
  finished: Date;
  lastError: string | null;
  /** It answered 410 Gone: disabled at once. */
  gone: boolean;
  /** The longest `Retry-After` it asked for in this batch: its pause lasts at least that. */
  retryAfterMs: number | null;
}

/** The event a disabled hook sends to the program's other hooks registered for it. */
export const HOOK_DISABLED = "hook.disabled" satisfies HookEvent;

/**
 * Each hook's health after a batch of attempts: its failure streak (restarted by a success), the pause
 * after a failure (doubling with the streak up to the policy's most, or as long as `Retry-After` asked)
 * and its disabling — after failing for the policy's time, or at once on 410 Gone — with a
 * `hook.disabled` event to the program's hooks for it, in the same transaction. Returns the hooks this
 * batch disabled.
 */
export async function recordEndpointHealth(db: Db, tallies: EndpointTally[], policy: EndpointPolicy): Promise<{ hookId: string; reason: string }[]> {
  if (tallies.length === 0) return [];
  const rows = await db.query<HookRow & { newly_disabled: boolean }>(
    `with t as (
       select * from unnest($1::uuid[], $2::text[]::boolean[], $3::int[], $4::timestamptz[], $5::timestamptz[], $6::text[], $7::text[]::boolean[], $8::int[])
         as t (hook_id, reset, failures, first_failure, finished, last_error, gone, retry_after_ms)
     ),
     n as (
       select h.id, t.finished, t.last_error, t.gone, t.retry_after_ms, h.disabled_at is null as was_enabled,
         case when t.reset then t.failures else h.failure_streak + t.failures end as streak,
         case when t.failures = 0 then null when t.reset then t.first_failure
           else coalesce(h.failing_since, t.first_failure) end as since
       from hooks h join t on t.hook_id = h.id
     ),
     d as (
       select n.*, n.was_enabled and (n.gone or (n.streak > 0 and n.finished - n.since >= make_interval(secs => $11 / 1000.0))) as disable
       from n
     )
     update hooks h set
       failure_streak = d.streak,
       failing_since = d.since,
       last_error = case when d.streak = 0 then h.last_error else d.last_error end,
       paused_until = case when d.streak = 0 then null
         else d.finished + make_interval(secs => greatest(least($10::float8, $9::float8 * 2 ^ least(d.streak - 1, 30)), coalesce(d.retry_after_ms, 0)) / 1000.0) end,
       disabled_at = case when d.disable then d.finished else h.disabled_at end,
       disabled_reason = case when not d.disable then h.disabled_reason
         when d.gone then 'the endpoint answered 410 Gone at ' || to_char(d.finished at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
         else 'every attempt failed since ' || to_char(d.since at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
           || ' (' || d.streak || ' in a row); last error: ' || d.last_error end
     from d where h.id = d.id
     returning h.*, d.disable as newly_disabled`,
    [
      tallies.map((t) => t.hookId),
      tallies.map((t) => String(t.reset)),
      tallies.map((t) => t.failures),
      tallies.map((t) => t.firstFailure?.toISOString() ?? null),
      tallies.map((t) => t.finished.toISOString()),
      tallies.map((t) => t.lastError),
      tallies.map((t) => String(t.gone)),
      tallies.map((t) => t.retryAfterMs),
      policy.pauseBaseMs,
      policy.pauseMaxMs,
      policy.disableAfterMs,
    ],
  );
  const disabled = rows.filter((r) => r.newly_disabled);
  for (const r of disabled) {
    const { newly_disabled: _, ...row } = r;
    await enqueueEvent(db, { accountId: r.account_id, live: r.live, programId: r.program_id, event: HOOK_DISABLED, data: toHook(row) }, r.disabled_at!);
  }
  return disabled.map((r) => ({ hookId: r.id, reason: r.disabled_reason! }));
}
