// What every request can reach: the runtime (through Hono variables) and, once authenticated,
// the caller's account and environment. Verbs take a Ctx built from these.
import type { KeyOwner } from "../services/accounts/index.ts";
import { environmentView } from "../platform/clock/environment.ts";
import type { Ctx } from "../platform/context.ts";
import type { Logger } from "pino";
import type { Config } from "../platform/config/index.ts";
import type { Clock } from "../platform/clock/index.ts";
import type { Db } from "../platform/db.ts";
import type { Bus } from "../platform/bus/bus.ts";
import type { Health } from "../platform/health/index.ts";
import type { Metrics } from "../platform/metrics/index.ts";
import type { SimulatorControl } from "../services/simulator-control/index.ts";
import type { AccountLimiter, AddressLimiters } from "./middleware/rate-limit.ts";
import type { RequestLog } from "../services/request-log/index.ts";
import type { Admission } from "./admission.ts";

export type { Ctx };

/** What the API is given: the composition root (src/app) opens these and passes them in as its Runtime. */
export interface ApiRuntime {
  config: Config;
  db: Db;
  clock: Clock;
  log: Logger;
  /** RATE_LIMIT_PER_SECOND / RATE_LIMIT_BURST per account, shared by every api process through the database. */
  limiter: AccountLimiter;
  /** Per client address, in this process: failed authentications and sign-ins, /admin. */
  addressLimits: AddressLimiters;
  bus: Bus;
  /** Faults, traffic and test transactions of the scheme simulators, wherever they run. */
  simulators: SimulatorControl;
  /** PostgreSQL's and the bus's state as this process sees them; readiness and the 503 mapping use it. */
  health: Health;
  /** This process's Prometheus registry and the timings the parts report to it (served at /metrics). */
  metrics: Metrics;
  /** Every /v1 request a key made, written in batches off the request path (GET /v1/requests reads it). */
  requestLog: RequestLog;
  /** The front door's fair admission of test purchases in this process, with backpressure from the stream. */
  admission: Admission;
}

/**
 * Who calls: the account (a sandbox is an account with a parent), its environment, the key's id, and the
 * environment's clock over the service clock.
 */
export type Caller = KeyOwner;

export interface AppEnv {
  Variables: {
    runtime: ApiRuntime;
    requestId: string;
    caller: Caller;
    /**
     * Whose key the request presented, once it is known, even when the request is then refused (a rate limit,
     * the tier, a sandbox not found): the request log records the request in that environment.
     */
    keyHolder: Caller | undefined;
    /** performance.now() when the request arrived (metrics: the hops a request starts). */
    receivedMs: number;
  };
}

/** The account a caller's requests count toward, in rate limits and fair turns: a sandbox's owner for a sandbox. */
export const tenantOf = (caller: Caller): string => caller.parentId ?? caller.account.id;

export const ctxOf = (services: ApiRuntime, caller: Caller): Ctx => ({
  db: services.db,
  clock: environmentView(services.clock, caller.clock),
  accountId: caller.account.id,
  live: caller.live,
  tenant: tenantOf(caller),
  bus: services.bus,
});
