// The operator's settings for the simulators, kept in the database so every process sees them: faults
// per scheme and traffic runs (options, state, and what each run has sent so far).
// zod through @hono/zod-openapi, so the /admin routes can name these schemas in the OpenAPI document.
import { z } from "@hono/zod-openapi";
import type { SimulatorDb as Db } from "./store.ts";
import { NO_FAULTS, faultsSchema, type Faults } from "./faults.ts";
import { DEFAULT_MIX, type TrafficMix } from "./generator.ts";
import { SCHEMES } from "../../src/domain/scheme.ts";
import type { MessageKind, Scheme } from "./types.ts";

export async function readFaults(db: Db, scheme: Scheme): Promise<Faults> {
  const [row] = await db.query<{ faults: unknown }>("select faults from simulator_faults where scheme = $1", [scheme]);
  // Settings written by an older version may lack newer fields: those take their defaults.
  return row ? faultsSchema.parse({ ...NO_FAULTS, ...(row.faults as object) }) : { ...NO_FAULTS };
}

export async function writeFaults(db: Db, scheme: Scheme, faults: Faults, now: Date): Promise<void> {
  await db.query(
    `insert into simulator_faults (scheme, faults, updated) values ($1, $2::jsonb, $3)
     on conflict (scheme) do update set faults = excluded.faults, updated = excluded.updated`,
    [scheme, JSON.stringify(faults), now.toISOString()],
  );
}

const share = (what: string) =>
  z.number().min(0, "must be between 0 and 1").max(1, "must be between 0 and 1").describe(`Share (0 to 1) of purchases ${what}.`);

export const trafficOptionsSchema = z
  .strictObject({
    rate: z
      .number()
      .positive("must be greater than 0")
      .max(1000, "must be at most 1000")
      .describe("Purchases per second (real time), shared equally by the schemes of the run."),
    seed: z.number().int("must be a whole number").min(0, "must be 0 or more").describe("The same seed and population give the same stream."),
    durationSeconds: z
      .number()
      .positive("must be greater than 0")
      .max(604_800, "must be at most 604800 (a week)")
      .optional()
      .describe("Stop after rate × durationSeconds purchases; without it the run goes on until stopped."),
    schemes: z
      .array(z.enum(SCHEMES, { message: "must be visa, mastercard or amex" }))
      .min(1, "must name at least one scheme")
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
  })
  .superRefine((o, ctx) => {
    if (o.unknownMerchants + o.notOnboardedLocations > 1) {
      ctx.addIssue({ code: "custom", path: ["notOnboardedLocations"], message: "unknownMerchants + notOnboardedLocations must be at most 1" });
    }
    const t = o.targetingTags;
    if (t.new + t.lapsed + t.existing > 1) {
      ctx.addIssue({ code: "custom", path: ["targetingTags"], message: "the shares must add up to at most 1" });
    }
  });

export type TrafficOptions = z.infer<typeof trafficOptionsSchema>;

export const mixOf = (o: TrafficOptions): TrafficMix => ({
  unenrolledCards: o.unenrolledCards,
  unknownMerchants: o.unknownMerchants,
  notOnboardedLocations: o.notOnboardedLocations,
  targetingTags: o.targetingTags,
});

/** How many purchases one scheme's share of a run makes in all, or null when it runs until stopped. */
export const plannedPurchases = (o: TrafficOptions): number | null =>
  o.durationSeconds === undefined ? null : Math.floor((o.rate / o.schemes.length) * o.durationSeconds);

export interface TrafficRun {
  id: string;
  options: TrafficOptions;
  state: "running" | "stopped";
  started: string;
  stopped: string | null;
}

interface RunRow {
  id: string;
  options: TrafficOptions;
  state: TrafficRun["state"];
  started: Date;
  stopped: Date | null;
}

const toRun = (r: RunRow): TrafficRun => ({
  id: r.id,
  options: r.options,
  state: r.state,
  started: r.started.toISOString(),
  stopped: r.stopped?.toISOString() ?? null,
});

export async function latestRun(db: Db): Promise<TrafficRun | undefined> {
  const [row] = await db.query<RunRow>("select id, options, state, started, stopped from simulator_traffic order by seq desc limit 1");
  return row && toRun(row);
}

/** Starts a run; a run still going is stopped first: one run at a time. */
export async function insertRun(db: Db, id: string, options: TrafficOptions, now: Date): Promise<void> {
  await db.tx(async (tx) => {
    await tx.query("update simulator_traffic set state = 'stopped', stopped = $1 where state = 'running'", [now.toISOString()]);
    await tx.query("insert into simulator_traffic (id, options, state, started) values ($1, $2::jsonb, 'running', $3)", [
      id,
      JSON.stringify(options),
      now.toISOString(),
    ]);
  });
}

export async function stopRuns(db: Db, now: Date): Promise<void> {
  await db.query("update simulator_traffic set state = 'stopped', stopped = $1 where state = 'running'", [now.toISOString()]);
}

export interface SchemeCounts {
  purchases: number;
  /** Null while the run has no end. */
  planned: number | null;
  /** Messages published, duplicates counted, by kind. */
  sent: Record<MessageKind, number>;
  /** Messages a drop fault kept from the bus. */
  dropped: number;
  /** Messages published a second time by a duplicate fault. */
  duplicated: number;
}

export async function runCounts(db: Db, run: TrafficRun): Promise<Partial<Record<Scheme, SchemeCounts>>> {
  const purchases = await db.query<{ scheme: Scheme; n: number }>(
    "select scheme, count(*)::int8 as n from simulator_purchases where run_id = $1 group by scheme",
    [run.id],
  );
  const messages = await db.query<{ scheme: Scheme; kind: MessageKind; sent: number; dropped: number; duplicated: number }>(
    `select m.scheme, m.kind, coalesce(sum(m.copies), 0)::int8 as sent,
            count(*) filter (where m.delivery = 'dropped')::int8 as dropped,
            count(*) filter (where m.copies > 1)::int8 as duplicated
     from simulator_messages m join simulator_purchases p on p.id = m.purchase_id
     where p.run_id = $1 group by m.scheme, m.kind`,
    [run.id],
  );
  const out: Partial<Record<Scheme, SchemeCounts>> = {};
  for (const scheme of run.options.schemes) {
    const counts: SchemeCounts = {
      purchases: purchases.find((p) => p.scheme === scheme)?.n ?? 0,
      planned: plannedPurchases(run.options),
      sent: { auth: 0, clearing: 0, refund: 0, void: 0 },
      dropped: 0,
      duplicated: 0,
    };
    for (const m of messages.filter((m) => m.scheme === scheme)) {
      counts.sent[m.kind] = m.sent;
      counts.dropped += m.dropped;
      counts.duplicated += m.duplicated;
    }
    out[scheme] = counts;
  }
  return out;
}
