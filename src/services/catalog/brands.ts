// Brands: the merchants whose locations a publisher adds. A brand must consent before its locations
// can be added: at once in test; in live the simulated brand approves after a simulated delay.
import { dueIn, dueParams, type DueTime } from "../../platform/clock/environment.ts";
import { randomInt } from "node:crypto";
import type { Ctx } from "../../platform/context.ts";
import { notFound } from "../../domain/errors.ts";
import type { Db } from "../../platform/db.ts";
import { Filters, pageByCreated, type Page, type PageQuery } from "../../platform/page.ts";
import { newId } from "../../platform/ids.ts";

export type Consent = "requested" | "approved" | "declined";

export interface Brand {
  id: string;
  name: string;
  logoUrl: string | null;
  consent: Consent;
  metadata: Record<string, unknown> | null;
  live: boolean;
  created: string;
  updated: string;
}

interface BrandRow {
  id: string;
  name: string;
  logo_url: string | null;
  consent: Consent;
  metadata: Record<string, unknown> | null;
  live: boolean;
  created: Date;
  updated: Date;
}

const toBrand = (r: BrandRow): Brand => ({
  id: r.id,
  name: r.name,
  logoUrl: r.logo_url,
  consent: r.consent,
  metadata: r.metadata,
  live: r.live,
  created: r.created.toISOString(),
  updated: r.updated.toISOString(),
});

const DAY_MS = 86_400_000;
/** The simulated brand answers a live consent request 1 to 3 days (service time) after it is made. */
export const CONSENT_DELAY_MS = { min: DAY_MS, max: 3 * DAY_MS } as const;

export async function createBrand(
  ctx: Ctx,
  input: { name: string; logoUrl?: string | null; metadata?: Record<string, unknown> | null },
): Promise<Brand> {
  const now = ctx.clock.now();
  const due = ctx.live
    ? new Date(now.getTime() + CONSENT_DELAY_MS.min + randomInt(CONSENT_DELAY_MS.max - CONSENT_DELAY_MS.min + 1))
    : null;
  const [row] = await ctx.db.query<BrandRow>(
    `insert into brands (id, account_id, live, name, logo_url, consent, consent_due, metadata, created, updated)
     values ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9, $9) returning *`,
    [
      newId(),
      ctx.accountId,
      ctx.live,
      input.name,
      input.logoUrl ?? null,
      ctx.live ? "requested" : "approved",
      due,
      JSON.stringify(input.metadata ?? null),
      now,
    ],
  );
  return toBrand(row!);
}

export const listBrands = (ctx: Ctx, page: PageQuery): Promise<Page<Brand>> =>
  pageByCreated(
    ctx.db,
    "brands",
    new Filters().add("account_id = ?", ctx.accountId).add("live = ?", ctx.live),
    page,
    toBrand,
  );

/** The caller's brand in the caller's environment, or undefined — never another account's. */
export async function findBrand(ctx: Ctx, id: string): Promise<Brand | undefined> {
  const [row] = await ctx.db.query<BrandRow>("select * from brands where id = $1 and account_id = $2 and live = $3", [
    id,
    ctx.accountId,
    ctx.live,
  ]);
  return row && toBrand(row);
}

export async function getBrand(ctx: Ctx, id: string): Promise<Brand> {
  const brand = await findBrand(ctx, id);
  if (!brand) throw notFound("brand", id);
  return brand;
}

/** The operator's decision on a brand's consent, whatever its account or environment. */
export async function decideBrandConsent(
  db: Db,
  id: string,
  decision: "approved" | "declined",
  now: Date,
): Promise<Brand | undefined> {
  const [row] = await db.query<BrandRow>(
    "update brands set consent = $2, consent_due = null, updated = $3 where id = $1 returning *",
    [id, decision, now],
  );
  return row && toBrand(row);
}

/** A sandbox's own decision on a consent of its brand (in a sandbox the integrator plays the brand); 404 for any other brand. */
export async function decideSandboxBrandConsent(ctx: Ctx, id: string, decision: "approved" | "declined"): Promise<Brand> {
  const [row] = await ctx.db.query<BrandRow>(
    "update brands set consent = $4, consent_due = null, updated = $5 where id = $1 and account_id = $2 and live = $3 returning *",
    [id, ctx.accountId, ctx.live, decision, ctx.clock.now()],
  );
  if (!row) throw notFound("brand", id);
  return toBrand(row);
}

/** The simulated brands' answer to live consent requests: approves every requested consent that fell due in its environment by `at`; returns how many it approved. */
export async function approveDueBrands(db: Db, at: DueTime): Promise<number> {
  // `updated` is the moment the brand answered on its environment's time, not when this sweep ran.
  const rows = await db.query(
    `update brands set consent = 'approved', updated = consent_due, consent_due = null
     where consent = 'requested' and ${dueIn("consent_due", "account_id", 1)} returning id`,
    dueParams(at),
  );
  return rows.length;
}


const BRAND_COLUMNS = "id uuid, name text, created timestamptz";

/** Generated brands (the MID-insights seed), consent approved; those already there are left alone. */
export async function seedBrands(db: Db, owner: { account_id: string; live: boolean }, brands: { id: string; name: string; created: Date }[], now: Date): Promise<void> {
  await db.query(
    `insert into brands (id, account_id, live, name, consent, created, updated)
     select b.id, $2, $3, b.name, 'approved', b.created, $4 from json_to_recordset($1::json) as b(${BRAND_COLUMNS})
     on conflict (id) do nothing`,
    [JSON.stringify(brands.map((b) => ({ id: b.id, name: b.name, created: b.created }))), owner.account_id, owner.live, now],
  );
}
