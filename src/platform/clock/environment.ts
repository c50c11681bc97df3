// An environment's time: the service clock, or a sandbox's own clock over it. An environment is what a
// key opens (an account's test and live, each sandbox's test and live); only sandboxes move their own.
import type { Clock } from "./index.ts";
import type { Db } from "../db.ts";

/** A sandbox's clock over the service clock; the account's own environments have the neutral one. */
export interface EnvironmentClock {
  /** Frozen: time passes only when an advance moves it (the sandbox's own, or the operator's). */
  frozen: boolean;
  /**
   * Following: milliseconds ahead of (or, started at an earlier instant, behind) the service time.
   * Frozen: the instant in epoch milliseconds less the service clock's total advance.
   */
  offsetMs: number;
}

/** The service clock unchanged: every account's own environments. */
export const SERVICE_TIME: EnvironmentClock = { frozen: false, offsetMs: 0 };

export const followsService = (env: EnvironmentClock) => !env.frozen && env.offsetMs === 0;

/** The environment's time now. The same formula is `env_now()` in SQL (migration 027), which due work compares with. */
export const environmentNow = (service: Pick<Clock, "now" | "offsetMs">, env: EnvironmentClock): Date =>
  env.frozen ? new Date(service.offsetMs + env.offsetMs) : new Date(service.now().getTime() + env.offsetMs);

/** The clock an environment starts with: at the service time, at `at` (following from there), or frozen at `at` or now. */
export function startingClock(service: Pick<Clock, "now" | "offsetMs">, start: { at?: Date; frozen?: boolean }): EnvironmentClock {
  const at = start.at ?? service.now();
  return start.frozen
    ? { frozen: true, offsetMs: at.getTime() - service.offsetMs }
    : { frozen: false, offsetMs: at.getTime() - service.now().getTime() };
}

/** A read-only view of an environment's time, for what takes a Clock to read the time from. */
export const environmentView = (service: Clock, env: EnvironmentClock): Clock =>
  followsService(env)
    ? service
    : {
        get speed() {
          return env.frozen ? 0 : service.speed;
        },
        get mode() {
          return env.frozen ? "frozen" : service.mode;
        },
        get offsetMs() {
          return service.offsetMs;
        },
        now: () => environmentNow(service, env),
        advance: () => Promise.reject(new RangeError("an environment's clock is moved through its sandbox (POST /v1/clock/advance)")),
        onAdvance: (listener) => service.onAdvance(listener),
      };

/**
 * The moment due work compares with: the service time, its total advance (for `env_now()`), and the latest
 * time of any environment, which bounds each sweep's index scan before the per-row comparison.
 */
export interface DueTime {
  now: Date;
  serviceOffsetMs: number;
  latest: Date;
}

/** The due time now: one statement finds the latest environment time (the few sandboxes with a clock of their own). */
export async function dueTime(db: Pick<Db, "query">, service: Pick<Clock, "now" | "offsetMs">): Promise<DueTime> {
  const now = service.now();
  const [row] = await db.query<{ latest: Date | null }>(
    "select max(env_now(id, $1, $2)) as latest from accounts where clock_frozen or clock_offset_ms <> 0",
    [now, service.offsetMs],
  );
  const latest = row?.latest && row.latest > now ? row.latest : now;
  return { now, serviceOffsetMs: service.offsetMs, latest };
}

/** The earliest time of any environment (a sandbox started at an earlier instant), or the service time. */
export async function earliestTime(db: Pick<Db, "query">, service: Pick<Clock, "now" | "offsetMs">): Promise<Date> {
  const now = service.now();
  const [row] = await db.query<{ earliest: Date | null }>(
    "select min(env_now(id, $1, $2)) as earliest from accounts where clock_frozen or clock_offset_ms <> 0",
    [now, service.offsetMs],
  );
  return row?.earliest && row.earliest < now ? row.earliest : now;
}

/**
 * SQL that is true when `column` is due in its row's environment: the index-friendly bound on the latest
 * environment time, then the row's own. The DueTime's parameters (`dueParams`) are $p, $p+1 and $p+2.
 */
export const dueIn = (column: string, account: string, p: number) =>
  `${column} <= $${p + 2} and ${column} <= env_now(${account}, $${p}, $${p + 1})`;

/** The SQL of a row's environment time (parameters as `dueIn`'s), for the `updated` of what due work changes. */
/**
 * SQL joining each row's environment as `alias` by its account column, with `inSandbox`: whether the environment is a
 * sandbox (has a clock of its own). A feature whose rows need that joins through here, as the clock's columns are the account row's.
 */
export const environmentJoin = (alias: string, account: string) => ({
  join: `join accounts ${alias} on ${alias}.id = ${account}`,
  inSandbox: `${alias}.parent_id is not null`,
});

export const envNowSql = (account: string, p: number) => `env_now(${account}, $${p}, $${p + 1})`;

/** A DueTime's parameters, in the order `dueIn` and `envNowSql` name them. */
export const dueParams = (t: DueTime): [Date, number, Date] => [t.now, t.serviceOffsetMs, t.latest];
