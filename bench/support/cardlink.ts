// Cardlink for a benchmark, in either of its shapes: `embedded` — one `cardlink start` process on PGlite and
// the embedded log in a fresh data directory, as `npm start` runs it; `stack` — the roles as processes of
// their own (api, two qualifier replicas, dispatcher, workers, a simulator per scheme) on PostgreSQL
// (databases of the bench's own, for the service and for the simulators) and Kafka (a namespace of the
// bench's own), as docker-compose.yml runs them. Every role's metrics are read from its health port.
import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ownDatabase, type OwnDatabase } from "./own-database.ts";
import { heapOption } from "./heap.ts";

export type Shape = "embedded" | "stack";

export interface Cardlink {
  shape: Shape;
  url: string;
  admin: string;
  /** Each role's name and its metrics URL. */
  metrics: { role: string; url: string }[];
  /** The database URL of the service (stack) or undefined (PGlite inside the process). */
  databaseUrl?: string;
  close(): Promise<void>;
}

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const ADMIN = "adm_bench_cardlink_0123456789abcdef";

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

interface Role {
  name: string;
  child: ChildProcess;
  output: string[];
}

function startRole(name: string, args: string[], env: NodeJS.ProcessEnv, nodeArgs: string[]): Role {
  // Under the heap bound the process runs with as a service (bench/support/heap.ts), unless `nodeArgs` give one.
  const bound = nodeArgs.some((a) => a.startsWith("--max-old-space-size")) ? [] : [heapOption(args[0] === "start" ? "start" : "role")];
  const child = spawn(process.execPath, [...bound, ...nodeArgs, "--import", "tsx", "src/main.ts", ...args], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  const role: Role = { name, child, output: [] };
  const keep = (d: Buffer) => {
    role.output.push(d.toString());
    if (role.output.length > 200) role.output.splice(0, 100);
  };
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  return role;
}

async function until(what: string, check: () => Promise<boolean>, roles: Role[], ms = 180_000): Promise<void> {
  const began = performance.now();
  for (;;) {
    if (await check().catch(() => false)) return;
    const dead = roles.find((r) => r.child.exitCode !== null);
    if (dead) throw new Error(`${dead.name} exited with ${dead.child.exitCode}:\n${dead.output.join("").slice(-4000)}`);
    if (performance.now() - began > ms) throw new Error(`${what}: not ready within ${ms / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const answers = (url: string) => async () => (await fetch(url)).status === 200;

async function stop(roles: Role[]): Promise<void> {
  await Promise.all(
    roles.map(
      (r) =>
        new Promise<void>((resolve) => {
          if (r.child.exitCode !== null) return resolve();
          const timer = setTimeout(() => r.child.kill("SIGKILL"), 30_000);
          r.child.once("exit", () => (clearTimeout(timer), resolve()));
          r.child.kill("SIGTERM");
        }),
    ),
  );
}

const common = {
  ADMIN_TOKEN: ADMIN,
  LOG_LEVEL: "warn",
  // One account sends everything: its rate limit, and its queue at the front door when offered more than the
  // service carries, would answer 429.
  RATE_LIMIT_PER_SECOND: "1000000",
  RATE_LIMIT_BURST: "1000000",
  ADMISSION_QUEUE_PER_ACCOUNT: "1000000",
};

/** Settings for the Cardlink processes beyond the bench's own (`ADMISSION_LATENCY_TOLERANCE`, say). */
export interface ServerOptions {
  env?: Record<string, string>;
}

/** `npm start`'s one process. `nodeArgs` (`--cpu-prof …`) go to its node. */
export async function startEmbedded(nodeArgs: string[] = [], { env: extraEnv = {} }: ServerOptions = {}): Promise<Cardlink> {
  const dataDir = mkdtempSync(join(tmpdir(), "cardlink-bench-"));
  const port = await freePort();
  const env = { ...process.env, ...common, ...extraEnv, DATA_DIR: dataDir, PORT: String(port), DATABASE_URL: "", KAFKA_BROKERS: "", SCHEMA_REGISTRY_URL: "" };
  const role = startRole("start", ["start"], env, nodeArgs);
  const url = `http://127.0.0.1:${port}`;
  try {
    await until("cardlink start", answers(`${url}/health`), [role]);
  } catch (err) {
    await stop([role]);
    throw err;
  }
  return {
    shape: "embedded",
    url,
    admin: ADMIN,
    metrics: [{ role: "start", url: `${url}/metrics` }],
    async close() {
      await stop([role]);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The roles as processes on PostgreSQL (DATABASE_URL's server) and Kafka (KAFKA_BROKERS). */
export async function startStack(serverUrl: string, brokers: string, nodeArgs: string[] = [], { env: extraEnv = {} }: ServerOptions = {}): Promise<Cardlink> {
  const service: OwnDatabase = await ownDatabase(serverUrl, "service");
  const simulators: OwnDatabase = await ownDatabase(serverUrl, "simulators");
  const dataDir = mkdtempSync(join(tmpdir(), "cardlink-bench-stack-"));
  const port = await freePort();
  const namespace = `bench-${randomUUID().slice(0, 8)}`;
  const env = (extra: Record<string, string>) => ({
    ...process.env,
    ...common,
    ...extraEnv,
    DATA_DIR: dataDir,
    DATABASE_URL: service.url,
    SIMULATOR_DATABASE_URL: simulators.url,
    KAFKA_BROKERS: brokers,
    KAFKA_NAMESPACE: namespace,
    ...extra,
  });
  const base = env({});
  const roles: Role[] = [];
  const metrics: Cardlink["metrics"] = [];
  try {
    const migrate = startRole("migrate", ["migrate"], base, []);
    const migrated = await new Promise<number | null>((resolve) => migrate.child.once("exit", resolve));
    if (migrated !== 0) throw new Error(`migrate exited with ${migrated}:\n${migrate.output.join("")}`);
    const launch = async (name: string, args: string[], extra: Record<string, string> = {}) => {
      const healthPort = await freePort();
      roles.push(startRole(name, args, env({ HEALTH_PORT: String(healthPort), ...extra }), nodeArgs));
      metrics.push({ role: name, url: `http://127.0.0.1:${extra.PORT ?? healthPort}/metrics` });
      return `http://127.0.0.1:${extra.PORT ?? healthPort}/health`;
    };
    const health = [
      await launch("api", ["api"], { PORT: String(port) }),
      await launch("qualifier-1", ["qualifier"]),
      await launch("qualifier-2", ["qualifier"]),
      await launch("dispatcher", ["dispatcher"]),
      await launch("workers", ["workers"]),
      await launch("simulator-visa", ["simulator", "--scheme", "visa"]),
      await launch("simulator-mastercard", ["simulator", "--scheme", "mastercard"]),
      await launch("simulator-amex", ["simulator", "--scheme", "amex"]),
    ];
    for (const [i, url] of health.entries()) await until(roles[i]!.name, answers(url), roles);
  } catch (err) {
    await stop(roles);
    await service.drop().catch(() => undefined);
    await simulators.drop().catch(() => undefined);
    throw err;
  }
  return {
    shape: "stack",
    url: `http://127.0.0.1:${port}`,
    admin: ADMIN,
    metrics,
    databaseUrl: service.url,
    async close() {
      await stop(roles);
      await service.drop();
      await simulators.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
