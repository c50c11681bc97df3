// A PostgreSQL database of the benchmark's own, made from DATABASE_URL's server and dropped at the end. The
// shared database may hold earlier runs' and test suites' hooks and due deliveries, which a dispatcher
// started by a benchmark would otherwise work through beside (and slower than) the benchmark's own.
import { randomUUID } from "node:crypto";
import { openPostgres } from "../../src/services/db.ts";

export interface OwnDatabase {
  url: string;
  drop(): Promise<void>;
}

export async function ownDatabase(serverUrl: string, purpose: string): Promise<OwnDatabase> {
  const server = openPostgres(serverUrl, { max: 1 });
  const name = `cardlink_bench_${purpose}_${randomUUID().replace(/-/g, "").slice(0, 10)}`;
  await server.exec(`create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      await server.exec(`drop database if exists ${name} with (force)`);
      await server.close();
    },
  };
}
