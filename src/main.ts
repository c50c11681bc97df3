// The Cardlink command line: `start` runs everything in one process; the other commands run one role
// or one operator task. `npm run cardlink -- <command>`.
import { parseArgs } from "node:util";
import { serve } from "@hono/node-server";
import { ConfigError, loadConfig, type Config } from "./config/index.ts";
import { resolve as resolvePath } from "node:path";
import { Server } from "node:net";
import type { IncomingMessage, ServerResponse } from "node:http";
import { openServices, readCredentials, resolveAdminToken, usesDataDir, writeCredentials } from "./runtime.ts";
import { DataDirLockedError, lockDataDir, lockHolder, type DataDirLock } from "./data-dir-lock.ts";
import { createApp } from "./api/app.ts";
import { createAccount, getAccount } from "./services/accounts.ts";
import { migrate } from "./services/migrate.ts";
import type { Services } from "./api/context.ts";
import { SIMULATOR_USAGE, faultsCommand, simulateCommand, simulatorRole, trafficCommand } from "../simulators/host/cli.ts";
import { MAX_SEED_COUNT, seedMidInsights } from "./services/mid-insights-seed.ts";
import { UUID_PATTERN } from "./services/ids.ts";
import { ALL_ROLES, startRoles } from "./roles.ts";
import { listenCommand } from "./cli/listen.ts";
import { triggerCommand } from "./cli/trigger.ts";
import { keysCommand } from "./cli/keys.ts";
import { CommandError } from "./cli/connection.ts";
import { serveHealth } from "./health/server.ts";

const USAGE = `Usage: cardlink <command> [options]

Commands:
  help                      this list
  start                     API and every background role in one process (embedded defaults)
  api                       the HTTP API only
  qualifier                 the streaming qualifier (on Kafka)
  dispatcher                the webhook dispatcher
  workers                   due work on the service clock (consents, marketplace, offboarding, return periods)
                            and the network lifecycle: onboarding requests, look-ups, enrolments, replies
  migrate                   apply database migrations and exit
  listen [--key K] [--program ID] [--events E,…] [--forward-to URL] [--port 4000] [--keep] [--url URL]
                            receive webhooks locally: registers its own hooks for the events (every one unless
                            --events) on the program (the fixtures program of trigger unless --program), verifies
                            each signature, prints one line per event, forwards the signed request unchanged
                            with --forward-to and prints the answer; removes its hooks on exit unless --keep
  listen --secret whsec_… [--secret …] [--port 4000] [--forward-to URL]
                            receive deliveries of hooks you registered yourself, printing each verified body
  trigger <event> [--key K] [--url URL]
                            fire transaction.auth.qualified, transaction.auth, transaction.clearing,
                            transaction.clearing.qualified, transaction.refund, location.status, offer.extended,
                            missing-transaction-request.succeeded or missing-transaction-request.failed
                            through the simulators, the qualifier and the dispatcher on a fixtures program
                            (made on first use); prints the event id, export lines of the ids, the delivery
  keys list|rotate|revoke --account ID [--env test|live] [--key-id ID] [--url URL]
                            list an account's keys, rotate the key of an environment (the old one answers 401
                            at once) or revoke one key; needs ADMIN_TOKEN or the one npm start keeps
  The key defaults to the demo test key npm start keeps in DATA_DIR/credentials.json; the server to --url,
  else CARDLINK_URL, else http://localhost:3000.
  account create [--name N] [--tier standard|premium] [--email E] [--json]
                            create an account with test and live secret keys
  mid-insights seed --program ID --count N [--seed S]
                            generate N MIDs with insights (and their brands and locations) in a live program
${SIMULATOR_USAGE}`;

async function ensureDemoAccount(services: Services, config: Config) {
  const credentials = readCredentials(config);
  if (credentials.demo && (await getAccount(services.db, credentials.demo.accountId))) return credentials.demo;
  const account = await createAccount(services.db, { name: "Demo publisher", tier: "premium" }, services.clock.now());
  const demo = { accountId: account.id, ...account.keys };
  writeCredentials(config, { ...readCredentials(config), demo });
  return demo;
}

interface Listening {
  url: string;
  /** Stops accepting connections and resolves once every request in flight has been answered. */
  close(): Promise<void>;
}

function listen(services: Services, adminToken: string): Promise<Listening> {
  const app = createApp(services, { adminToken });
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, port: services.config.PORT, hostname: "0.0.0.0" }, (info) =>
      resolve({ url: `http://localhost:${info.port}`, close }),
    );
    server.once("error", reject);
    // Node's own close() also destroys the connections it deems idle, and with them requests a client
    // has sent that the server has not read yet (they reset). A drain here only stops listening: every
    // answer from then on says `Connection: close`, and idle connections end at the keep-alive timeout.
    const open = new Set<ServerResponse>();
    let closing = false;
    server.on("request", (_req: IncomingMessage, res: ServerResponse) => {
      if (closing) res.setHeader("Connection", "close");
      open.add(res);
      res.once("close", () => open.delete(res));
    });
    /** Stops accepting connections and resolves once every request in flight has been answered. */
    function close() {
      return new Promise<void>((done) => {
        closing = true;
        Server.prototype.close.call(server, () => done());
        for (const res of open) if (!res.headersSent) res.setHeader("Connection", "close");
      });
    }
  });
}

/**
 * On SIGTERM or SIGINT: stop accepting and answer what is in flight, stop the roles (consumers finish
 * their batch, the dispatcher finishes or releases its claims), then close the bus and the database
 * and release DATA_DIR. Whatever is still running after DRAIN_TIMEOUT_SECONDS is abandoned (exit 1).
 */
function drainOnSignal(
  services: Pick<Services, "config" | "log" | "bus" | "db">,
  parts: { server?: Listening; roles?: { stop(): Promise<void> }; health?: { close(): unknown }; lock?: DataDirLock },
) {
  // The roles' timers are unref()ed; this one keeps the process alive until it is drained, so a dependency
  // that goes away (and takes its sockets with it) never ends a role with code 0.
  const keepAlive = setInterval(() => {}, 2 ** 30);
  let draining = false;
  const drain = async (signal: string) => {
    if (draining) return;
    draining = true;
    const { log, config } = services;
    log.info({ signal, timeoutSeconds: config.DRAIN_TIMEOUT_SECONDS }, "draining");
    setTimeout(() => {
      log.error({ timeoutSeconds: config.DRAIN_TIMEOUT_SECONDS }, "drain time over; exiting with work unfinished");
      process.exit(1);
    }, config.DRAIN_TIMEOUT_SECONDS * 1000).unref();
    try {
      await parts.server?.close();
      parts.health?.close();
      await parts.roles?.stop();
      await services.bus.close();
      await services.db.close();
      parts.lock?.release();
      clearInterval(keepAlive);
      log.info("drained");
      process.exit(0);
    } catch (err) {
      log.error({ err }, "drain failed");
      process.exit(1);
    }
  };
  process.once("SIGINT", () => void drain("SIGINT"));
  process.once("SIGTERM", () => void drain("SIGTERM"));
}

/** DATA_DIR's lock for a process that keeps embedded parts there; refuses when another process holds it. */
const lockIfEmbedded = (config: Config, command: string, { bus }: { bus: boolean }) =>
  usesDataDir(config, { bus }) ? lockDataDir(config.DATA_DIR, command) : undefined;

/**
 * Where a data-changing CLI command runs: against the running server's /admin API when a server holds
 * DATA_DIR (its database is not shared), else locally under DATA_DIR's lock.
 */
function adminTarget(config: Config): { url: string; token: string } | undefined {
  if (!usesDataDir(config, { bus: false })) return undefined;
  const holder = lockHolder(config.DATA_DIR);
  if (!holder) return undefined;
  if (!holder.url) throw new DataDirLockedError(resolvePath(config.DATA_DIR), holder);
  const token = config.ADMIN_TOKEN ?? readCredentials(config).adminToken;
  if (!token) throw new UsageError(`ADMIN_TOKEN: set it to the admin token of the server at ${holder.url} (it holds ${config.DATA_DIR})`);
  return { url: holder.url, token };
}

async function adminRequest<T>(target: { url: string; token: string }, path: string, body: unknown): Promise<T> {
  const res = await fetch(new URL(path, target.url), {
    method: "POST",
    headers: { Authorization: `Bearer ${target.token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const answer = (await res.json()) as T & { error?: { message: string } };
  if (!res.ok) throw new Error(`${target.url}${path} answered ${res.status}: ${answer.error?.message ?? JSON.stringify(answer)}`);
  return answer;
}

async function main(argv: string[]) {
  const [command, ...rest] = argv;
  const config = loadConfig();
  switch (command) {
    case "start": {
      const lock = lockIfEmbedded(config, command, { bus: true });
      const services = await openServices(config);
      const roles = await startRoles(services, ALL_ROLES);
      const admin = resolveAdminToken(config);
      const demo = await ensureDemoAccount(services, config);
      const server = await listen(services, admin.token);
      lock?.setUrl(server.url);
      drainOnSignal(services, { server, roles, ...(lock ? { lock } : {}) });
      const { url } = server;
      const name = config.SERVICE_NAME;
      process.stdout.write(
        [
          ``,
          `${name} is running at ${url}  (docs: ${url}/docs, OpenAPI: ${url}/v1/openapi.json)`,
          `  dashboard:    ${url}/dashboard  (sign in with the test key below, or the admin token for the operator pages)`,
          `  storage:      ${config.DATABASE_URL ? "PostgreSQL" : `PGlite in ${config.DATA_DIR}`}`,
          `  admin token:  ${admin.token}`,
          `  demo account: ${demo.accountId} (premium)`,
          `    test key:   ${demo.test}`,
          `    live key:   ${demo.live}`,
          `  try: curl -H '${name}-Key: ${demo.test}' ${url}/v1/programs`,
          `  webhooks: npm run cardlink -- listen   (second terminal), then   npm run cardlink -- trigger transaction.auth.qualified`,
          ``,
        ].join("\n") + "\n",
      );
      return;
    }
    case "api": {
      const lock = lockIfEmbedded(config, command, { bus: true });
      const services = await openServices(config);
      const server = await listen(services, resolveAdminToken(config).token);
      lock?.setUrl(server.url);
      drainOnSignal(services, { server, ...(lock ? { lock } : {}) });
      services.log.info({ url: server.url }, "api listening");
      return;
    }
    case "qualifier":
    case "dispatcher":
    case "workers": {
      if (command === "qualifier" && !config.KAFKA_BROKERS) {
        throw new UsageError("qualifier: set KAFKA_BROKERS (npm start runs the qualifier on the embedded log)");
      }
      const lock = lockIfEmbedded(config, command, { bus: true });
      const services = await openServices(config);
      const roles = await startRoles(services, [command]);
      const health = config.HEALTH_PORT ? await serveHealth(services.health, config.HEALTH_PORT, command) : undefined;
      drainOnSignal(services, { roles, ...(health ? { health } : {}), ...(lock ? { lock } : {}) });
      services.log.info({ role: command, ...(config.HEALTH_PORT ? { healthPort: config.HEALTH_PORT } : {}) }, "role running");
      return;
    }
    case "listen": {
      const listening = await listenCommand(rest, config, (m) => new UsageError(m), (line) => process.stdout.write(`${line}\n`));
      const stop = () => void listening.stop().finally(() => process.exit(0));
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
      return;
    }
    case "trigger": {
      const { lines, ok } = await triggerCommand(rest, config, (m) => new UsageError(m));
      process.stdout.write(lines.join("\n") + "\n");
      if (!ok) process.exitCode = 1;
      return;
    }
    case "keys": {
      process.stdout.write((await keysCommand(rest, config, (m) => new UsageError(m))).join("\n") + "\n");
      return;
    }
    case "migrate": {
      const lock = lockIfEmbedded(config, command, { bus: false });
      const services = await openServices(config);
      const applied = await migrate(services.db);
      process.stdout.write(applied.length ? `applied ${applied.join(", ")}\n` : "up to date\n");
      await services.db.close();
      lock?.release();
      return;
    }
    case "account": {
      const { values, positionals } = parseArgs({
        args: rest,
        allowPositionals: true,
        options: {
          name: { type: "string", default: "Publisher" },
          tier: { type: "string", default: "standard" },
          email: { type: "string" },
          json: { type: "boolean", default: false },
        },
      });
      if (positionals[0] !== "create") throw new UsageError("account: the subcommand is create");
      if (values.tier !== "standard" && values.tier !== "premium") {
        throw new UsageError("--tier: must be standard or premium");
      }
      const tier: "standard" | "premium" = values.tier;
      const input = { name: values.name, tier, ...(values.email ? { email: values.email } : {}) };
      const target = adminTarget(config);
      let account: Awaited<ReturnType<typeof createAccount>>;
      if (target) {
        account = await adminRequest(target, "/admin/accounts", input);
      } else {
        const lock = lockIfEmbedded(config, "account create", { bus: false });
        const services = await openServices(config);
        account = await createAccount(services.db, input, services.clock.now());
        await services.db.close();
        lock?.release();
      }
      process.stdout.write(
        values.json
          ? JSON.stringify(account) + "\n"
          : `account ${account.id} (${account.tier})\n  test key: ${account.keys.test}\n  live key: ${account.keys.live}\n`,
      );
      return;
    }
    case "mid-insights": {
      const { values, positionals } = parseArgs({
        args: rest,
        allowPositionals: true,
        options: { program: { type: "string" }, count: { type: "string" }, seed: { type: "string" } },
      });
      if (positionals[0] !== "seed") throw new UsageError("mid-insights: the subcommand is seed");
      const count = Number(values.count);
      const seed = values.seed === undefined ? config.SIMULATOR_SEED : Number(values.seed);
      if (!values.program || !UUID_PATTERN.test(values.program)) throw new UsageError("--program: must be a program id (UUID)");
      if (!Number.isInteger(count) || count < 1 || count > MAX_SEED_COUNT) {
        throw new UsageError(`--count: must be a whole number from 1 to ${MAX_SEED_COUNT}`);
      }
      if (!Number.isInteger(seed) || seed < 0 || seed > 2 ** 31 - 1) throw new UsageError("--seed: must be a whole number from 0 to 2147483647");
      const started = performance.now();
      const target = adminTarget(config);
      let created: number;
      if (target) {
        ({ created } = await adminRequest<{ created: number }>(target, `/admin/programs/${values.program}/mid-insights/seed`, { count, seed }));
      } else {
        const lock = lockIfEmbedded(config, "mid-insights seed", { bus: false });
        const services = await openServices(config);
        created = await seedMidInsights(services.db, {
          programId: values.program,
          count,
          seed,
          now: services.clock.now(),
          onProgress: (n) => process.stderr.write(`\r  ${n} created`),
        });
        await services.db.close();
        lock?.release();
      }
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      process.stdout.write(`\ncreated ${created} MID insights in program ${values.program} (seed ${seed}) in ${seconds}s\n`);
      return;
    }
    case "simulate": {
      const out = simulateCommand(rest, (m) => new UsageError(m));
      process.stdout.write(`wrote ${out}\n`);
      return;
    }
    case "simulator": {
      // No DATABASE_URL and no DATA_DIR lock of the service: the simulator has a store of its own.
      const role = await simulatorRole(rest, config, (m) => new UsageError(m));
      const health = config.HEALTH_PORT ? await serveHealth(role.health, config.HEALTH_PORT, "simulator") : undefined;
      drainOnSignal(role, { roles: role, ...(health ? { health } : {}), ...(role.lock ? { lock: role.lock } : {}) });
      return;
    }
    case "faults":
    case "traffic": {
      const run = command === "faults" ? faultsCommand : trafficCommand;
      process.stdout.write(JSON.stringify(await run(rest, config, (m) => new UsageError(m)), null, 2) + "\n");
      return;
    }
    case "help":
    case "--help":
    case "-h":
      process.stdout.write(USAGE);
      return;
    default:
      throw new UsageError(command ? `unknown command ${command}` : "no command given");
  }
}

class UsageError extends Error {}

// A role that truly cannot continue ends with code 1 and says why, never silently or with 0.
const fatal = (kind: string) => (err: unknown) => {
  process.stderr.write(`${JSON.stringify({ level: 60, time: new Date().toISOString(), msg: `${kind}: the process cannot continue`, err: err instanceof Error ? (err.stack ?? err.message) : String(err) })}\n`);
  process.exit(1);
};
process.on("uncaughtException", fatal("uncaught exception"));
process.on("unhandledRejection", fatal("unhandled rejection"));

main(process.argv.slice(2)).catch((err: unknown) => {
  if (err instanceof ConfigError || err instanceof DataDirLockedError) process.stderr.write(`${err.message}\n`);
  else if (err instanceof UsageError) process.stderr.write(`${err.message}\n\n${USAGE}`);
  else if (err instanceof CommandError) process.stderr.write(`${err.message}\n`);
  else process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(err instanceof UsageError ? 64 : 1);
});
