// The Cardlink command line: `start` runs everything in one process; the other commands run one role
// or one operator task. `npm run cardlink -- <command>`.
import type { Config } from "./config/index.ts";
import { DataDirLockedError } from "./app/data-dir-lock.ts";
import { PortInUseError } from "./app/port.ts";
import { SIMULATOR_USAGE } from "../simulators/host/usage.ts";
import { CommandError, OptionError, type Usage } from "./cli/connection.ts";

// Each command loads its modules when it runs: `help` or `trigger` never loads the service, the database
// or the bus, and `help` not even the config's schema, so a short command answers in a fraction of a second.
const serve = () => import("./app/serve.ts");
const tasks = () => import("./app/tasks.ts");
const simulators = () => import("../simulators/host/cli.ts");

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
  listen [--key K] [--program ID] [--events E,…] [--forward-to URL] [--port 4000] [--keep] [--url URL] [--print-json]
                            receive webhooks locally: registers its own hooks for the events (every one unless
                            --events) on the program (the fixtures program of trigger unless --program), all
                            signed with one secret it prints at start, verifies each signature, prints one line
                            per event (--print-json: each event's body, status lines on stderr), forwards the
                            signed request unchanged with --forward-to and prints the answer; removes its hooks
                            on exit unless --keep
  listen --print-secret     print listen's signing secret (kept in DATA_DIR/credentials.json) and exit
  listen --secret whsec_… [--secret …] [--port 4000] [--forward-to URL] [--print-json]
                            receive deliveries of hooks you registered yourself, printing each verified body
  trigger <event> [--key K] [--url URL] [--json] [--scheme visa|mastercard|amex] [--amount N] [--currency C]
          [--card ID] [--location ID] [--program ID] [--targeting new|lapsed|existing] [--datetime LOCAL]
                            fire transaction.auth.qualified, transaction.auth, transaction.clearing,
                            transaction.clearing.qualified, transaction.refund, location.status, offer.extended,
                            missing-transaction-request.succeeded or missing-transaction-request.failed
                            through the simulators, the qualifier and the dispatcher on a fixtures program
                            (made on first use); prints the event id, export lines of the ids, the delivery
                            (--json: the whole answer as one JSON object, nothing else)
  run FILE… [--junit FILE] [--url URL] [--key K] [--live-key K] [--admin-token T] [--concurrency 1]
                            run flow files (YAML: steps on the API, expectations on answers and webhooks);
                            exit 0 when every expectation holds, 1 otherwise (docs/flows.md)
  run --schema              print the flow files' JSON Schema
  keys list|rotate|revoke --account ID [--env test|live] [--key-id ID] [--url URL]
                            list an account's keys, rotate the key of an environment (the old one answers 401
                            at once) or revoke one key; needs ADMIN_TOKEN or the one npm start keeps
  The key defaults to the demo test key npm start keeps in DATA_DIR/credentials.json; the server (for every
  command that talks to one) to --url, else CARDLINK_URL, else the URL the running npm start wrote in
  DATA_DIR/cardlink.lock, else http://localhost:3000.
  account create [--name N] [--tier standard|premium] [--email E] [--json]
                            create an account with test and live secret keys
  mid-insights seed --program ID --count N [--seed S]
                            generate N MIDs with insights (and their brands and locations) in a live program
${SIMULATOR_USAGE}`;

const print = (lines: string[]) => void process.stdout.write(lines.join("\n") + "\n");
const help = () => void process.stdout.write(USAGE);

/** Each command: its arguments, the parsed config and the usage error to refuse with. */
const COMMANDS: Record<string, (args: string[], config: Config, usage: Usage) => Promise<void> | void> = {
  start: async (_args, config) => (await serve()).startCommand(config),
  api: async (_args, config) => (await serve()).apiCommand(config),
  qualifier: async (_args, config, usage) => (await serve()).roleCommand("qualifier", config, usage),
  dispatcher: async (_args, config, usage) => (await serve()).roleCommand("dispatcher", config, usage),
  workers: async (_args, config, usage) => (await serve()).roleCommand("workers", config, usage),
  simulator: async (args, config, usage) => (await import("./app/simulator.ts")).simulatorCommand(args, config, usage),
  migrate: async (_args, config) => (await tasks()).migrateCommand(config),
  account: async (args, config, usage) => (await tasks()).accountCommand(args, config, usage),
  "mid-insights": async (args, config, usage) => (await tasks()).midInsightsCommand(args, config, usage),
  async listen(args, config, usage) {
    // A client of a running Cardlink: it holds none of the service's parts, only its receiver and its hooks.
    const { listenCommand } = await import("./cli/listen.ts");
    const listening = await listenCommand(
      args,
      config,
      usage,
      (line) => process.stdout.write(`${line}\n`),
      (line) => process.stderr.write(`${line}\n`),
    );
    if (!listening.server) return;
    const stop = () => void listening.stop().finally(() => process.exit(0));
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  },
  async trigger(args, config, usage) {
    const { triggerCommand } = await import("./cli/trigger.ts");
    const { lines, ok } = await triggerCommand(args, config, usage);
    print(lines);
    if (!ok) process.exitCode = 1;
  },
  async run(args, config, usage) {
    const { runCommand } = await import("./cli/run.ts");
    const { ok } = await runCommand(args, config, usage, (line) => process.stdout.write(`${line}\n`));
    if (!ok) process.exitCode = 1;
  },
  keys: async (args, config, usage) => print(await (await import("./cli/keys.ts")).keysCommand(args, config, usage)),
  simulate: async (args, _config, usage) => print([`wrote ${(await simulators()).simulateCommand(args, usage)}`]),
  faults: async (args, config, usage) => print([JSON.stringify(await (await simulators()).faultsCommand(args, config, usage), null, 2)]),
  traffic: async (args, config, usage) => print([JSON.stringify(await (await simulators()).trafficCommand(args, config, usage), null, 2)]),
  help,
  "--help": help,
  "-h": help,
};

async function main(argv: string[]) {
  const [command, ...rest] = argv;
  const run = command !== undefined && Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
  if (run === help) return help();
  const { loadConfig } = await import("./config/index.ts");
  const config = loadConfig();
  if (!run) throw new UsageError(command ? `unknown command ${command}` : "no command given");
  await run(rest, config, (m) => new UsageError(m));
}

class UsageError extends Error {}

/** node:util parseArgs's refusal of an unknown option or a missing value: a usage error, printed on one line. */
const parseArgsError = (err: unknown): err is Error =>
  err instanceof Error && typeof (err as NodeJS.ErrnoException).code === "string" && (err as NodeJS.ErrnoException).code!.startsWith("ERR_PARSE_ARGS_");

// A role that truly cannot continue ends with code 1 and says why, never silently or with 0.
const fatal = (kind: string) => (err: unknown) => {
  process.stderr.write(`${JSON.stringify({ level: 60, time: new Date().toISOString(), msg: `${kind}: the process cannot continue`, err: err instanceof Error ? (err.stack ?? err.message) : String(err) })}\n`);
  process.exit(1);
};
process.on("uncaughtException", fatal("uncaught exception"));
process.on("unhandledRejection", fatal("unhandled rejection"));

// A command that fails says why in one line on stderr and exits non-zero (64 for a usage mistake); the stack
// only with LOG_LEVEL=debug.
main(process.argv.slice(2)).catch(async (err: unknown) => {
  // A config error's class is loaded with the config's schema, which a failing `help` never loaded.
  const { ConfigError } = await import("./config/index.ts");
  const [command] = process.argv.slice(2);
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof UsageError) process.stderr.write(`${message}\n\n${USAGE}`);
  else if (parseArgsError(err)) process.stderr.write(`${command}: ${message.replace(/\s*\n\s*/g, " ")} (cardlink help lists the options)\n`);
  else if (err instanceof ConfigError || err instanceof DataDirLockedError || err instanceof CommandError || err instanceof OptionError || err instanceof PortInUseError) {
    process.stderr.write(`${message}\n`);
  } else {
    process.stderr.write(`${command ?? "cardlink"}: ${message.split("\n")[0]}\n`);
    if (process.env.LOG_LEVEL === "debug" && err instanceof Error && err.stack) process.stderr.write(`${err.stack}\n`);
  }
  process.exit(err instanceof UsageError || err instanceof OptionError || parseArgsError(err) ? 64 : 1);
});
