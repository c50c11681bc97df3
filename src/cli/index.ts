// The Cardlink command line: the table of commands (one file each in src/cli/commands), `help` assembled
// from their usage, and the one error path. Each command loads what it needs when it runs, so `help` or
// `trigger` never loads the service, the database or the bus, and `help` not even the config's schema.
import type { Config } from "../platform/config/index.ts";
import { DataDirLockedError } from "../app/data-dir-lock.ts";
import { PortInUseError } from "../app/port.ts";
import { CommandError, parse, UsageError, type Command } from "./args.ts";

/** Every command by name, in the order `help` lists them; each module is loaded when its command runs. */
const COMMANDS: Record<string, () => Promise<Command>> = {
  start: async () => (await import("./commands/start.ts")).start,
  api: async () => (await import("./commands/api.ts")).api,
  qualifier: async () => (await import("./commands/role.ts")).qualifier,
  dispatcher: async () => (await import("./commands/role.ts")).dispatcher,
  workers: async () => (await import("./commands/role.ts")).workers,
  migrate: async () => (await import("./commands/migrate.ts")).migrate,
  listen: async () => (await import("./commands/listen.ts")).listen,
  logs: async () => (await import("./commands/logs.ts")).logs,
  trigger: async () => (await import("./commands/trigger.ts")).trigger,
  run: async () => (await import("./commands/run.ts")).run,
  sandbox: async () => (await import("./commands/sandbox.ts")).sandbox,
  clock: async () => (await import("./commands/clock.ts")).clock,
  keys: async () => (await import("./commands/keys.ts")).keys,
  account: async () => (await import("./commands/account.ts")).account,
  "mid-insights": async () => (await import("./commands/mid-insights.ts")).midInsights,
  simulate: async () => (await import("./commands/simulate.ts")).simulate,
  simulator: async () => (await import("./commands/simulator.ts")).simulator,
  faults: async () => (await import("./commands/faults.ts")).faults,
  traffic: async () => (await import("./commands/traffic.ts")).traffic,
};

/** `cardlink help`: assembled from every command's own usage lines. */
async function usage(): Promise<string> {
  const commands = await Promise.all(Object.values(COMMANDS).map((load) => load()));
  return `Usage: cardlink <command> [options]

Commands:
  help [COMMAND]            this list, or one command's usage
${commands.map((c) => c.usage).join("")}
The key defaults to the demo test key npm start keeps in DATA_DIR/credentials.json; the server (for every
command that talks to one) to --url, else CARDLINK_URL, else the URL the running npm start wrote in
DATA_DIR/cardlink.lock, else http://localhost:3000.
`;
}

const HELP = new Set(["help", "--help", "-h"]);

async function help(topic: string | undefined): Promise<void> {
  if (topic === undefined) return void process.stdout.write(await usage());
  const load = Object.hasOwn(COMMANDS, topic) ? COMMANDS[topic] : undefined;
  if (!load) throw new UsageError(`help: unknown command ${topic} (cardlink help lists the commands)`);
  process.stdout.write((await load()).usage);
}

/** Runs one command line; answers the exit status. */
async function dispatch([name, ...args]: string[]): Promise<number> {
  if (name === undefined) throw new UsageError("no command given (cardlink help lists the commands)");
  if (HELP.has(name)) {
    await help(args[0]);
    return 0;
  }
  const load = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!load) throw new UsageError(`unknown command ${name} (cardlink help lists the commands)`);
  const c = await load();
  const parsed = parse(name, c, args);
  const { loadConfig } = await import("../platform/config/index.ts");
  const config: Config = loadConfig();
  return (await c.run(parsed, config)) ?? 0;
}

/**
 * The one error path: a usage error is one line and exit 64; any other failure one line and exit 1 — the
 * message of the failures that say what to do (a bad setting, a taken port or DATA_DIR, the server's
 * refusal), else the command and the error's first line. The stack only with LOG_LEVEL=debug.
 */
async function report(command: string | undefined, err: unknown): Promise<number> {
  // A config error's class is loaded with the config's schema, which a failing `help` never loaded.
  const { ConfigError } = await import("../platform/config/index.ts");
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof UsageError) {
    process.stderr.write(`${message}\n`);
    return 64;
  }
  if (err instanceof ConfigError || err instanceof DataDirLockedError || err instanceof CommandError || err instanceof PortInUseError) {
    process.stderr.write(`${message}\n`);
  } else {
    process.stderr.write(`${command ?? "cardlink"}: ${message.split("\n")[0]}\n`);
    if (process.env.LOG_LEVEL === "debug" && err instanceof Error && err.stack) process.stderr.write(`${err.stack}\n`);
  }
  return 1;
}

/**
 * Runs `cardlink <argv>`. A command that ends its work returns and sets the exit status; one that serves
 * (start, a role, listen) keeps the process alive until its signal handler ends it. A failure exits at once.
 */
export async function runCli(argv: string[]): Promise<void> {
  try {
    process.exitCode = await dispatch(argv);
  } catch (err) {
    process.exit(await report(argv[0], err));
  }
}
