// Opens what every role needs — database (migrated), clock, logger, rate limiter, bus — from the config.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "./config/index.ts";
import { configuredClock } from "./clock/index.ts";
import { shareClock } from "./clock/shared.ts";
import { clockOffsetStore } from "./services/clock-offset.ts";
import { openPglite, openPostgres, type Db } from "./services/db.ts";
import { migrate } from "./services/migrate.ts";
import { createLogger } from "./log.ts";
import { createRateLimiter } from "./api/middleware/rate-limit.ts";
import type { Services } from "./api/context.ts";
import { randomBase62 } from "./services/ids.ts";
import { lazyBus, openBus } from "./bus/index.ts";
import { createSimulatorControl } from "../simulators/host/control.ts";
import { runDue } from "./lifecycle/due.ts";
import { createHealth } from "./health/index.ts";

/**
 * Whether this process keeps an embedded part in DATA_DIR — PGlite, or (when it uses the bus) the
 * embedded log — and so must hold DATA_DIR's lock (src/data-dir-lock.ts).
 */
export const usesDataDir = (config: Config, { bus }: { bus: boolean }) => !config.DATABASE_URL || (bus && !config.KAFKA_BROKERS);

async function openDb(config: Config): Promise<Db> {
  return config.DATABASE_URL ? openPostgres(config.DATABASE_URL) : openPglite(config.DATA_DIR);
}

export async function openServices(config: Config): Promise<Services> {
  const db = await openDb(config);
  await migrate(db);
  const offsets = clockOffsetStore(db);
  const clock = configuredClock(config, await offsets.read());
  // Work that falls due on service time runs whenever the clock is advanced, in every role.
  clock.onAdvance((now) => runDue(db, now));
  const log = createLogger(config);
  const bus = lazyBus(() => openBus(config, clock, log), config.KAFKA_BROKERS ? "kafka" : "embedded");
  const services = assembleServices({ config, db, clock, bus, log });
  // While PostgreSQL is away the clock keeps its own time and stops polling; the health watch says so once.
  // An advance made here is announced to the simulators too: a simulator role shares no database with the service.
  const announced = {
    read: offsets.read,
    async write(offsetMs: number) {
      await offsets.write(offsetMs);
      await services.simulators.announceClock(offsetMs);
    },
  };
  shareClock(
    clock,
    announced,
    (err) => {
      if (!services.health.report(err)) log.error({ err }, "service clock sync failed");
    },
    { paused: () => !services.health.postgres.up },
  );
  return services;
}

/** The services from their parts; what is derived (logger, rate limiter, simulator control, health) is made here. */
export function assembleServices(parts: Pick<Services, "config" | "db" | "clock" | "bus"> & { log?: Services["log"] }): Services {
  const { config, db, clock, bus } = parts;
  const log = parts.log ?? createLogger(config);
  return {
    config,
    db,
    clock,
    log,
    limiter: createRateLimiter(config.RATE_LIMIT_PER_SECOND, config.RATE_LIMIT_BURST),
    bus,
    simulators: createSimulatorControl({ db, bus, clock }),
    health: createHealth({ db, kafkaBrokers: config.KAFKA_BROKERS, log }),
  };
}

/**
 * Local credentials in DATA_DIR/credentials.json (mode 0600): the generated admin token and the demo
 * account's keys, so `npm start` can print them again. The database keeps only key digests.
 */
export interface LocalCredentials {
  adminToken?: string;
  demo?: { accountId: string; test: string; live: string };
}

const credentialsPath = (config: Config) => join(config.DATA_DIR, "credentials.json");

export function readCredentials(config: Config): LocalCredentials {
  const path = credentialsPath(config);
  return existsSync(path) ? (JSON.parse(readFileSync(path, "utf8")) as LocalCredentials) : {};
}

export function writeCredentials(config: Config, credentials: LocalCredentials): void {
  mkdirSync(config.DATA_DIR, { recursive: true });
  const path = credentialsPath(config);
  writeFileSync(path, JSON.stringify(credentials, null, 2) + "\n", { mode: 0o600 });
  chmodSync(path, 0o600);
}

/** After a rotation of the demo account's key, keeps credentials.json current for `npm start`, `trigger` and `listen`. */
export function rememberDemoKey(config: Config, accountId: string, environment: "test" | "live", key: string): void {
  const credentials = readCredentials(config);
  if (credentials.demo?.accountId !== accountId) return;
  writeCredentials(config, { ...credentials, demo: { ...credentials.demo, [environment]: key } });
}

/** ADMIN_TOKEN when set; otherwise the token generated on the first start and kept locally. */
export function resolveAdminToken(config: Config): { token: string; generated: boolean } {
  if (config.ADMIN_TOKEN) return { token: config.ADMIN_TOKEN, generated: false };
  const credentials = readCredentials(config);
  if (credentials.adminToken) return { token: credentials.adminToken, generated: false };
  const token = `adm_${randomBase62(32)}`;
  writeCredentials(config, { ...credentials, adminToken: token });
  return { token, generated: true };
}
