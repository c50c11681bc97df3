#!/usr/bin/env node
// Runs a k6 script with k6's API in Node, as `k6 run` would:
//   node load/runner/main.js run [-e NAME=VALUE]… [--summary-export FILE] script.js
// __ENV holds this process's environment and every -e over it. Exit codes as k6's: 99 when a threshold
// is crossed, 104 for options it cannot run, 107 for a script error; what it supports: load/README.md.
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { run } from "./run.js";

const USAGE = "usage: node load/runner/main.js run [-e NAME=VALUE]… [--summary-export FILE] script.js";

function usage(problem) {
  process.stderr.write(`${problem}\n${USAGE}\n`);
  process.exit(2);
}

let parsed;
try {
  parsed = parseArgs({
    allowPositionals: true,
    options: { env: { type: "string", short: "e", multiple: true, default: [] }, "summary-export": { type: "string" } },
  });
} catch (e) {
  usage(e.message);
}
const [command, script, ...rest] = parsed.positionals;
if (command !== "run" || !script || rest.length > 0) usage("give `run` and one script");

const env = { ...process.env };
for (const pair of parsed.values.env) {
  const eq = pair.indexOf("=");
  if (eq < 1) usage(`-e ${pair}: give NAME=VALUE`);
  env[pair.slice(0, eq)] = pair.slice(eq + 1);
}

process.exit(
  await run({
    scriptPath: resolve(script),
    env,
    out: process.stdout,
    err: process.stderr,
    summaryExport: parsed.values["summary-export"],
  }),
);
