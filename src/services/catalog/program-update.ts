// Changing a program: its name and metadata, and with `status: syncing` the start of its location sync
// (the sync and the onboarding requests are location-sync.ts's; in test the networks answer it at once),
// in one transaction.
import type { Ctx } from "../../platform/context.ts";
import { getProgram, setProgramFields, type Program } from "./programs.ts";
import { beginSync, trySendOnboardingRequests } from "./location-sync.ts";

export async function updateProgram(
  ctx: Ctx,
  id: string,
  patch: { name?: string; metadata?: Record<string, unknown> | null; status?: "syncing" },
): Promise<Program> {
  const now = ctx.clock.now();
  const syncId = await ctx.db.tx(async (db) => {
    await getProgram({ ...ctx, db }, id);
    const row = await setProgramFields(db, id, patch, now);
    if (patch.status !== "syncing") return undefined;
    return (await beginSync(db, { accountId: ctx.accountId, live: row.live, programId: id }, now, null)).id;
  });
  if (syncId) await trySendOnboardingRequests(ctx.db, ctx.bus, now, { syncId });
  return getProgram(ctx, id);
}
