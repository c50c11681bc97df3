// The Cardlink command line: `start` runs everything in one process; the other commands run one role
// or one operator task. `npm run cardlink -- <command>`.
import { parseArgs } from "node:util";
import { serve } from "@hono/node-server";
import { ConfigError, loadConfig, type Config } from "./config/index.ts";
import { openServices, readCredentials, resolveAdminToken, writeCredentials } from "./runtime.ts";
import { createApp } from "./api/app.ts";
import { createAccount, getAccount } from "./store/accounts.ts";
import { migrate } from "./store/migrate.ts";
import type { Services } from "./api/context.ts";
import { SIMULATOR_USAGE, faultsCommand, simulateCommand, simulatorRole, trafficCommand } from "../simulators/shared/cli.ts";
import { MAX_SEED_COUNT, seedMidInsights } from "./store/mid-insights-seed.ts";
import { UUID_PATTERN } from "./store/ids.ts";
import { ALL_ROLES, startRoles } from "./roles.ts";
import { listen as listenForWebhooks } from "./webhooks/listen.ts";
import { serveHealth } from "./health/server.ts";

const USAGE = `Usage: cardlink <command> [options]

Commands:
  help                      this list
  start                     API and every background role in one process (embedded defaults)
  api                       the HTTP API only
  qualifier                 the streaming qualifier (on Kafka)
  dispatcher                the webhook dispatcher
  workers                   due work on the service clock (consents, marketplace, offboarding, return periods)
  migrate                   apply database migrations and exit
  listen --secret whsec_… [--secret …] [--port 4000]
                            receive webhooks locally, verify their signatures and print them
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

function listen(services: Services, adminToken: string): Promise<string> {
  const app = createApp(services, { adminToken });
  return new Promise((resolve) => {
    const server = serve({ fetch: app.fetch, port: services.config.PORT, hostname: "0.0.0.0" }, (info) =>
      resolve(`http://localhost:${info.port}`),
    );
    const stop = () => {
      server.close();
      void services.db.close().finally(() => process.exit(0));
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
}

async function main(argv: string[]) {
  const [command, ...rest] = argv;
  const config = loadConfig();
  switch (command) {
    case "start": {
      const services = await openServices(config);
      await startRoles(services, ALL_ROLES);
      const admin = resolveAdminToken(config);
      const demo = await ensureDemoAccount(services, config);
      const url = await listen(services, admin.token);
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
          ``,
        ].join("\n") + "\n",
      );
      return;
    }
    case "api": {
      const services = await openServices(config);
      const url = await listen(services, resolveAdminToken(config).token);
      services.log.info({ url }, "api listening");
      return;
    }
    case "qualifier":
    case "dispatcher":
    case "workers": {
      const services = await openServices(config);
      if (command === "qualifier" && services.bus.kind !== "kafka") {
        throw new UsageError("qualifier: set KAFKA_BROKERS (npm start runs the qualifier on the embedded log)");
      }
      const running = await startRoles(services, [command]);
      // The roles' timers are unref()ed; this one keeps the process alive for as long as the role is meant
      // to run, so a dependency that goes away (and takes its sockets with it) never ends it with code 0.
      const keepAlive = setInterval(() => {}, 2 ** 30);
      const health = config.HEALTH_PORT ? await serveHealth(services.health, config.HEALTH_PORT, command) : undefined;
      services.log.info({ role: command, ...(config.HEALTH_PORT ? { healthPort: config.HEALTH_PORT } : {}) }, "role running");
      const exit = () => {
        clearInterval(keepAlive);
        health?.close();
        void running.stop().finally(() => Promise.all([services.bus.close(), services.db.close()]).finally(() => process.exit(0)));
      };
      process.once("SIGINT", exit);
      process.once("SIGTERM", exit);
      return;
    }
    case "listen": {
      const { values } = parseArgs({ args: rest, options: { port: { type: "string", default: "4000" }, secret: { type: "string", multiple: true } } });
      const port = Number(values.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError("--port: must be a port number");
      if (!values.secret?.length) throw new UsageError("--secret: give the hook's whsec_ secret (repeat for several hooks)");
      await listenForWebhooks({ port, secrets: values.secret, out: (line) => process.stdout.write(`${line}\n`) });
      process.stdout.write(`listening for webhooks on http://localhost:${port}/ (any path)\n`);
      return;
    }
    case "migrate": {
      const services = await openServices(config);
      const applied = await migrate(services.db);
      process.stdout.write(applied.length ? `applied ${applied.join(", ")}\n` : "up to date\n");
      await services.db.close();
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
      const services = await openServices(config);
      const account = await createAccount(
        services.db,
        { name: values.name, tier: values.tier, ...(values.email ? { email: values.email } : {}) },
        services.clock.now(),
      );
      await services.db.close();
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
      const services = await openServices(config);
      const started = performance.now();
      const created = await seedMidInsights(services.db, {
        programId: values.program,
        count,
        seed,
        now: services.clock.now(),
        onProgress: (n) => process.stderr.write(`\r  ${n} created`),
      });
      await services.db.close();
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
      const services = await openServices(config);
      const stop = await simulatorRole(rest, services, (m) => new UsageError(m));
      const keepAlive = setInterval(() => {}, 2 ** 30);
      const health = config.HEALTH_PORT ? await serveHealth(services.health, config.HEALTH_PORT, "simulator") : undefined;
      const exit = () => {
        clearInterval(keepAlive);
        health?.close();
        void stop().finally(() => Promise.all([services.bus.close(), services.db.close()]).finally(() => process.exit(0)));
      };
      process.once("SIGINT", exit);
      process.once("SIGTERM", exit);
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
  if (err instanceof ConfigError) process.stderr.write(`${err.message}\n`);
  else if (err instanceof UsageError) process.stderr.write(`${err.message}\n\n${USAGE}`);
  else process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(err instanceof UsageError ? 64 : 1);
});
