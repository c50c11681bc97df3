// `npm run bench`: runs every benchmark in bench/ (each bench/*.ts but this runner), one after another,
// each in its own process so one's memory and connections never colour the next one's numbers.
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const dir = dirname(fileURLToPath(import.meta.url));
const self = basename(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const benches = readdirSync(dir)
  .filter((f) => f.endsWith(".ts") && f !== self)
  .filter((f) => only.length === 0 || only.some((name) => f === name || f === `${name}.ts`))
  .sort();

if (benches.length === 0) {
  process.stderr.write(`no benchmark matches ${only.join(", ")}\n`);
  process.exit(64);
}

let failed = 0;
for (const file of benches) {
  process.stdout.write(`\n=== ${file} ===\n`);
  const started = performance.now();
  const run = spawnSync(process.execPath, ["--import", "tsx", join(dir, file)], { stdio: "inherit" });
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  process.stdout.write(`=== ${file}: ${run.status === 0 ? "done" : `failed (exit ${run.status ?? run.signal})`} in ${seconds}s ===\n`);
  if (run.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
