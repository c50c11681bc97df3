// The simulators' CLI commands: the dry run, the one-scheme simulator role, and faults and traffic,
// which talk to a running Cardlink's /admin API (the same operations, from a shell).
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import type { Config } from "../../src/config/index.ts";
import { CommandError, adminToken, serverUrl, type Usage } from "../../src/cli/connection.ts";
import { DRY_RUN_DEFAULTS, dryRun } from "../engine/dry-run.ts";
import { SCHEMES } from "../../src/domain/scheme.ts";
import { ADAPTERS } from "../schemes/index.ts";
import type { Scheme } from "../engine/types.ts";

export { SIMULATOR_USAGE } from "./usage.ts";


function scheme(value: string | undefined, usage: Usage): Scheme {
  if (!value || !(SCHEMES as readonly string[]).includes(value)) throw usage("--scheme: must be visa, mastercard or amex");
  return value as Scheme;
}

function wholeNumber(name: string, value: string | undefined, usage: Usage, min: number, fallback?: number): number {
  if (value === undefined && fallback !== undefined) return fallback;
  const n = Number(value);
  if (value === undefined || !Number.isInteger(n) || n < min) throw usage(`--${name}: must be a whole number of at least ${min}`);
  return n;
}

/** `simulate`: writes the dry run's lines to --out. No bus, no database, no wall clock. */
export function simulateCommand(args: string[], usage: Usage): string {
  const { values } = parseArgs({
    args,
    options: {
      scheme: { type: "string" },
      seed: { type: "string" },
      count: { type: "string" },
      out: { type: "string" },
      cards: { type: "string" },
      merchants: { type: "string" },
      start: { type: "string" },
      gap: { type: "string" },
    },
  });
  const adapter = ADAPTERS[scheme(values.scheme, usage)];
  if (!values.out) throw usage("--out: give the file to write");
  const start = values.start === undefined ? DRY_RUN_DEFAULTS.start : new Date(values.start);
  if (Number.isNaN(start.getTime())) throw usage("--start: must be an ISO 8601 instant");
  const text = dryRun(adapter, {
    seed: wholeNumber("seed", values.seed, usage, 0),
    count: wholeNumber("count", values.count, usage, 1),
    start,
    cards: wholeNumber("cards", values.cards, usage, 1, DRY_RUN_DEFAULTS.cards),
    merchants: wholeNumber("merchants", values.merchants, usage, 1, DRY_RUN_DEFAULTS.merchants),
    meanGapSeconds: wholeNumber("gap", values.gap, usage, 1, DRY_RUN_DEFAULTS.meanGapSeconds),
  });
  writeFileSync(values.out, text);
  return values.out;
}

/** `simulator --scheme X`: the scheme it runs (src/app/simulator.ts runs it), on Kafka only. */
export function simulatorScheme(args: string[], config: Config, usage: Usage): Scheme {
  const { values } = parseArgs({ args, options: { scheme: { type: "string" } } });
  const chosen = scheme(values.scheme, usage);
  if (!config.KAFKA_BROKERS) throw usage("simulator: set KAFKA_BROKERS (npm start runs all three simulators on the embedded log)");
  return chosen;
}

/**
 * Calls the running service's /admin API with the operator's token, at the server the other commands
 * find (--url, CARDLINK_URL, the running `npm start`, http://localhost:3000); a failure is one line.
 */
async function admin(config: Config, usage: Usage, url: string | undefined, method: string, path: string, body?: unknown): Promise<unknown> {
  const token = adminToken(config, usage);
  const base = serverUrl(url, process.env, usage, config.DATA_DIR);
  let res: Response;
  try {
    res = await fetch(`${base}/admin${path}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch (err) {
    const reason = err instanceof Error ? ((err.cause as Error | undefined)?.message ?? err.message) : String(err);
    throw new CommandError(`cannot reach Cardlink at ${base} (${reason}); is \`npm start\` running? (--url or CARDLINK_URL to point elsewhere)`);
  }
  const text = await res.text();
  if (!res.ok) {
    const error = (() => {
      try {
        return (JSON.parse(text) as { error?: { code?: string; message?: string } }).error;
      } catch {
        return undefined;
      }
    })();
    throw new CommandError(`${method} ${base}/admin${path}: ${res.status} ${error?.code ?? ""}: ${error?.message ?? text.slice(0, 200)}`);
  }
  return text ? JSON.parse(text) : null;
}

const FAULT_FLAGS = {
  "latency-ms": "latencyMs",
  "drop-rate": "dropRate",
  "duplicate-rate": "duplicateRate",
  "clearing-before-auth-rate": "clearingBeforeAuthRate",
  "onboarding-failure-rate": "onboardingFailureRate",
  "lookup-error-rate": "lookupErrorRate",
} as const;

export async function faultsCommand(args: string[], config: Config, usage: Usage): Promise<unknown> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      scheme: { type: "string" },
      url: { type: "string" },
      "lookup-error-code": { type: "string" },
      ...Object.fromEntries(Object.keys(FAULT_FLAGS).map((f) => [f, { type: "string" as const }])),
    },
  });
  const path = `/simulators/${scheme(values.scheme, usage)}/faults`;
  const flags = values as Record<string, string | undefined>;
  switch (positionals[0]) {
    case "get":
      return admin(config, usage, values.url, "GET", path);
    case "clear":
      await admin(config, usage, values.url, "DELETE", path);
      return admin(config, usage, values.url, "GET", path);
    case "set": {
      const changes: Record<string, unknown> = {};
      for (const [flag, field] of Object.entries(FAULT_FLAGS)) {
        const value = flags[flag];
        if (value === undefined) continue;
        if (value.trim() === "" || !Number.isFinite(Number(value))) throw usage(`--${flag}: must be a number`);
        changes[field] = Number(value);
      }
      if (values["lookup-error-code"] !== undefined) changes.lookupErrorCode = values["lookup-error-code"];
      if (Object.keys(changes).length === 0) throw usage("faults set: give at least one fault to change");
      return admin(config, usage, values.url, "PATCH", path, changes);
    }
    default:
      throw usage("faults: the subcommand is get, set or clear");
  }
}

export async function trafficCommand(args: string[], config: Config, usage: Usage): Promise<unknown> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      rate: { type: "string" },
      seed: { type: "string" },
      duration: { type: "string" },
      schemes: { type: "string" },
      program: { type: "string" },
      url: { type: "string" },
    },
  });
  switch (positionals[0]) {
    case "start": {
      const rate = Number(values.rate);
      if (values.rate === undefined || !Number.isFinite(rate) || rate <= 0) throw usage("--rate: must be a number of purchases per second");
      const body: Record<string, unknown> = { rate, seed: wholeNumber("seed", values.seed, usage, 0, config.SIMULATOR_SEED) };
      if (values.duration !== undefined) body.durationSeconds = Number(values.duration);
      if (values.schemes !== undefined) body.schemes = values.schemes.split(",").map((s) => s.trim());
      if (values.program !== undefined) body.programId = values.program;
      return admin(config, usage, values.url, "POST", "/simulators/traffic/start", body);
    }
    case "stop":
      return admin(config, usage, values.url, "POST", "/simulators/traffic/stop");
    case "status":
      return admin(config, usage, values.url, "GET", "/simulators/traffic");
    default:
      throw usage("traffic: the subcommand is start, stop or status");
  }
}
