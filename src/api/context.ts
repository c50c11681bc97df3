// What every request can reach: the services (through Hono variables) and, once authenticated,
// the caller's account and environment. Verbs take a Ctx built from these.
import type { Account } from "../services/accounts/index.ts";
import type { Ctx } from "../platform/context.ts";
import type { Services } from "../app/services.ts";

export type { Ctx };

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
    /** performance.now() when the request arrived (metrics: the hops a request starts). */
    receivedMs: number;
  };
}

export const ctxOf = (services: Services, caller: Caller): Ctx => ({
  db: services.db,
  clock: services.clock,
  accountId: caller.account.id,
  live: caller.live,
  bus: services.bus,
});
