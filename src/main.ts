// The `cardlink` command's entry: bin/cardlink.mjs runs this file (or dist/src/main.js, its build). The
// commands are in src/cli; `npm run cardlink -- <command>`.
import { runCli } from "./cli/index.ts";

// A role that truly cannot continue ends with code 1 and says why, never silently or with 0.
const fatal = (kind: string) => (err: unknown) => {
  process.stderr.write(`${JSON.stringify({ level: 60, time: new Date().toISOString(), msg: `${kind}: the process cannot continue`, err: err instanceof Error ? (err.stack ?? err.message) : String(err) })}\n`);
  process.exit(1);
};
process.on("uncaughtException", fatal("uncaught exception"));
process.on("unhandledRejection", fatal("unhandled rejection"));

void runCli(process.argv.slice(2));
