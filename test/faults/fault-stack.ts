// A private PostgreSQL cluster and Kafka broker for the fault suite, run by scripts/stack itself (other
// ports, another cluster, its own state folder; the downloads are shared with the main stack), so the
// suite can stop and restart them without touching the servers the rest of the tests use.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../support/role-process.ts";

export type StackService = "postgres" | "kafka";

export interface FaultStack {
  databaseUrl: string;
  kafkaBrokers: string;
  stop(service: StackService): void;
  start(service: StackService): void;
  /** Stops both servers, drops the cluster and removes the state folder. */
  remove(): void;
}

const STATE = "/tmp/cardlink-fault-stack";
const CLUSTER = "cardlinkfault";
const PG_PORT = 54349;
const KAFKA_PORT = 19092;
const DATABASE = "cardlink_fault";

/** The stack needs root (it creates a PostgreSQL cluster) and pg_createcluster. */
export const canRunFaultStack = spawnSync("sh", ["-c", "command -v pg_createcluster"]).status === 0 && process.getuid?.() === 0;

const env = {
  ...process.env,
  CARDLINK_STACK_STATE: STATE,
  CARDLINK_PG_PORT: String(PG_PORT),
  CARDLINK_PG_CLUSTER: CLUSTER,
  CARDLINK_PG_DB: DATABASE,
  CARDLINK_KAFKA_PORT: String(KAFKA_PORT),
  CARDLINK_KAFKA_CONTROLLER_PORT: String(KAFKA_PORT + 1),
};

function stack(...args: string[]): void {
  const run = spawnSync(join(ROOT, "scripts/stack"), args, { env, encoding: "utf8" });
  if (run.status !== 0) throw new Error(`scripts/stack ${args.join(" ")} failed (${run.status}):\n${run.stdout}${run.stderr}`);
}

function dropCluster(): void {
  const clusters = spawnSync("pg_lsclusters", ["-h"], { encoding: "utf8" }).stdout ?? "";
  for (const line of clusters.split("\n")) {
    const [version, name] = line.split(/\s+/);
    if (name === CLUSTER) execFileSync("pg_dropcluster", ["--stop", version!, CLUSTER], { stdio: "ignore" });
  }
  // A run killed while it made the cluster leaves its configuration without data, which pg_lsclusters lists not.
  for (const version of existsSync("/etc/postgresql") ? readdirSync("/etc/postgresql") : []) {
    rmSync(join("/etc/postgresql", version, CLUSTER), { recursive: true, force: true });
  }
}

function remove(): void {
  spawnSync(join(ROOT, "scripts/stack"), ["stop", "kafka"], { env, stdio: "ignore" });
  dropCluster();
  rmSync(STATE, { recursive: true, force: true });
}

/** Starts a fresh private stack (whatever a crashed earlier run left is removed first). */
export function startFaultStack(): FaultStack {
  remove();
  stack("start", "postgres");
  stack("start", "kafka");
  return {
    databaseUrl: `postgres://cardlink:cardlink@127.0.0.1:${PG_PORT}/${DATABASE}`,
    kafkaBrokers: `127.0.0.1:${KAFKA_PORT}`,
    stop: (service) => stack("stop", service),
    start: (service) => stack("start", service),
    remove,
  };
}
