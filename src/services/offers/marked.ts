// Finding the offers a caller marked, for the simulator's fixtures: the newest offer of a brand carrying a
// metadata mark, and the newest private marketplace offer still running in a program.
import type { Ctx } from "../../platform/context.ts";

/** The id of the newest offer of the brand whose metadata holds `mark`, or undefined when there is none. */
export async function newestMarkedOffer(ctx: Ctx, brandId: string, mark: Record<string, unknown>): Promise<string | undefined> {
  const [found] = await ctx.db.query<{ id: string }>(
    `select id from offers where account_id = $1 and live = $2 and brand_id = $3 and metadata @> $4::jsonb order by created desc, id limit 1`,
    [ctx.accountId, ctx.live, brandId, JSON.stringify(mark)],
  );
  return found?.id;
}

/** The newest offer added to the program from a marketplace offer private to the caller and not yet ended. */
export async function newestPrivateMarketplaceOffer(ctx: Ctx, programId: string): Promise<{ offerId: string; marketplaceOfferId: string } | undefined> {
  const [found] = await ctx.db.query<{ id: string; marketplace_offer_id: string }>(
    `select o.id, o.marketplace_offer_id from offers o join marketplace_offers m on m.id = o.marketplace_offer_id
     where o.account_id = $1 and o.live = $2 and o.program_id = $3 and m.private_to = $1 and m.end_at > $4 order by o.created desc, o.id limit 1`,
    [ctx.accountId, ctx.live, programId, ctx.clock.now()],
  );
  return found && { offerId: found.id, marketplaceOfferId: found.marketplace_offer_id };
}
