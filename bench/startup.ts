// Start-up of the CLI, compiled (`node bin/cardlink.mjs` over dist/, after `npm run build`) beside the same
// commands run from the TypeScript sources through tsx (`node --import tsx src/main.ts`, what every command
// did before the build): `cardlink help`, `cardlink trigger transaction.auth.qualified` end to end (to a
// `cardlink listen`, against a `cardlink start` running), and `cardlink start` to its banner on an existing
// DATA_DIR. Each figure is the median of STARTUP_RUNS runs (default 5), with the fastest and slowest.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "./support/cardlink.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const RUNS = Number(process.env.STARTUP_RUNS ?? 5);
const WAYS = {
  compiled: [join(ROOT, "bin/cardlink.mjs")],
  tsx: ["--import", "tsx", join(ROOT, "src/main.ts")],
} as const;

const built = spawnSync(process.execPath, [join(ROOT, "scripts/build.mjs")], { stdio: "inherit" });
if (built.status !== 0) process.exit(1);

const env = (extra: Record<string, string>): NodeJS.ProcessEnv => ({ ...process.env, DATABASE_URL: "", KAFKA_BROKERS: "", SCHEMA_REGISTRY_URL: "", LOG_LEVEL: "warn", ...extra });
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const summary = (xs: number[]) => `${median(xs).toFixed(0)} ms (${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)})`;

/** Runs a command to its end; fails the benchmark unless it exits 0. Returns its wall time in ms. */
function timed(args: string[], extra: Record<string, string>): number {
  const started = performance.now();
  const ran = spawnSync(process.execPath, args, { cwd: ROOT, env: env(extra), encoding: "utf8" });
  const ms = performance.now() - started;
  if (ran.status !== 0) throw new Error(`${args.join(" ")} exited ${ran.status}:\n${ran.stdout}${ran.stderr}`);
  return ms;
}

/** Starts a long-running command and resolves once its output matches, with the time that took. */
function startUntil(args: string[], extra: Record<string, string>, ready: RegExp) {
  const started = performance.now();
  const child = spawn(process.execPath, args, { cwd: ROOT, env: env(extra), stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  const up = new Promise<number>((resolve, reject) => {
    const look = (d: Buffer) => {
      out += d.toString();
      if (ready.test(out)) resolve(performance.now() - started);
    };
    child.stdout!.on("data", look);
    child.stderr!.on("data", look);
    child.once("exit", (code) => reject(new Error(`${args.join(" ")} exited ${code}:\n${out}`)));
  });
  const stop = () => new Promise<void>((resolve) => (child.exitCode !== null ? resolve() : (child.once("exit", () => resolve()), child.kill("SIGTERM"))));
  return { up, stop };
}

const rows: string[] = [];
for (const [way, cli] of Object.entries(WAYS)) {
  const help = Array.from({ length: RUNS }, () => timed([...cli, "help"], {}));

  const dataDir = mkdtempSync(join(tmpdir(), `cardlink-startup-${way}-`));
  const port = String(await freePort());
  // The first start makes the DATA_DIR (database, keys); the ones measured find it there.
  const first = startUntil([...cli, "start"], { DATA_DIR: dataDir, PORT: port }, /is running at/);
  await first.up;
  await first.stop();
  const starts: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const start = startUntil([...cli, "start"], { DATA_DIR: dataDir, PORT: port }, /is running at/);
    starts.push(await start.up);
    await start.stop();
  }

  const server = startUntil([...cli, "start"], { DATA_DIR: dataDir, PORT: port }, /is running at/);
  await server.up;
  const listener = startUntil([...cli, "listen", "--port", String(await freePort())], { DATA_DIR: dataDir }, /^ready/m);
  await listener.up;
  timed([...cli, "trigger", "transaction.auth.qualified"], { DATA_DIR: dataDir }); // makes the fixtures
  const triggers = Array.from({ length: RUNS }, () => timed([...cli, "trigger", "transaction.auth.qualified"], { DATA_DIR: dataDir }));
  await listener.stop();
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });

  rows.push(`${way.padEnd(9)} help ${summary(help)}   trigger ${summary(triggers)}   start to ready ${summary(starts)}`);
}
process.stdout.write(`startup (median of ${RUNS}, fastest–slowest):\n${rows.join("\n")}\n`);
