// The fixtures a trigger fires on, kept in a program of the caller's test environment: a brand, a location, a card
// of each scheme and a live offer linked to the location, all marked so a later trigger finds and reuses them; and
// the fixtures' marketplace offer.
import type { Ctx } from "../../platform/context.ts";
import { DomainError } from "../../domain/errors.ts";
import { addMonths, localAt } from "../../domain/local-dates.ts";
import type { Scheme } from "../../domain/scheme.ts";
import { DAY_MS } from "../../domain/time-units.ts";
import { createBrand, createLocation, createProgram, enrolCard, findMarked, getProgram, trySendOnboardingRequests } from "../catalog/index.ts";
import { adoptMarketplaceOffer, createMarketplaceOffer, createOffer, getOffer, linkLocation, newestMarkedOffer, newestPrivateMarketplaceOffer } from "../offers/index.ts";

/** Marks the fixtures' records (metadata), so a later trigger finds and reuses them. */
const MARK = { cardlinkFixtures: true } as const;
/** The fixtures' test card of each scheme. */
export const FIXTURE_CARDS: Record<Scheme, string> = { visa: "4444000000004008", mastercard: "5555000000005007", amex: "340000000000306" };
export const ZONE = "Europe/London";

export interface Fixtures {
  programId: string;
  brandId: string;
  locationId: string;
  cardId: string;
  offerId: string;
}

/**
 * The fixtures program of the caller's test environment with a brand, a location, a card and a live
 * offer linked to the location; what is missing (or was deleted) is made again. One caller at a time.
 * With `programId`, the location and card are found or made in that program of the caller's instead;
 * with `scheme`, the card is the fixtures card of that scheme; a `cardId` or `locationId` of the caller's
 * is used as it is (nothing is made or linked in its place).
 */
export async function ensureFixtures(
  ctx: Ctx,
  options: { programId?: string | undefined; scheme?: Scheme | undefined; cardId?: string | undefined; locationId?: string | undefined } = {},
): Promise<Fixtures> {
  if (ctx.live) throw new DomainError("invalid", "trigger: works in the test environment; use a test key (sk_test_…).");
  const scheme = options.scheme ?? "visa";
  if (options.programId) await getProgram(ctx, options.programId);
  const fixtures = await ctx.db.tx(async (db) => {
    // Nothing goes to the networks from inside the transaction: an answer could come back before the
    // location it answers is committed, and find nothing to apply to. What is left unsent goes below.
    const { bus: _afterCommit, ...outside } = ctx;
    const tx: Ctx = { ...outside, db };
    await db.query("select pg_advisory_xact_lock(hashtext($1))", [`fixtures:${ctx.accountId}`]);
    const programId = options.programId ?? (await findMarked(tx, "program", MARK)) ?? (await createProgram(tx, { name: "Fixtures", metadata: MARK })).id;
    const brandId = (await findMarked(tx, "brand", MARK)) ?? (await createBrand(tx, { name: "Fixtures Coffee", metadata: MARK })).id;
    const locationId =
      options.locationId ??
      (await findMarked(tx, "location", MARK, { programId })) ??
      (await createLocation(tx, programId, { brandId, address: "1 Fixture Street", city: "London", postcode: "SW1A 1AA", countryCode: "GBR", metadata: MARK })).id;
    const cardId =
      options.cardId ??
      (await findMarked(tx, "card", MARK, { programId, scheme })) ??
      (await enrolCard(tx, programId, { number: FIXTURE_CARDS[scheme], expMonth: 12, expYear: 2030, countryCode: "GBR", termsOfUse: true, metadata: MARK })).id;
    // The newest fixtures offer, unless it has ended (service time may have moved a year on).
    const found = await newestMarkedOffer(tx, brandId, MARK);
    const current = found && (await getOffer(tx, found)).status !== "expired" ? found : undefined;
    const offerId =
      current ??
      (
        await createOffer(tx, {
          brandId,
          countryCode: "GBR",
          name: "Fixtures: 10% off coffee",
          publisherId: ctx.accountId,
          startDate: localAt(new Date(ctx.clock.now().getTime() - DAY_MS), ZONE),
          type: { name: "discount", value: 10 },
          minTransactionAmount: 5,
          feeSplit: 1,
          metadata: MARK,
        })
      ).id;
    if (!options.locationId) await linkLocation(tx, offerId, locationId);
    return { programId, brandId, locationId, cardId, offerId };
  });
  // The card's enrolment, left in the network outbox, goes with the workers' next pass.
  await trySendOnboardingRequests(ctx.db, ctx.bus, ctx.clock.now(), { locationIds: [fixtures.locationId] });
  return fixtures;
}

/** The fixtures' marketplace brand: its offers (oaas, so live with no location) never meet the fixtures' purchases. */
const MARKETPLACE_BRAND = "Cardlink fixtures marketplace";

/** A marketplace offer only the caller sees, added to the fixtures program: live at once (a test brand answers at once). */
export async function addFixturesMarketplaceOffer(ctx: Ctx, programId: string): Promise<{ marketplaceOfferId: string; offerId: string }> {
  const startDate = localAt(new Date(ctx.clock.now().getTime() - DAY_MS), ZONE);
  const offer = await createMarketplaceOffer(
    ctx.db,
    {
      name: "Fixtures: 5% back online",
      brandName: MARKETPLACE_BRAND,
      countryCode: "GBR",
      channels: ["online"],
      startDate,
      endDate: addMonths(startDate, 12),
      type: { name: "discount", value: 5 },
      transactionSource: "oaas",
      supplier: { id: "cardlink_fixtures", type: "affiliate", name: "Cardlink fixtures" },
    },
    ctx.clock.now(),
    ctx.accountId,
  );
  const added = await adoptMarketplaceOffer(ctx, offer.id, programId);
  return { marketplaceOfferId: offer.id, offerId: added.id };
}

/** The newest fixtures marketplace offer added to the program, or one added now when there is none. */
export async function fixturesMarketplaceOffer(ctx: Ctx, programId: string): Promise<{ marketplaceOfferId: string; offerId: string }> {
  return (await newestPrivateMarketplaceOffer(ctx, programId)) ?? (await addFixturesMarketplaceOffer(ctx, programId));
}
