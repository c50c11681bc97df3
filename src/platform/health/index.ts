// What a process knows about its dependencies: PostgreSQL (or PGlite) and the bus, each watched (see
// dependency.ts); which errors mean "a dependency is down" (the one mapping the API and the roles use);
// and the readiness answer of `/health/ready` and the background roles' health port.
import { connect } from "node:net";
import type { Logger } from "pino";
import type { Db } from "../db.ts";
import { DependencyUnavailableError, watchDependency, type Dependency, type DependencyName, type DependencyState } from "./dependency.ts";

export { DependencyUnavailableError };


// postgres.js connection failures, socket errors, and the server's "shutting down / starting up /
// terminated / too many connections" answers (SQLSTATE class 08 is every connection exception).
const POSTGRES_DOWN = new Set([
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "57P01",
  "57P02",
  "57P03",
  "53300",
]);

function causes(err: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let e = err; e && chain.length < 5; e = (e as { cause?: unknown }).cause) chain.push(e);
  return chain;
}

/** Which dependency `err` says is down, or undefined when it is an ordinary failure. */
export function unavailableDependency(err: unknown): DependencyName | undefined {
  for (const e of causes(err)) {
    if (e instanceof DependencyUnavailableError) return e.dependency;
    if (!(e instanceof Error)) continue;
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && (POSTGRES_DOWN.has(code) || /^08[0-9A-Z]{3}$/.test(code))) return "postgres";
    // kafkajs names every error it throws KafkaJS…; a publish that failed on one means the broker is out of reach.
    if (e.name.startsWith("KafkaJS")) return "bus";
  }
  return undefined;
}

export interface Health {
  readonly postgres: Dependency;
  readonly bus: Dependency;
  /** Marks the dependency `err` names as down; true when it named one. */
  report(err: unknown): boolean;
  /** Probes both dependencies now: ready when both are up. */
  ready(): Promise<{ ready: boolean; dependencies: Record<DependencyName, DependencyState> }>;
  stop(): void;
}

/** The first broker that accepts a TCP connection within the probe's time. */
function reachBroker(brokers: string[]): Promise<void> {
  return Promise.any(
    brokers.map(
      (broker) =>
        new Promise<void>((resolve, reject) => {
          const at = broker.lastIndexOf(":");
          const socket = connect({ host: broker.slice(0, at), port: Number(broker.slice(at + 1)) });
          socket.once("connect", () => {
            socket.destroy();
            resolve();
          });
          socket.once("error", (err) => {
            socket.destroy();
            reject(err);
          });
        }),
    ),
  ).catch((err: unknown) => {
    throw err instanceof AggregateError ? err.errors[0] : err;
  });
}

export function createHealth({ db, kafkaBrokers, log }: { db: Db; kafkaBrokers?: string | undefined; log: Logger }): Health {
  const postgres = watchDependency({ name: "postgres", probe: () => db.query("select 1"), log });
  const brokers = kafkaBrokers?.split(",") ?? [];
  // The embedded log lives in this process: it is up while the process is.
  const bus = watchDependency({ name: "bus", probe: () => (brokers.length ? reachBroker(brokers) : Promise.resolve()), log });
  const byName = { postgres, bus };
  return {
    postgres,
    bus,
    report(err) {
      const name = unavailableDependency(err);
      if (name) byName[name].lost(err);
      return name !== undefined;
    },
    async ready() {
      const [p, b] = await Promise.all([postgres.check(), bus.check()]);
      return { ready: p.status === "up" && b.status === "up", dependencies: { postgres: p, bus: b } };
    },
    stop() {
      postgres.stop();
      bus.stop();
    },
  };
}
