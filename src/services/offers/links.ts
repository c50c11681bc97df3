// Which locations an offer qualifies purchases at: linking one location, every location of its brand in a
// program, and unlinking.
import type { Ctx } from "../../platform/context.ts";
import type { Db } from "../../platform/db.ts";
import { DomainError, invalid } from "../../domain/errors.ts";
import { brandLocationsSql, getLocation, getProgram } from "../catalog/index.ts";
import { findOfferRow, type Offer, type OfferRow } from "./offer-record.ts";
import { getOffer } from "./offers.ts";

function assertLinkable(row: OfferRow): void {
  if (row.transaction_source === "oaas") {
    throw invalid(
      "offerId",
      "an offer with transactionSource oaas takes its transactions from you, not from linked locations; its locationsTotal is always -1",
    );
  }
}

/** Links one location of the offer's brand and country; `created` is false when it was linked already. */
export async function linkLocation(ctx: Ctx, offerId: string, locationId: string): Promise<{ offer: Offer; created: boolean }> {
  return ctx.db.tx(async (db) => {
    const tx = { ...ctx, db };
    const row = await findOfferRow(db, ctx, offerId);
    const location = await getLocation(tx, locationId);
    assertLinkable(row);
    if (location.brandId !== row.brand_id) {
      throw invalid("locationId", `the location belongs to brand ${location.brandId}, not to the offer's brand ${row.brand_id}`);
    }
    if (location.countryCode !== row.country_code) {
      throw invalid("locationId", `the location is in ${location.countryCode}; the offer is for ${row.country_code}`);
    }
    const inserted = await db.query(
      "insert into offer_locations (offer_id, location_id, created) values ($1, $2, $3) on conflict do nothing returning offer_id",
      [offerId, locationId, ctx.clock.now()],
    );
    return { offer: await getOffer(tx, offerId), created: inserted.length > 0 };
  });
}

/** Links every location of the offer's brand (in the offer's country) in the program. */
export async function linkProgramLocations(ctx: Ctx, offerId: string, programId: string): Promise<{ offer: Offer; linked: number }> {
  return ctx.db.tx(async (db) => {
    const tx = { ...ctx, db };
    const row = await findOfferRow(db, ctx, offerId);
    await getProgram(tx, programId);
    assertLinkable(row);
    const linked = await linkBrandLocations(db, row, programId, ctx.clock.now());
    return { offer: await getOffer(tx, offerId), linked };
  });
}

/** Links the locations of the offer's brand and country in the program that are not linked yet. */
export async function linkBrandLocations(
  db: Db,
  row: Pick<OfferRow, "id" | "account_id" | "live" | "brand_id" | "country_code">,
  programId: string,
  now: Date,
): Promise<number> {
  const inserted = await db.query(
    `insert into offer_locations (offer_id, location_id, created)
     select $1, l.id, $6 ${brandLocationsSql({ program: "$2", account: "$3", live: "$4", brand: "$5", country: "$7" })}
     on conflict do nothing returning location_id`,
    [row.id, programId, row.account_id, row.live, row.brand_id, now, row.country_code],
  );
  return inserted.length;
}

export async function unlinkLocation(ctx: Ctx, offerId: string, locationId: string): Promise<void> {
  await ctx.db.tx(async (db) => {
    const tx = { ...ctx, db };
    await findOfferRow(db, ctx, offerId);
    await getLocation(tx, locationId);
    const deleted = await db.query("delete from offer_locations where offer_id = $1 and location_id = $2 returning offer_id", [
      offerId,
      locationId,
    ]);
    if (deleted.length === 0) throw new DomainError("not_found", `Location ${locationId} is not linked to offer ${offerId}.`);
  });
}
