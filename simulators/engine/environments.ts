// Sandboxes at a network: each keeps its state apart (its cards, merchants, purchases and schedule carry its
// id) and runs on a clock of its own over the service clock, which the service announces (a CLOCK setting
// with an environment) and the network keeps in its store. An environment's clocks are read once per batch,
// and only for batches that name a sandbox: the accounts' own environments cost nothing more.
import type { SimulatorDb as Db } from "./db.ts";
import type { Clock } from "../../src/platform/clock/index.ts";
import { SERVICE_TIME, environmentNow, environmentView, type EnvironmentClock } from "../../src/platform/clock/environment.ts";
import type { Scheme } from "./types.ts";

/** How the store keys the accounts' own environments, which follow the service clock. */
export const SERVICE_ENVIRONMENT = "";

/** The store's key for an environment as the bus names it (a sandbox id, or null). */
export const environmentKey = (environment: string | null | undefined): string => environment ?? SERVICE_ENVIRONMENT;

/** A sandbox as the network knows it: its clock, or gone (deleted: nothing of it is answered any more). */
export interface EnvironmentState {
  clock: EnvironmentClock;
  forgotten: boolean;
}

/** The environments a batch names, as the store holds them: one statement, none when all are the service's. */
export async function readEnvironments(db: Db, keys: Iterable<string>): Promise<Map<string, EnvironmentState>> {
  const sandboxes = [...new Set(keys)].filter((k) => k !== SERVICE_ENVIRONMENT);
  if (sandboxes.length === 0) return new Map();
  const rows = await db.query<{ environment: string; frozen: boolean; offset_ms: number; forgotten: boolean }>(
    "select environment, frozen, offset_ms, forgotten from simulator_environments where environment = any($1::text[])",
    [sandboxes],
  );
  return new Map(rows.map((r) => [r.environment, { clock: { frozen: r.frozen, offsetMs: r.offset_ms }, forgotten: r.forgotten }]));
}

/**
 * The clock an environment's work runs on: the service clock, or the sandbox's over it. A sandbox the
 * network has not heard the clock of yet (its setting is still on its way) runs on the service clock.
 */
export function clockOf(service: Clock, environments: Map<string, EnvironmentState>, key: string): Clock {
  const state = environments.get(key);
  return state ? environmentView(service, state.clock) : service;
}

/** The environment's time now (see clockOf). */
export const timeIn = (service: Clock, environments: Map<string, EnvironmentState>, key: string): Date =>
  environmentNow(service, environments.get(key)?.clock ?? SERVICE_TIME);

/** Whether the environment was deleted: what arrives for it is dropped, unanswered. */
export const forgotten = (environments: Map<string, EnvironmentState>, key: string): boolean => environments.get(key)?.forgotten ?? false;

/**
 * Keeps a sandbox's clock as the service announced it. Time never goes back: a redelivered older setting
 * (a smaller offset) leaves the clock as it is, and a forgotten sandbox stays forgotten.
 */
export async function saveEnvironmentClock(db: Db, environment: string, clock: EnvironmentClock, now: Date): Promise<void> {
  await db.query(
    `insert into simulator_environments (environment, frozen, offset_ms, updated) values ($1, $2, $3, $4)
     on conflict (environment) do update set frozen = excluded.frozen, updated = excluded.updated,
       offset_ms = case when simulator_environments.frozen = excluded.frozen then greatest(simulator_environments.offset_ms, excluded.offset_ms)
                        else excluded.offset_ms end
     where not simulator_environments.forgotten`,
    [environment, clock.frozen, clock.offsetMs, now.toISOString()],
  );
}

/**
 * Forgets everything this network knows of a deleted sandbox — its cards, merchants, purchases and their
 * messages, its schedule — in one transaction, and marks it forgotten for good.
 */
export async function forgetEnvironment(db: Db, scheme: Scheme, environment: string, now: Date): Promise<void> {
  await db.tx(async (tx) => {
    await tx.query(
      `insert into simulator_environments (environment, frozen, offset_ms, forgotten, updated) values ($1, false, 0, true, $2)
       on conflict (environment) do update set forgotten = true, updated = excluded.updated`,
      [environment, now.toISOString()],
    );
    for (const table of ["simulator_due", "simulator_purchases", "simulator_merchants", "simulator_cards"]) {
      await tx.query(`delete from ${table} where scheme = $1 and environment = $2`, [scheme, environment]);
    }
  });
}
