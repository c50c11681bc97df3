// Sandboxes: isolated environments an account makes with its own key. A sandbox is an account row with a
// parent (its owner), its own keys and its own clock over the service clock; every account-scoped table
// scopes it with no rule of its own, and deleting it is the account's cascade.
import type { Db } from "../../platform/db.ts";
import { newId } from "../../platform/ids.ts";
import { DomainError, notFound } from "../../domain/errors.ts";
import { Filters, pageByCreated, type Page, type PageQuery } from "../../platform/page.ts";
import { environmentNow, startingClock, type DueTime, type EnvironmentClock } from "../../platform/clock/environment.ts";
import type { Clock } from "../../platform/clock/index.ts";
import { insertKey, type Tier } from "./accounts.ts";
import { enqueueCommand } from "../../platform/network-outbox.ts";
import { forgetEnvironmentCommand } from "../simulator-control/index.ts";
import { DAY_MS, SECOND_MS } from "../../domain/time-units.ts";

/** A sandbox lives a day unless it asks otherwise, and at most 30 days. */
export const DEFAULT_SANDBOX_SECONDS = DAY_MS / SECOND_MS;
export const MAX_SANDBOX_SECONDS = (30 * DAY_MS) / SECOND_MS;

export interface Sandbox {
  id: string;
  name: string;
  clock: { now: string; frozen: boolean };
  expiresAt: string;
  created: string;
}

export interface SandboxWithKeys extends Sandbox {
  keys: { test: string; live: string };
}

/** A new sandbox as its creator gets it, and its clock (which the networks are told). */
export interface CreatedSandbox {
  sandbox: SandboxWithKeys;
  clock: EnvironmentClock;
}

interface SandboxRow {
  id: string;
  name: string;
  created: Date;
  expires_at: Date;
  clock_frozen: boolean;
  clock_offset_ms: number;
}

export const sandboxClock = (row: Pick<SandboxRow, "clock_frozen" | "clock_offset_ms">): EnvironmentClock => ({
  frozen: row.clock_frozen,
  offsetMs: row.clock_offset_ms,
});

const toSandbox = (service: Clock) => (r: SandboxRow): Sandbox => ({
  id: r.id,
  name: r.name,
  clock: { now: environmentNow(service, sandboxClock(r)).toISOString(), frozen: r.clock_frozen },
  expiresAt: r.expires_at.toISOString(),
  created: r.created.toISOString(),
});

export interface NewSandbox {
  name: string;
  clock?: { at?: Date; frozen?: boolean };
  expiresInSeconds?: number;
}

/**
 * Makes a sandbox of `ownerId` with its test and live keys (shown only here). The owner's row is locked
 * meanwhile, so two creations at once count each other against `limit`.
 */
export async function createSandbox(db: Db, ownerId: string, input: NewSandbox, service: Clock, limit: number): Promise<CreatedSandbox> {
  return db.tx(async (tx) => {
    const [owner] = await tx.query<{ tier: Tier; email: string | null; sandboxes: number; named: string | null }>(
      `select a.tier, a.email,
         (select count(*)::int from accounts s where s.parent_id = a.id) as sandboxes,
         (select s.id::text from accounts s where s.parent_id = a.id and s.name = $2) as named
       from accounts a where a.id = $1 for update`,
      [ownerId, input.name],
    );
    if (!owner) throw notFound("account", ownerId);
    if (owner.named) throw new DomainError("conflict", `name: this account already has a sandbox named "${input.name}" (${owner.named}); choose another name or delete that one (DELETE /v1/sandboxes/${owner.named}).`);
    if (owner.sandboxes >= limit) {
      throw new DomainError(
        "conflict",
        `This account has ${owner.sandboxes} sandboxes, the most it may have (${limit}, SANDBOXES_PER_ACCOUNT). ` +
          "Delete one with DELETE /v1/sandboxes/{id} (cardlink sandbox delete ID), or let one expire.",
      );
    }
    const now = service.now();
    const clock = startingClock(service, input.clock ?? {});
    const expires = new Date(now.getTime() + (input.expiresInSeconds ?? DEFAULT_SANDBOX_SECONDS) * 1000);
    const [row] = await tx.query<SandboxRow>(
      `insert into accounts (id, name, tier, email, created, updated, parent_id, expires_at, clock_frozen, clock_offset_ms)
       values ($1, $2, $3, $4, $5, $5, $6, $7, $8, $9) returning *`,
      [newId(), input.name, owner.tier, owner.email, now, ownerId, expires, clock.frozen, clock.offsetMs],
    );
    const test = await insertKey(tx, row!.id, false, now);
    const live = await insertKey(tx, row!.id, true, now);
    return { sandbox: { ...toSandbox(service)(row!), keys: { test: test.key, live: live.key } }, clock };
  });
}

export const listSandboxes = (db: Db, ownerId: string, page: PageQuery, service: Clock): Promise<Page<Sandbox>> =>
  pageByCreated(db, "accounts", new Filters().add("parent_id = ?", ownerId), page, toSandbox(service));

export async function getSandbox(db: Db, ownerId: string, id: string, service: Clock): Promise<Sandbox> {
  const [row] = await db.query<SandboxRow>("select * from accounts where id = $1 and parent_id = $2", [id, ownerId]);
  if (!row) throw notFound("sandbox", id);
  return toSandbox(service)(row);
}

/**
 * Deletes the sandbox with everything in it (its keys answer 401 from the next request on), and writes in
 * the same transaction the command that makes the networks forget it. Returns that command's id, to send.
 */
export async function deleteSandbox(db: Db, ownerId: string, id: string, now: Date): Promise<string> {
  const [commandId] = await deleteSandboxes(db, "id = $1 and parent_id = $2", [id, ownerId], now);
  if (!commandId) throw notFound("sandbox", id);
  return commandId;
}

/** Deletes every sandbox whose expiry (on the service clock) has passed, as `deleteSandbox` does; returns how many. */
export async function deleteExpiredSandboxes(db: Db, { now }: DueTime): Promise<number> {
  return (await deleteSandboxes(db, "parent_id is not null and expires_at <= $1", [now], now)).length;
}

async function deleteSandboxes(db: Db, where: string, params: unknown[], now: Date): Promise<string[]> {
  return db.tx(async (tx) => {
    const gone = await tx.query<{ id: string }>(`delete from accounts where ${where} returning id`, params);
    const commands: string[] = [];
    for (const { id } of gone) commands.push(await enqueueCommand(tx, forgetEnvironmentCommand(id, now), now));
    return commands;
  });
}

/**
 * Moves a sandbox's clock forward by `ms`, or to `to`; never back. Returns its clock after the move. The
 * caller runs what fell due (the service clock's due-listeners).
 */
export async function advanceSandboxClock(
  db: Db,
  sandboxId: string,
  move: { ms: number } | { to: Date },
  service: Clock,
): Promise<EnvironmentClock> {
  return db.tx(async (tx) => {
    const [row] = await tx.query<SandboxRow>("select * from accounts where id = $1 and parent_id is not null for update", [sandboxId]);
    if (!row) throw notFound("sandbox", sandboxId);
    const now = environmentNow(service, sandboxClock(row));
    const ms = "ms" in move ? move.ms : move.to.getTime() - now.getTime();
    if ("to" in move && ms <= 0) throw new DomainError("invalid", `to: the clock never goes back; give an instant after the sandbox's time, ${now.toISOString()}`);
    const [moved] = await tx.query<SandboxRow>(
      "update accounts set clock_offset_ms = clock_offset_ms + $2, updated = $3 where id = $1 returning *",
      [sandboxId, ms, new Date(now.getTime() + ms)],
    );
    return sandboxClock(moved!);
  });
}

/** The clocks of those of `accountIds` that have one of their own (sandboxes moved or started elsewhere): one statement. */
export async function environmentClocks(db: Db, accountIds: string[]): Promise<Map<string, EnvironmentClock>> {
  if (accountIds.length === 0) return new Map();
  const rows = await db.query<SandboxRow>(
    "select id, clock_frozen, clock_offset_ms from accounts where id = any($1::uuid[]) and (clock_frozen or clock_offset_ms <> 0)",
    [accountIds],
  );
  return new Map(rows.map((r) => [r.id, sandboxClock(r)]));
}
