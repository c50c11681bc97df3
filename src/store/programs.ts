// Programs: the container for cards, locations and hooks of one publisher in one environment.
import type { Ctx } from "../api/context.ts";
import { ApiError, notFound } from "../api/errors.ts";
import { Filters, pageByCreated, type Page, type PageQuery } from "./page.ts";
import { newId } from "./ids.ts";

export interface Program {
  id: string;
  name: string;
  live: boolean;
  status: "idle" | "syncing";
  metadata: Record<string, unknown> | null;
  created: string;
  updated: string;
}

interface ProgramRow {
  id: string;
  name: string;
  live: boolean;
  status: "idle" | "syncing";
  metadata: Record<string, unknown> | null;
  created: Date;
  updated: Date;
}

const toProgram = (r: ProgramRow): Program => ({
  id: r.id,
  name: r.name,
  live: r.live,
  status: r.status,
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
  return toProgram(row!);
}

export const listPrograms = (ctx: Ctx, page: PageQuery): Promise<Page<Program>> =>
  pageByCreated(
    ctx.db,
    "programs",
    new Filters().add("account_id = ?", ctx.accountId).add("live = ?", ctx.live),
    page,
    toProgram,
  );

/** The caller's program in the caller's environment, or 404 — never another account's. */
export async function getProgram(ctx: Ctx, id: string): Promise<Program> {
  const [row] = await ctx.db.query<ProgramRow>(
    "select * from programs where id = $1 and account_id = $2 and live = $3",
    [id, ctx.accountId, ctx.live],
  );
  if (!row) throw notFound("program", id);
  return toProgram(row);
}

export async function updateProgram(
  ctx: Ctx,
  id: string,
  patch: { name?: string; metadata?: Record<string, unknown> | null; status?: "syncing" },
): Promise<Program> {
  return ctx.db.tx(async (db) => {
    const current = await getProgram({ ...ctx, db }, id);
    const now = ctx.clock.now();
    if (patch.status === "syncing") {
      if (!ctx.live) {
        throw new ApiError("invalid_request", "status: syncing works only for live programs with a live key.");
      }
      if (current.status === "syncing") {
        throw new ApiError("conflict", "status: a sync is already running for this program; one at a time.");
      }
      await db.query(
        `update location_networks n set status = 'Syncing', sync_started = $2, updated = $2
         from locations l where l.id = n.location_id and l.program_id = $1 and n.status = 'Idle'`,
        [id, now],
      );
    }
    const [row] = await db.query<ProgramRow>(
      `update programs set name = coalesce($2, name),
         metadata = case when $3::boolean then $4::jsonb else metadata end,
         status = coalesce($5, status), updated = $6
       where id = $1 returning *`,
      [id, patch.name ?? null, patch.metadata !== undefined, JSON.stringify(patch.metadata ?? null), patch.status ?? null, now],
    );
    return toProgram(row!);
  });
}
