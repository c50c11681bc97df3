// Programs: the container for cards, locations and hooks of one publisher in one environment.
import type { Ctx } from "../../platform/context.ts";
import { notFound } from "../../domain/errors.ts";
import { Filters, pageByCreated, type Page, type PageQuery } from "../../platform/page.ts";
import { newId } from "../../platform/ids.ts";
import type { Db } from "../../platform/db.ts";
import { latestSyncs, type ProgramSync } from "./program-syncs.ts";
import { enqueueEvent } from "../../platform/outbox.ts";

async function withSyncs(db: Db, rows: ProgramRow[]): Promise<Program[]> {
  const syncs = await latestSyncs(
    db,
    rows.map((r) => r.id),
  );
  return rows.map((r) => toProgram(r, syncs.get(r.id)));
}

export interface Program {
  id: string;
  name: string;
  live: boolean;
  status: "idle" | "syncing";
  /** The program's latest location sync (the running one while status is syncing), or null. */
  sync: ProgramSync | null;
  metadata: Record<string, unknown> | null;
  created: string;
  updated: string;
}

interface ProgramRow {
  id: string;
  account_id: string;
  name: string;
  live: boolean;
  status: "idle" | "syncing";
  metadata: Record<string, unknown> | null;
  created: Date;
  updated: Date;
}

const toProgram = (r: ProgramRow, sync: ProgramSync | undefined): Program => ({
  id: r.id,
  name: r.name,
  live: r.live,
  status: r.status,
  sync: sync ?? null,
  metadata: r.metadata,
  created: r.created.toISOString(),
  updated: r.updated.toISOString(),
});

export async function createProgram(
  ctx: Ctx,
  input: { name: string; metadata?: Record<string, unknown> | null },
): Promise<Program> {
  const [row] = await ctx.db.query<ProgramRow>(
    `insert into programs (id, account_id, live, name, metadata, created, updated)
     values ($1, $2, $3, $4, $5::jsonb, $6, $6) returning *`,
    [newId(), ctx.accountId, ctx.live, input.name, JSON.stringify(input.metadata ?? null), ctx.clock.now()],
  );
  return toProgram(row!, undefined);
}

export async function listPrograms(ctx: Ctx, page: PageQuery): Promise<Page<Program>> {
  const rows = await pageByCreated(
    ctx.db,
    "programs",
    new Filters().add("account_id = ?", ctx.accountId).add("live = ?", ctx.live),
    page,
    (r: ProgramRow) => r,
  );
  return { ...rows, items: await withSyncs(ctx.db, rows.items) };
}

/** The caller's program in the caller's environment, or 404 — never another account's. */
export async function getProgram(ctx: Ctx, id: string): Promise<Program> {
  const [row] = await ctx.db.query<ProgramRow>(
    "select * from programs where id = $1 and account_id = $2 and live = $3",
    [id, ctx.accountId, ctx.live],
  );
  if (!row) throw notFound("program", id);
  return (await withSyncs(ctx.db, [row]))[0]!;
}

/** A program's name and metadata as given (left out: kept); the row as it is now. */
export async function setProgramFields(
  db: Db,
  id: string,
  patch: { name?: string; metadata?: Record<string, unknown> | null },
  now: Date,
): Promise<{ live: boolean }> {
  const [row] = await db.query<ProgramRow>(
    `update programs set name = coalesce($2, name),
       metadata = case when $3::boolean then $4::jsonb else metadata end, updated = $5
     where id = $1 returning *`,
    [id, patch.name ?? null, patch.metadata !== undefined, JSON.stringify(patch.metadata ?? null), now],
  );
  return row!;
}

/**
 * The program's status while a location sync runs ("syncing") and once it has ended ("idle"), with its
 * `program.status` event: the program as it now stands, its sync with it.
 */
export async function setProgramStatus(db: Db, id: string, status: Program["status"], now: Date): Promise<void> {
  const [row] = await db.query<ProgramRow>("update programs set status = $2, updated = $3 where id = $1 returning *", [id, status, now]);
  const [program] = await withSyncs(db, [row!]);
  await enqueueEvent(db, { accountId: row!.account_id, live: row!.live, programId: id, event: "program.status", data: program }, now);
}
