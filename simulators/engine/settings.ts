// The operator's settings as a simulated network holds them in its own store, from the service's
// simulator.settings messages: faults per scheme, traffic runs (options, state, and what each run has
// sent so far, which the network reports back), and the service clock's advance.
// zod through @hono/zod-openapi, so the /admin routes can name these schemas in the OpenAPI document.
import { z } from "@hono/zod-openapi";
import type { SimulatorSetting, TrafficProgress } from "../../src/platform/bus/messages.ts";
import type { SimulatorDb as Db } from "./db.ts";
import { NO_FAULTS, faultsSchema, type Faults } from "./faults.ts";
import { DEFAULT_MIX, type TrafficMix } from "./generator.ts";
import { SCHEMES } from "../../src/domain/scheme.ts";
import { AUTH_EXPIRY_DAYS, AUTH_EXPIRY_DAYS_RANGE } from "../../src/domain/purchase-follow-ups.ts";
import type { CountedKind, Scheme } from "./types.ts";

export async function readFaults(db: Db, scheme: Scheme): Promise<Faults> {
  const [row] = await db.query<{ faults: unknown }>("select faults from simulator_faults where scheme = $1", [scheme]);
  // Settings written by an older version may lack newer fields: those take their defaults.
  return row ? faultsSchema.parse({ ...NO_FAULTS, ...(row.faults as object) }) : { ...NO_FAULTS };
}

/** Keeps the scheme's faults unless a newer version of them is kept already (a redelivered setting). */
export async function saveFaults(db: Db, scheme: Scheme, faults: Faults, version: number, now: Date): Promise<void> {
  await db.query(
    `insert into simulator_faults (scheme, faults, version, updated) values ($1, $2::jsonb, $3, $4)
     on conflict (scheme) do update set faults = excluded.faults, version = excluded.version, updated = excluded.updated
     where simulator_faults.version < excluded.version`,
    [scheme, JSON.stringify(faults), version, now.toISOString()],
  );
}

const share = (what: string) =>
  z.number().min(0, "must be between 0 and 1").max(1, "must be between 0 and 1").describe(`Share (0 to 1) of purchases ${what}.`);

export const trafficOptionsSchema = z
  .strictObject({
    rate: z
      .number()
      .positive("must be greater than 0")
      .max(10_000, "must be at most 10000")
      .describe("Purchases per second (real time), shared equally by the schemes of the run."),
    // At most 2^52: the largest whole number an Avro long carries exactly in JavaScript (avsc), so the run's
    // setting reaches the simulators over the bus as it was given.
    seed: z
      .number()
      .int("must be a whole number")
      .min(0, "must be 0 or more")
      .max(2 ** 52, "must be at most 4503599627370496")
      .describe("The same seed and population give the same stream."),
    durationSeconds: z
      .number()
      .positive("must be greater than 0")
      .max(604_800, "must be at most 604800 (a week)")
      .optional()
      .describe("Stop after rate × durationSeconds purchases; without it the run goes on until stopped."),
    schemes: z
      .array(z.enum(SCHEMES, { message: "must be visa, mastercard or amex" }))
      .min(1, "must name at least one scheme")
      .max(SCHEMES.length, `must name at most ${SCHEMES.length} schemes`)
      .default([...SCHEMES])
      .describe("The networks that send traffic (default all three)."),
    programId: z.uuid({ message: "must be a UUID" }).optional().describe("Draw cards and locations from this program only."),
    unenrolledCards: share("made with cards the service never enrolled").default(DEFAULT_MIX.unenrolledCards),
    unknownMerchants: share("at merchants the service does not know").default(DEFAULT_MIX.unknownMerchants),
    notOnboardedLocations: share("at the service's locations the network has not onboarded").default(DEFAULT_MIX.notOnboardedLocations),
    targetingTags: z
      .strictObject({ new: share("tagged new"), lapsed: share("tagged lapsed"), existing: share("tagged existing") })
      .default(DEFAULT_MIX.targetingTags)
      .describe("How often each targeting tag rides on a purchase; the rest carry none."),
    voids: share("voided before they clear").default(DEFAULT_MIX.voids),
    refunds: share("refunded after they clear, some in part").default(DEFAULT_MIX.refunds),
    unreferencedRefunds: z
      .number()
      .min(0, "must be between 0 and 1")
      .max(1, "must be between 0 and 1")
      .default(DEFAULT_MIX.unreferencedRefunds)
      .describe("Share (0 to 1) of the refunds that the network sends without naming the purchase; Cardlink links them by card, location, MID, amount and time."),
    partialClearings: share("of which only part clears (each clearing its own transaction)").default(DEFAULT_MIX.partialClearings),
    multipleClearings: share("that clear in two or three clearings adding up to the amount").default(DEFAULT_MIX.multipleClearings),
    clearingsWithoutAuth: share("that the network clears with no authorisation first (offline, force-posted)").default(DEFAULT_MIX.clearingsWithoutAuth),
    tips: share("that clear above their authorised amount by a tip of 5 to 20 %").default(DEFAULT_MIX.tips),
    expiries: share("never cleared: their authorisation expires after authExpiryDays").default(DEFAULT_MIX.expiries),
    incrementalAuths: share("whose authorisation is incremented (10 to 50 % more) before it clears").default(DEFAULT_MIX.incrementalAuths),
    duplicateClearings: share("whose clearing the network sends again a day later").default(DEFAULT_MIX.duplicateClearings),
    crossBorder: share("billed to the cardholder in another currency (the messages carry the converted amount too)").default(DEFAULT_MIX.crossBorder),
    authExpiryDays: z
      .number()
      .int("must be a whole number")
      .min(AUTH_EXPIRY_DAYS_RANGE.min, `must be at least ${AUTH_EXPIRY_DAYS_RANGE.min}`)
      .max(AUTH_EXPIRY_DAYS_RANGE.max, `must be at most ${AUTH_EXPIRY_DAYS_RANGE.max}`)
      .default(AUTH_EXPIRY_DAYS)
      .describe("Days of the service clock an authorisation left uncleared lasts before the network withdraws it."),
  })
  .superRefine((o, ctx) => {
    if (o.unknownMerchants + o.notOnboardedLocations > 1) {
      ctx.addIssue({ code: "custom", path: ["notOnboardedLocations"], message: "unknownMerchants + notOnboardedLocations must be at most 1" });
    }
    if (outcomeShares(o) > 1) {
      ctx.addIssue({ code: "custom", path: ["expiries"], message: `${OUTCOMES.join(" + ")} must be at most 1` });
    }
    const t = o.targetingTags;
    if (t.new + t.lapsed + t.existing > 1) {
      ctx.addIssue({ code: "custom", path: ["targetingTags"], message: "the shares must add up to at most 1" });
    }
  });

export type TrafficOptions = z.infer<typeof trafficOptionsSchema>;

/** What may follow an auth, one of them per purchase: their shares add up to at most 1 (the rest clear as authorised). */
const OUTCOMES = ["voids", "refunds", "partialClearings", "multipleClearings", "clearingsWithoutAuth", "tips", "expiries"] as const;
const outcomeShares = (o: Pick<TrafficOptions, (typeof OUTCOMES)[number]>) => OUTCOMES.reduce((sum, k) => sum + o[k], 0);

export const mixOf = (o: TrafficOptions): TrafficMix => ({
  unenrolledCards: o.unenrolledCards,
  unknownMerchants: o.unknownMerchants,
  notOnboardedLocations: o.notOnboardedLocations,
  targetingTags: o.targetingTags,
  voids: o.voids,
  refunds: o.refunds,
  unreferencedRefunds: o.unreferencedRefunds,
  partialClearings: o.partialClearings,
  multipleClearings: o.multipleClearings,
  clearingsWithoutAuth: o.clearingsWithoutAuth,
  tips: o.tips,
  expiries: o.expiries,
  incrementalAuths: o.incrementalAuths,
  duplicateClearings: o.duplicateClearings,
  crossBorder: o.crossBorder,
  authExpiryDays: o.authExpiryDays,
});

/** How many purchases one scheme's share of a run makes in all, or null when it runs until stopped. */
export const plannedPurchases = (o: TrafficOptions): number | null =>
  o.durationSeconds === undefined ? null : Math.floor((o.rate / o.schemes.length) * o.durationSeconds);

export interface TrafficRun {
  id: string;
  options: TrafficOptions;
  /**
   * running: the networks generate; stopped: by the operator or by a later run; completed: a run with a
   * duration whose networks all reported their planned purchases (the service's record only).
   */
  state: "running" | "stopped" | "completed";
  started: string;
  stopped: string | null;
}

/** A run as its table keeps it (the simulators' simulator_traffic, the service's traffic_runs). */
export interface RunRow {
  id: string;
  options: TrafficOptions;
  state: TrafficRun["state"];
  started: Date;
  stopped: Date | null;
}

export const toRun = (r: RunRow): TrafficRun => ({
  id: r.id,
  // A run kept before a share existed takes its default.
  options: { ...DEFAULT_MIX, ...r.options },
  state: r.state,
  started: r.started.toISOString(),
  stopped: r.stopped?.toISOString() ?? null,
});

export async function latestRun(db: Db): Promise<TrafficRun | undefined> {
  const [row] = await db.query<RunRow>("select id, options, state, started, stopped from simulator_traffic order by seq desc limit 1");
  return row && toRun(row);
}

/**
 * A run as a simulator.settings message told of it. A new running run stops the one before (one run at
 * a time); a run the network holds already changes only by stopping, so a redelivered start never
 * restarts a run, nor stops a later one.
 */
export async function saveRun(db: Db, run: TrafficRun): Promise<void> {
  await db.tx(async (tx) => {
    const values = [run.id, JSON.stringify(run.options), run.state, run.started, run.stopped];
    if (run.state === "stopped") {
      await tx.query(
        `insert into simulator_traffic (id, options, state, started, stopped) values ($1, $2::jsonb, $3, $4, $5)
         on conflict (id) do update set state = 'stopped', stopped = excluded.stopped`,
        values,
      );
      return;
    }
    const inserted = await tx.query(
      "insert into simulator_traffic (id, options, state, started, stopped) values ($1, $2::jsonb, $3, $4, $5) on conflict (id) do nothing returning id",
      values,
    );
    if (inserted.length > 0) {
      await tx.query("update simulator_traffic set state = 'stopped', stopped = $2 where state = 'running' and id <> $1", [run.id, run.started]);
    }
  });
}

/**
 * A run as the simulator.settings topic carries it (Avro has nulls where the options leave fields out).
 * To a network a completed run is one that no longer generates: it travels as stopped.
 */
export const runSetting = (run: TrafficRun): NonNullable<SimulatorSetting["run"]> => ({
  ...run,
  state: run.state === "running" ? "running" : "stopped",
  options: { ...run.options, durationSeconds: run.options.durationSeconds ?? null, programId: run.options.programId ?? null },
});

/** The run a simulator.settings message carries, its options checked as the /admin route checks them. */
export function runOfSetting(run: NonNullable<SimulatorSetting["run"]>): { run: TrafficRun } | { error: string } {
  const { durationSeconds, programId, ...rest } = run.options;
  // Plain copies: values decoded off Kafka are Avro records, whose methods a strict schema takes for unknown fields.
  const options = trafficOptionsSchema.safeParse({
    ...rest,
    schemes: [...rest.schemes],
    targetingTags: { ...rest.targetingTags },
    ...(durationSeconds === null ? {} : { durationSeconds }),
    ...(programId === null ? {} : { programId }),
  });
  if (!options.success) return { error: `run.options: ${options.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}` };
  return { run: { id: run.id, state: run.state, started: run.started, stopped: run.stopped, options: options.data } };
}

export interface SchemeCounts {
  purchases: number;
  /** Null while the run has no end. */
  planned: number | null;
  /** Messages published, duplicates counted, by kind. */
  sent: Record<CountedKind, number>;
  /** Messages a drop fault kept from the bus. */
  dropped: number;
  /** Messages published a second time by a duplicate fault. */
  duplicated: number;
}

/** What the network has done for a run so far: the report it publishes on simulator.traffic.progress. */
export async function runProgress(db: Db, scheme: Scheme, runId: string, now: Date): Promise<TrafficProgress> {
  const [row] = await db.query<{ purchases: number; dropped: number; duplicated: number } & Record<CountedKind, number>>(
    "select purchases, auth, clearing, refund, void, dropped, duplicated from simulator_run_counts where run_id = $1 and scheme = $2",
    [runId, scheme],
  );
  return {
    runId,
    scheme,
    purchases: row?.purchases ?? 0,
    sent: { auth: row?.auth ?? 0, clearing: row?.clearing ?? 0, refund: row?.refund ?? 0, void: row?.void ?? 0 },
    dropped: row?.dropped ?? 0,
    duplicated: row?.duplicated ?? 0,
    reportedAt: now.toISOString(),
  };
}

/** The service clock's total advance as the service last announced it (0 before any). */
export async function readClockOffset(db: Db): Promise<number> {
  const [row] = await db.query<{ offset_ms: number }>("select offset_ms from simulator_clock");
  return row?.offset_ms ?? 0;
}

/** Keeps an announced advance unless a larger one is kept already. */
export async function saveClockOffset(db: Db, offsetMs: number): Promise<void> {
  await db.query(
    `insert into simulator_clock (id, offset_ms) values (true, $1)
     on conflict (id) do update set offset_ms = greatest(simulator_clock.offset_ms, excluded.offset_ms)`,
    [offsetMs],
  );
}

/** The store's identity, made with it (simulators/host/migrations): what names its settings consumer group. */
export async function storeId(db: Db): Promise<string> {
  const [row] = await db.query<{ store_id: string }>("select store_id from simulator_store");
  return row!.store_id;
}
