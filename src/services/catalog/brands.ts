// Brands: the merchants whose locations a publisher adds. A brand must consent before its locations
// can be added: at once in test; in live the simulated brand approves after a simulated delay. Every
// answer (approved or declined) is a `brand.consent` event, written with it, to the publisher's hooks on
// every program (a brand belongs to no one program).
import { dueIn, dueParams, type DueTime } from "../../platform/clock/environment.ts";
import { randomInt } from "node:crypto";
import type { Ctx } from "../../platform/context.ts";
import { notFound } from "../../domain/errors.ts";
import { DAY_MS } from "../../domain/time-units.ts";
import type { Db } from "../../platform/db.ts";
import { Filters, pageByCreated, type Page, type PageQuery } from "../../platform/page.ts";
import { newId } from "../../platform/ids.ts";
import { enqueueEvents } from "../../platform/outbox.ts";

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
  account_id: string;
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

/** The simulated brand answers a live consent request 1 to 3 days (service time) after it is made. */
export const CONSENT_DELAY_MS = { min: DAY_MS, max: 3 * DAY_MS } as const;

/** The `brand.consent` events of brands whose consent was just answered, written in the caller's transaction. */
async function consentAnswered(db: Db, rows: BrandRow[]): Promise<void> {
  await enqueueEvents(
    db,
    rows.map((r) => ({ accountId: r.account_id, live: r.live, programId: null, event: "brand.consent", data: toBrand(r), created: r.updated })),
  );
}

export async function createBrand(
  ctx: Ctx,
  input: { name: string; logoUrl?: string | null; metadata?: Record<string, unknown> | null },
): Promise<Brand> {
  const now = ctx.clock.now();
  const due = ctx.live
    ? new Date(now.getTime() + CONSENT_DELAY_MS.min + randomInt(CONSENT_DELAY_MS.max - CONSENT_DELAY_MS.min + 1))
    : null;
  return ctx.db.tx(async (db) => {
    const [row] = await db.query<BrandRow>(
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
    // In test the brand consents at once, as Fidel's test environment does: its event comes with it.
    if (row!.consent === "approved") await consentAnswered(db, [row!]);
    return toBrand(row!);
  });
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

/**
 * Sets a brand's consent, with its `brand.consent` event when the answer changed it; the brand, or
 * undefined when `where` finds none.
 */
async function decideConsent(db: Db, where: string, params: unknown[], decision: "approved" | "declined", now: Date): Promise<Brand | undefined> {
  return db.tx(async (tx) => {
    const [row] = await tx.query<BrandRow & { changed: boolean }>(
      `update brands b set consent = $${params.length + 1}, consent_due = null, updated = $${params.length + 2}
       from (select id, consent as before from brands where ${where} for update) o
       where b.id = o.id returning b.*, o.before <> b.consent as changed`,
      [...params, decision, now],
    );
    if (!row) return undefined;
    const { changed, ...brand } = row;
    if (changed) await consentAnswered(tx, [brand]);
    return toBrand(brand);
  });
}

/** The operator's decision on a brand's consent, whatever its account or environment. */
export const decideBrandConsent = (db: Db, id: string, decision: "approved" | "declined", now: Date): Promise<Brand | undefined> =>
  decideConsent(db, "id = $1", [id], decision, now);

/** A sandbox's own decision on a consent of its brand (in a sandbox the integrator plays the brand); 404 for any other brand. */
export async function decideSandboxBrandConsent(ctx: Ctx, id: string, decision: "approved" | "declined"): Promise<Brand> {
  const brand = await decideConsent(ctx.db, "id = $1 and account_id = $2 and live = $3", [id, ctx.accountId, ctx.live], decision, ctx.clock.now());
  if (!brand) throw notFound("brand", id);
  return brand;
}

/** The simulated brands' answer to live consent requests: approves every requested consent that fell due in its environment by `at`; returns how many it approved. */
export async function approveDueBrands(db: Db, at: DueTime): Promise<number> {
  // `updated` is the moment the brand answered on its environment's time, not when this sweep ran.
  return db.tx(async (tx) => {
    const rows = await tx.query<BrandRow>(
      `update brands set consent = 'approved', updated = consent_due, consent_due = null
       where consent = 'requested' and ${dueIn("consent_due", "account_id", 1)} returning *`,
      dueParams(at),
    );
    await consentAnswered(tx, rows);
    return rows.length;
  });
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
