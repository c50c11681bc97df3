// The composition root: one process's services, roles and servers, built the same way for `start`, each
// role, the CLI's tasks, the test harness and the benchmarks, and stopped through one path in the reverse
// order they started (src/app/shutdown.ts).
import type { Config } from "../platform/config/index.ts";
import { serveHealth } from "../platform/health/server.ts";
import { lockDataDir, usesDataDir, type DataDirLock } from "./data-dir-lock.ts";
import { secureDataDir, tightenDataDir } from "./data-dir.ts";
import { serveApi, type Listening } from "./http.ts";
import { startRoles, type Role, type RoleOptions, type RunningRoles } from "./roles.ts";
import { assembleRuntime, openRuntime, type Runtime } from "./runtime.ts";
import { createShutdown, drainOnSignal, type Shutdown } from "./shutdown.ts";

export interface System {
  readonly services: Runtime;
  /** The migrations opening the system applied, oldest first (none when the caller opened the database). */
  readonly migrations: readonly string[];
  /** Starts background roles; they stop after the servers and before the bus. */
  startRoles(roles: readonly Role[], options?: RoleOptions): Promise<RunningRoles>;
  /** Serves the API on PORT; a DATA_DIR lock records the URL for the CLI's tasks. */
  serveApi(adminToken: string): Promise<Listening>;
  /** Serves the role's health port (health, readiness, /metrics) when HEALTH_PORT is set; the port, or undefined. */
  serveHealth(role: string): Promise<number | undefined>;
  /** Stops every part in the reverse order it started: servers, roles, clock sync, request log, health watch, bus, database, lock. */
  close(): Promise<void>;
  /**
   * On SIGTERM or SIGINT: close, and exit 0 once every part has stopped, 1 when one failed or when
   * DRAIN_TIMEOUT_SECONDS ran out first (whatever was still running is abandoned).
   */
  closeOnSignal(): void;
}

/**
 * A process's system from its config: DATA_DIR's lock when it keeps an embedded part there (for `command`,
 * which a refused second process names), the database (migrated), the service clock shared through it, and
 * a bus that connects on first use.
 */
export async function openSystem(config: Config, { command, bus }: { command: string; bus: boolean }): Promise<System> {
  const shutdown = createShutdown();
  const dataDir = usesDataDir(config, { bus });
  if (dataDir) secureDataDir(config.DATA_DIR);
  const lock = dataDir ? lockDataDir(config.DATA_DIR, command) : undefined;
  if (lock) shutdown.add("DATA_DIR lock", () => lock.release());
  let opened: Awaited<ReturnType<typeof openRuntime>>;
  try {
    opened = await openRuntime(config);
    // PGlite's initdb unpacks its files 0666, whatever the umask.
    if (dataDir) tightenDataDir(config.DATA_DIR);
  } catch (err) {
    await shutdown.run();
    throw err;
  }
  stopRuntimeOnClose(shutdown, opened.services);
  shutdown.add("clock sync", opened.stopClockSync);
  return systemOf(opened.services, opened.migrations, shutdown, lock);
}

/** Runs `task` on a system of its own (no bus), closed afterwards whether the task succeeded or not. */
export async function withSystem<T>(config: Config, command: string, task: (system: System) => Promise<T>): Promise<T> {
  const system = await openSystem(config, { command, bus: false });
  try {
    return await task(system);
  } finally {
    await system.close();
  }
}

/** A system on a database, clock and bus the caller opened (the test harness, benchmarks); close closes them. */
export function assembleSystem(parts: Parameters<typeof assembleRuntime>[0]): System {
  const shutdown = createShutdown();
  const services = assembleRuntime(parts);
  stopRuntimeOnClose(shutdown, services);
  return systemOf(services, [], shutdown);
}

function stopRuntimeOnClose(shutdown: Shutdown, services: Runtime) {
  shutdown.add("database", () => services.db.close());
  shutdown.add("bus", () => services.bus.close());
  shutdown.add("health watch", () => services.health.stop());
  // After the servers (no request adds to it any more), before the database: what it holds is written.
  shutdown.add("request log", () => services.requestLog.close());
}

function systemOf(services: Runtime, migrations: readonly string[], shutdown: Shutdown, lock?: DataDirLock): System {
  const { config, log } = services;
  return {
    services,
    migrations,
    async startRoles(roles, options) {
      const running = await startRoles(services, roles, options);
      shutdown.add("roles", () => running.stop());
      return running;
    },
    async serveApi(adminToken) {
      const server = await serveApi(services, adminToken);
      shutdown.add("http server", () => server.close());
      lock?.setUrl(server.url);
      return server;
    },
    async serveHealth(role) {
      if (!config.HEALTH_PORT) return undefined;
      const server = await serveHealth(services.health, config.HEALTH_PORT, role, services.metrics, config.HOST);
      shutdown.add("health port", () => server.close());
      return config.HEALTH_PORT;
    },
    close: () => shutdown.run(),
    closeOnSignal: () => drainOnSignal(shutdown, { log, timeoutSeconds: config.DRAIN_TIMEOUT_SECONDS }),
  };
}
