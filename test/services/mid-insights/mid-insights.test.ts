// The MID-insight writers (one per network or transaction event), the simulated network's offboarding on
// the service clock as the composition root wires it, and the per-day totals behind `count` — on PGlite, and on
// PostgreSQL when DATABASE_URL is set.
import { dueTime } from "../../../src/platform/clock/environment.ts";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../../src/platform/config/index.ts";
import { openSystem, type System } from "../../../src/app/system.ts";
import type { Runtime } from "../../../src/app/runtime.ts";
import { createAccount } from "../../../src/services/accounts/accounts.ts";
import { createProgram } from "../../../src/services/catalog/programs.ts";
import { seedMidInsights } from "../../../src/services/mid-insights/seed.ts";
import { MidInsightEventError, findMid, toMidInsight, type MidInsightRow } from "../../../src/services/mid-insights/mid-insights.ts";
import { recordOffboarded, requestOffboarding, runOffboardingDue } from "../../../src/services/mid-insights/offboarding.ts";
import { recordMissingTransactionLookup, recordOnboardingReply, recordTransactionsSeen } from "../../../src/services/mid-insights/writers.ts";
import { haveInfra, infra } from "../../support/infra.ts";

const engines: [string, string | undefined][] = [
  ["pglite", undefined],
  ...(haveInfra("databaseUrl") ? [["postgres", infra.databaseUrl] as [string, string | undefined]] : []),
];
const DAY = 86_400_000;

describe.each(engines)("MID insight writers on %s", (_engine, databaseUrl) => {
  let system: System;
  let services: Runtime;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "cardlink-mid-"));
    system = await openSystem(
      loadConfig({
        DATA_DIR: dataDir,
        ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
        CLOCK_SPEED: "0",
        CLOCK_START: "2026-01-05T12:00:00Z",
        LOG_LEVEL: "silent",
      }),
      { command: "test", bus: false },
    );
    services = system.services;
  });
  afterAll(async () => {
    await system.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** A live program of a new premium account with one seeded location (three MIDs). */
  async function program() {
    const now = services.clock.now();
    const account = await createAccount(services.db, { name: "Store", tier: "premium" }, now);
    const ctx = { db: services.db, clock: services.clock, accountId: account.id, live: true };
    const { id } = await createProgram(ctx, { name: "P" });
    await seedMidInsights(services.db, { programId: id, count: 3, seed: 1, now });
    const [{ location_id: locationId } = { location_id: "" }] = await services.db.query<{ location_id: string }>(
      "select location_id from mids where program_id = $1 limit 1",
      [id],
    );
    return { ctx, programId: id, locationId };
  }

  const totalsMatchRows = async (programId: string) => {
    const [row] = await services.db.query<{ rows: number; totals: number }>(
      `select (select count(*)::int from mid_insights where program_id = $1) as rows,
              (select coalesce(sum(n), 0)::int from mid_insight_counts where program_id = $1) as totals`,
      [programId],
    );
    const byKey = await services.db.query<{ k: string; rows: number; totals: number }>(
      `select k, sum(r)::int as rows, sum(t)::int as totals from (
         select status || '/' || origin || '/' || coalesce(((last_seen_transaction_date at time zone 'UTC')::date)::text, '-') as k, 1 as r, 0 as t
         from mid_insights where program_id = $1
         union all
         select status || '/' || origin || '/' || coalesce(last_seen_day::text, '-'), 0, n::int from mid_insight_counts where program_id = $1
       ) x group by k having sum(r) <> sum(t)`,
      [programId],
    );
    expect(byKey).toEqual([]);
    return row!;
  };

  it("onboards a MID from a network's reply, once, keeping the first origin", async () => {
    const { programId, locationId } = await program();
    const at = new Date("2026-01-02T09:00:00Z");
    const now = services.clock.now();
    const ids = { vmid: "1234567", vsid: "76543210", visaAcquiringMid: "000111222333444", visaBin: "426684" };
    const first = await recordOnboardingReply(
      services.db,
      { locationId, scheme: "visa", identifiers: ids, origin: "address-match", merchantName: "ACME LEEDS", at },
      now,
    );
    expect(first).toMatchObject({
      programId,
      locationId,
      scheme: "visa",
      status: "onboarded",
      origin: "address-match",
      ...ids,
      cardNetworkMerchantName: "ACME LEEDS",
      sourcedAt: at.toISOString(),
      onboardedAt: at.toISOString(),
      eventTs: at.toISOString(),
      created: now.toISOString(),
    });
    expect(await findMid(services.db, { programId, scheme: "visa", identifiers: ids })).toBe(first.midId);
    const again = await recordOnboardingReply(
      services.db,
      { locationId, scheme: "visa", identifiers: ids, origin: "system-provided-mid", at: new Date(at.getTime() + DAY) },
      now,
    );
    expect(again).toMatchObject({ id: first.id, midId: first.midId, origin: "address-match", cardNetworkMerchantName: "ACME LEEDS" });
    expect(again.onboardedAt).toBe(new Date(at.getTime() + DAY).toISOString());
    await expect(
      recordOnboardingReply(services.db, { locationId, scheme: "amex", identifiers: { seNumber: "12345" }, origin: "address-match", at }, now),
    ).rejects.toThrow(new MidInsightEventError("seNumber: must be exactly 10 digits"));
    await expect(
      recordOnboardingReply(
        services.db,
        { locationId: "2c1d0e9f-8a7b-4c6d-9e5f-4a3b2c1d0e9f", scheme: "amex", identifiers: { seNumber: "1234567890" }, origin: "address-match", at },
        now,
      ),
    ).rejects.toThrow(MidInsightEventError);
    await totalsMatchRows(programId);
  });

  it("sources a MID found by a missing-transaction look-up, and leaves a known MID as it is", async () => {
    const { programId, locationId } = await program();
    const at = new Date("2026-01-03T10:00:00Z");
    const now = services.clock.now();
    const sourced = await recordMissingTransactionLookup(
      services.db,
      { locationId, scheme: "mastercard", identifiers: { mcLocationId: "555000111" }, at },
      now,
    );
    expect(sourced).toMatchObject({ status: "sourced", origin: "missing-transaction-lookup", sourcedAt: at.toISOString(), onboardedAt: null });
    const onboarded = await recordOnboardingReply(
      services.db,
      { locationId, scheme: "mastercard", identifiers: { mcLocationId: "555000111" }, origin: "address-match", at: new Date(at.getTime() + 7 * DAY) },
      now,
    );
    expect(onboarded).toMatchObject({ id: sourced.id, status: "onboarded", origin: "missing-transaction-lookup", sourcedAt: at.toISOString() });
    const looked = await recordMissingTransactionLookup(
      services.db,
      { locationId, scheme: "mastercard", identifiers: { mcLocationId: "555000111" }, at: new Date(at.getTime() + 9 * DAY) },
      now,
    );
    expect(looked).toEqual(onboarded);
    await totalsMatchRows(programId);
  });

  it("records transactions: the latest one seen, the first authorisation and the first clearing", async () => {
    const { programId, locationId } = await program();
    const now = services.clock.now();
    const insight = await recordOnboardingReply(
      services.db,
      { locationId, scheme: "amex", identifiers: { seNumber: "9876543210" }, origin: "brand-provided-mid", at: new Date("2025-12-01T00:00:00Z") },
      now,
    );
    const read = async () =>
      toMidInsight((await services.db.query<MidInsightRow>("select * from mid_insights where id = $1", [insight.id]))[0]!);
    const seen = async (transactionId: string, stage: "auth" | "clearing", at: string) => {
      await recordTransactionsSeen(
        services.db,
        [{ programId, midId: insight.midId, at: new Date(at), lastId: transactionId, firstAuth: stage === "auth" ? transactionId : null, firstClearing: stage === "clearing" ? transactionId : null }],
        now,
      );
      return read();
    };
    const t1 = "11111111-1111-4111-8111-111111111111";
    const t2 = "22222222-2222-4222-8222-222222222222";
    const t0 = "00000000-0000-4000-8000-000000000000";
    await seen(t1, "auth", "2025-12-10T10:00:00.000Z");
    await seen(t1, "clearing", "2025-12-11T02:00:00.000Z");
    const latest = await seen(t2, "auth", "2025-12-20T18:30:00.000Z");
    expect(latest).toMatchObject({
      lastSeenTransactionDate: "2025-12-20T18:30:00.000Z",
      lastSeenTransactionId: t2,
      firstTransactionAuthId: t1,
      firstTransactionClearingId: t1,
      eventTs: "2025-12-20T18:30:00.000Z",
    });
    // A transaction older than the latest one, arriving late, changes neither the date nor the id.
    const late = await seen(t0, "clearing", "2025-12-05T00:00:00.000Z");
    expect(late).toMatchObject({ lastSeenTransactionDate: "2025-12-20T18:30:00.000Z", lastSeenTransactionId: t2, firstTransactionClearingId: t1 });
    // A MID with no insight row in the program: nothing to update, nothing changed.
    await recordTransactionsSeen(services.db, [{ programId, midId: t0, at: now, lastId: t0, firstAuth: t0, firstClearing: null }], now);
    expect(await read()).toEqual(late);
    await totalsMatchRows(programId);
  });

  it("offboards when the network says so, and only an onboarded MID", async () => {
    const { programId, locationId } = await program();
    const now = services.clock.now();
    const on = await recordOnboardingReply(
      services.db,
      { locationId, scheme: "amex", identifiers: { seNumber: "1111111111" }, origin: "customer-provided-mid", midRequestId: "33333333-3333-4333-8333-333333333333", at: now },
      now,
    );
    expect(on.midRequestId).toBe("33333333-3333-4333-8333-333333333333");
    const off = await recordOffboarded(services.db, { programId, midId: on.midId, at: now }, now);
    expect(off).toMatchObject({ status: "offboarded", offboardedAt: now.toISOString() });
    await expect(recordOffboarded(services.db, { programId, midId: on.midId, at: now }, now)).rejects.toThrow("the MID is already offboarded");
    // Onboarded again: the earlier offboarding no longer applies.
    const back = await recordOnboardingReply(
      services.db,
      { locationId, scheme: "amex", identifiers: { seNumber: "1111111111" }, origin: "customer-provided-mid", at: now },
      now,
    );
    expect(back).toMatchObject({ status: "onboarded", offboardedAt: null, offboardRequestedAt: null });
    await totalsMatchRows(programId);
  });

  it("acts on offboard requests when the service clock advances (wired in the runtime), per due time", async () => {
    const { ctx, programId, locationId } = await program();
    const now = services.clock.now();
    const reply = (se: string) =>
      recordOnboardingReply(services.db, { locationId, scheme: "amex", identifiers: { seNumber: se }, origin: "address-match", at: now }, now);
    const [a, b] = [await reply("2222222222"), await reply("3333333333")];
    const requested = await requestOffboarding(ctx, programId, a.id);
    await services.clock.advance(DAY);
    await requestOffboarding(ctx, programId, b.id);
    const status = async (id: string) =>
      (await services.db.query<{ status: string; offboarded_at: Date | null }>("select status, offboarded_at from mid_insights where id = $1", [id]))[0]!;
    await services.clock.advance(DAY);
    expect(await status(a.id)).toEqual({ status: "offboarded", offboarded_at: new Date(Date.parse(requested.offboardRequestedAt!) + 2 * DAY) });
    expect((await status(b.id)).status).toBe("onboarded");
    // Nothing else is due yet; a run at a later time takes the rest.
    expect(await runOffboardingDue(services.db, await dueTime(services.db, services.clock))).toBe(0);
    const dayLater = { now: () => new Date(services.clock.now().getTime() + DAY), offsetMs: services.clock.offsetMs + DAY };
    expect(await runOffboardingDue(services.db, await dueTime(services.db, dayLater))).toBeGreaterThanOrEqual(1);
    expect((await status(b.id)).status).toBe("offboarded");
    await totalsMatchRows(programId);
  });

  it("keeps the per-day totals equal to the rows through seeding, updates and cascading deletes", async () => {
    const { programId, locationId } = await program();
    await seedMidInsights(services.db, { programId, count: 150, seed: 9, now: services.clock.now() });
    expect(await totalsMatchRows(programId)).toEqual({ rows: 153, totals: 153 });
    await services.db.query("update mid_insights set last_seen_transaction_date = last_seen_transaction_date - interval '3 days' where program_id = $1", [programId]);
    await totalsMatchRows(programId);
    await services.db.query("delete from locations where id = $1", [locationId]);
    const after = await totalsMatchRows(programId);
    expect(after.rows).toBe(150);
  });
});
