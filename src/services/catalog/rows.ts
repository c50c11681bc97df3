// Single catalog rows that other features read or lock inside their own transactions: a program, brand, location or
// card by id, and a location's MIDs at one network.
import type { Scheme } from "../../domain/scheme.ts";
import type { MidIdentifiers } from "../../domain/mid-insights.ts";
import type { Ctx } from "../../platform/context.ts";
import type { Db } from "../../platform/db.ts";

/** Who owns a program and in which environment. */
export interface ProgramOwner {
  account_id: string;
  live: boolean;
}

/** A location with the program, brand, account and environment it belongs to. */
export interface LocationOwner {
  id: string;
  program_id: string;
  brand_id: string;
  account_id: string;
  live: boolean;
}

/** A card as a missing transaction request checks it. */
export interface RequestCard {
  id: string;
  program_id: string;
  scheme: Scheme;
  last_numbers: string;
  status: string;
  failure_reason: string | null;
}

/** A location as a missing transaction request checks it. */
export interface RequestLocation {
  id: string;
  program_id: string;
  brand_id: string;
  country_code: string;
}

/** Locks a program's row until the transaction ends, so writes that count its rows cannot pass a cap together. */
export async function lockProgram(db: Db, programId: string): Promise<void> {
  await db.query("select id from programs where id = $1 for update", [programId]);
}

/** Locks a brand's row until the transaction ends, so checks across its offers see one another. */
export async function lockBrand(db: Db, brandId: string): Promise<void> {
  await db.query("select id from brands where id = $1 for update", [brandId]);
}

/** The id of the caller's oldest brand of that name (case-insensitive) in this environment, if any. */
export async function brandIdNamed(ctx: Ctx, name: string): Promise<string | undefined> {
  const [found] = await ctx.db.query<{ id: string }>(
    "select id from brands where account_id = $1 and live = $2 and lower(name) = lower($3) order by created, id limit 1",
    [ctx.accountId, ctx.live, name],
  );
  return found?.id;
}

/** The account and environment of a program, of any caller; undefined when there is none. */
export async function programOwner(db: Db, id: string): Promise<ProgramOwner | undefined> {
  const [owner] = await db.query<ProgramOwner>("select account_id, live from programs where id = $1", [id]);
  return owner;
}

/** A location with its owners, of any caller; undefined when there is none. */
export async function locationOwner(db: Db, id: string): Promise<LocationOwner | undefined> {
  const [location] = await db.query<LocationOwner>("select id, program_id, brand_id, account_id, live from locations where id = $1", [id]);
  return location;
}

/** The caller's card in this environment, as a missing transaction request checks it; undefined when there is none. */
export async function requestCard(ctx: Ctx, id: string): Promise<RequestCard | undefined> {
  const [card] = await ctx.db.query<RequestCard>(
    "select id, program_id, scheme, last_numbers, status, failure_reason from cards where id = $1 and account_id = $2 and live = $3",
    [id, ctx.accountId, ctx.live],
  );
  return card;
}

/** The caller's location in this environment, as a missing transaction request checks it; undefined when there is none. */
export async function requestLocation(ctx: Ctx, id: string): Promise<RequestLocation | undefined> {
  const [location] = await ctx.db.query<RequestLocation>(
    "select id, program_id, brand_id, country_code from locations where id = $1 and account_id = $2 and live = $3",
    [id, ctx.accountId, ctx.live],
  );
  return location;
}

/** A location's MIDs at one network, locked until the transaction ends; undefined when the location is gone. */
export async function networkMidsForUpdate(db: Db, locationId: string, scheme: Scheme): Promise<MidIdentifiers[] | undefined> {
  const [network] = await db.query<{ mids: MidIdentifiers[] }>(
    "select mids from location_networks where location_id = $1 and scheme = $2 for update",
    [locationId, scheme],
  );
  return network?.mids;
}
