// What every request can reach: the services (through Hono variables) and, once authenticated,
// the caller's account and environment. Verbs take a Ctx built from these.
import type { Logger } from "pino";
import type { Config } from "../config/index.ts";
import type { Clock } from "../clock/index.ts";
import type { Db } from "../services/db.ts";
import type { Account } from "../services/accounts.ts";
import type { RateLimiter } from "./middleware/rate-limit.ts";
import type { Bus } from "../bus/bus.ts";
import type { SimulatorControl } from "../../simulators/host/control.ts";
import type { Health } from "../health/index.ts";
import type { Ctx } from "../services/context.ts";

export type { Ctx };

export interface Services {
  config: Config;
  db: Db;
  clock: Clock;
  log: Logger;
  limiter: RateLimiter;
  bus: Bus;
  /** Faults, traffic and test transactions of the scheme simulators, wherever they run. */
  simulators: SimulatorControl;
  /** PostgreSQL's and the bus's state as this process sees them; readiness and the 503 mapping use it. */
  health: Health;
}

export interface Caller {
  account: Account;
  live: boolean;
  keyId: string;
}

export interface AppEnv {
  Variables: {
    services: Services;
    requestId: string;
    caller: Caller;
  };
}

export const ctxOf = (services: Services, caller: Caller): Ctx => ({
  db: services.db,
  clock: services.clock,
  accountId: caller.account.id,
  live: caller.live,
  bus: services.bus,
});
