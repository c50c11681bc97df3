// What a service verb needs: who asks, in which environment, and the handles to work with. Every
// transport builds one (the API from the authenticated caller, the CLI and the workers from their own).
import type { Clock } from "./clock/index.ts";
import type { Bus } from "./bus/bus.ts";
import type { Db } from "./db.ts";

export interface Ctx {
  db: Db;
  clock: Clock;
  accountId: string;
  live: boolean;
  /**
   * Whom the front door's fair turns count this work toward: the account, or a sandbox's owner (as the rate
   * limit does). Absent for work no request asked for (the workers, the CLI): it counts toward `accountId`.
   */
  tenant?: string;
  /** Where verbs publish what goes to the networks; without it the workers send it on their next pass. */
  bus?: Bus;
}
