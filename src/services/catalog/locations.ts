// Merchant locations of a program: the address the networks onboard, the brand it belongs to, and one
// sync status per scheme with the MIDs known for that scheme.
import type { Ctx } from "../../platform/context.ts";
import { invalid, notFound } from "../../domain/errors.ts";
import { SCHEMES, type Scheme } from "../../domain/card-number.ts";
import { countryByAlpha3 } from "../../domain/countries.ts";
import { initialNetworkStatus } from "../../domain/location-status.ts";
import type { Db } from "../../platform/db.ts";
import { findBrand } from "./brands.ts";
import { Filters, pageByCreated, type Page, type PageQuery } from "../../platform/page.ts";
import { getProgram } from "./programs.ts";
import { newId } from "../../platform/ids.ts";
import { enqueueEvent } from "../../platform/outbox.ts";
import { addNetworks, beginSync, closeFinishedSync, setClientMids, trySendOnboardingRequests } from "./location-sync.ts";
import { withNetworks, type Location, type LocationRow, type LocationWithBrand, type Mids } from "./location-records.ts";

export type { Location } from "./location-records.ts";

export interface LocationInput {
  address: string;
  brandId: string;
  city: string;
  countryCode: string;
  postcode: string;
  status?: "syncing";
  timezone?: string;
  geolocation?: { latitude: number; longitude: number } | null;
  metadata?: Record<string, unknown> | null;
  mids?: Partial<Mids>;
}

export async function createLocation(ctx: Ctx, programId: string, input: LocationInput): Promise<Location> {
  await getProgram(ctx, programId);
  if (input.status === "syncing" && !ctx.live) {
    throw invalid("status", "syncing works only for live programs with a live key");
  }
  const brand = await findBrand(ctx, input.brandId);
  if (!brand) throw invalid("brandId", "no brand with this id for this account and environment");
  if (brand.consent !== "approved") {
    throw invalid("brandId", `the brand's consent is ${brand.consent}; locations need a brand with approved consent`);
  }
  const timezone = input.timezone ?? countryByAlpha3(input.countryCode)?.mainTimezone ?? "UTC";
  // A live location is Idle until a sync takes it: with `status: syncing`, the sync of this location
  // starts in the same transaction (beginSync), under the one-sync-per-program rule.
  const status = initialNetworkStatus(ctx.live);
  const now = ctx.clock.now();
  const id = newId();
  // The client's MIDs at first. A test location is onboarded over the bus at once too: each test network
  // answers its onboarding request straight away and the workers store the MIDs it assigned, where the
  // client gave none (location-sync.ts applyOnboardingReply).
  const midsOf = (scheme: Scheme): unknown[] => input.mids?.[scheme] ?? [];
  const created = await ctx.db.tx(async (db) => {
    const [row] = await db.query<LocationRow>(
      `insert into locations (id, account_id, live, program_id, brand_id, address, city, postcode, country_code,
         timezone, latitude, longitude, metadata, created, updated)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13::jsonb, $14, $14) returning *`,
      [
        id,
        ctx.accountId,
        ctx.live,
        programId,
        brand.id,
        input.address,
        input.city,
        input.postcode,
        input.countryCode,
        timezone,
        input.geolocation?.latitude ?? null,
        input.geolocation?.longitude ?? null,
        JSON.stringify(input.metadata ?? null),
        now,
      ],
    );
    await addNetworks(
      db,
      SCHEMES.map((scheme) => ({
        locationId: row!.id,
        scheme,
        status,
        mids: midsOf(scheme),
        clientMids: input.mids?.[scheme] ?? [],
        // A test location's onboarding request is made at once (the test network answers it).
        requestId: ctx.live ? null : newId(),
      })),
      now,
    );
    if (input.status === "syncing") await beginSync(db, { accountId: ctx.accountId, live: ctx.live, programId }, now, [row!.id]);
    const location = (await withNetworks(db, [row!]))[0]!;
    if (!ctx.live) {
      // The spec: in the test environment creating a location emits location.active once per scheme.
      for (const scheme of SCHEMES) {
        await enqueueEvent(
          db,
          { accountId: ctx.accountId, live: false, programId, event: "location.status", data: { location, scheme, status: "location.active" } },
          now,
        );
      }
    }
    return location;
  });
  if (input.status === "syncing" || !ctx.live) await trySendOnboardingRequests(ctx.db, ctx.bus, now, { locationIds: [id] });
  return created;
}

export async function listLocations(
  ctx: Ctx,
  programId: string,
  filter: { brandId?: string | undefined; where?: { sql: string; params: unknown[] } | undefined },
  page: PageQuery,
): Promise<Page<Location>> {
  await getProgram(ctx, programId);
  const filters = new Filters()
    .add("program_id = ?", programId)
    .add("account_id = ?", ctx.accountId)
    .add("live = ?", ctx.live);
  if (filter.brandId) filters.add("brand_id = ?", filter.brandId);
  // A predicate of another feature (the locations linked to an offer), which the catalog cannot name.
  if (filter.where) filters.add(filter.where.sql, ...filter.where.params);
  const rows = await pageByCreated(ctx.db, "locations", filters, page, (r: LocationRow) => r);
  return { ...rows, items: await withNetworks(ctx.db, rows.items) };
}

async function findRow(db: Db, ctx: Ctx, id: string): Promise<LocationRow> {
  const [row] = await db.query<LocationRow>("select * from locations where id = $1 and account_id = $2 and live = $3", [
    id,
    ctx.accountId,
    ctx.live,
  ]);
  if (!row) throw notFound("location", id);
  return row;
}

/** The caller's location in the caller's environment, or 404 — never another account's. */
export async function getLocation(ctx: Ctx, id: string): Promise<Location> {
  return (await withNetworks(ctx.db, [await findRow(ctx.db, ctx, id)]))[0]!;
}

export interface LocationPatch {
  address?: string;
  city?: string;
  postcode?: string;
  timezone?: string;
  geolocation?: { latitude: number; longitude: number } | null;
  metadata?: Record<string, unknown> | null;
  /** Replaces the MIDs of each scheme given; schemes left out keep theirs. */
  mids?: Partial<Mids>;
}

export async function updateLocation(ctx: Ctx, id: string, patch: LocationPatch): Promise<Location> {
  const updated = await ctx.db.tx(async (db) => {
    await findRow(db, ctx, id);
    if (Object.values(patch).every((v) => v === undefined)) return getLocation({ ...ctx, db }, id);
    const now = ctx.clock.now();
    const geo = patch.geolocation;
    await db.query(
      `update locations set address = coalesce($2, address), city = coalesce($3, city),
         postcode = coalesce($4, postcode), timezone = coalesce($5, timezone),
         latitude = case when $6::boolean then $7::double precision else latitude end,
         longitude = case when $6::boolean then $8::double precision else longitude end,
         metadata = case when $9::boolean then $10::jsonb else metadata end,
         updated = $11
       where id = $1`,
      [
        id,
        patch.address ?? null,
        patch.city ?? null,
        patch.postcode ?? null,
        patch.timezone ?? null,
        geo !== undefined,
        geo?.latitude ?? null,
        geo?.longitude ?? null,
        patch.metadata !== undefined,
        JSON.stringify(patch.metadata ?? null),
        now,
      ],
    );
    for (const scheme of SCHEMES) {
      const mids = patch.mids?.[scheme];
      if (mids === undefined) continue;
      await setClientMids(db, id, scheme, mids, { now, tellTestNetwork: !ctx.live });
    }
    return getLocation({ ...ctx, db }, id);
  });
  if (!ctx.live && patch.mids !== undefined) await trySendOnboardingRequests(ctx.db, ctx.bus, ctx.clock.now(), { locationIds: [id] });
  return updated;
}

export async function deleteLocation(ctx: Ctx, id: string): Promise<void> {
  await ctx.db.tx(async (db) => {
    const rows = await db.query<{ program_id: string }>(
      "delete from locations where id = $1 and account_id = $2 and live = $3 returning program_id",
      [id, ctx.accountId, ctx.live],
    );
    if (rows.length === 0) throw notFound("location", id);
    // A location that was the last one waiting in a sync ends that sync.
    await closeFinishedSync(db, rows[0]!.program_id, ctx.clock.now());
  });
}

/** Every Active (location, scheme) with its MIDs, the location's brand name and logo: oldest location first. */
export async function activeLocationNetworks(db: Db): Promise<(LocationWithBrand & { scheme: Scheme; mids: Record<string, unknown>[] | null })[]> {
  return db.query(
    `select l.*, b.name as brand_name, b.logo_url as brand_logo_url, n.scheme::text as scheme, n.mids
     from location_networks n join locations l on l.id = n.location_id join brands b on b.id = l.brand_id
     where n.status = 'Active'
     order by l.created, l.id`,
  );
}


const SEED_LOCATION_COLUMNS = `id uuid, brand_id uuid, address text, city text, postcode text, country_code text, timezone text,
  latitude double precision, longitude double precision, created timestamptz`;

/** A location made whole by a generator (the MID-insights seed). */
export interface NewLocation {
  id: string;
  brandId: string;
  address: string;
  city: string;
  postcode: string;
  countryCode: string;
  timezone: string;
  latitude: number;
  longitude: number;
  created: Date;
}

/** Generated locations (the MID-insights seed); returns the ids it added (those already there are left alone). */
export async function seedLocations(db: Db, programId: string, owner: { account_id: string; live: boolean }, locations: NewLocation[]): Promise<Set<string>> {
  const rows = await db.query<{ id: string }>(
    `insert into locations (id, account_id, live, program_id, brand_id, address, city, postcode, country_code, timezone,
       latitude, longitude, created, updated)
     select id, $2, $3, $4, brand_id, address, city, postcode, country_code, timezone, latitude, longitude, created, created
     from json_to_recordset($1::json) as l(${SEED_LOCATION_COLUMNS})
     on conflict (id) do nothing returning id`,
    [
      JSON.stringify(
        locations.map((l) => ({
          id: l.id,
          brand_id: l.brandId,
          address: l.address,
          city: l.city,
          postcode: l.postcode,
          country_code: l.countryCode,
          timezone: l.timezone,
          latitude: l.latitude,
          longitude: l.longitude,
          created: l.created,
        })),
      ),
      owner.account_id,
      owner.live,
      programId,
    ],
  );
  return new Set(rows.map((r) => r.id));
}
