// A PostgreSQL database of the benchmark's own, made from DATABASE_URL's server and dropped at the end. The
// shared database may hold earlier runs' and test suites' hooks and due deliveries, which a dispatcher
// started by a benchmark would otherwise work through beside (and slower than) the benchmark's own.
import { randomUUID } from "node:crypto";
import { openPostgres } from "../../src/platform/db.ts";

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
    /**
     * Drops it once the bench's connections are gone. Not `with (force)`: after a large run autovacuum may be
     * working in it, and only a superuser may end that backend; a plain drop stops autovacuum itself and
     * waits for nothing but the bench's own connections, which it retries for a few seconds.
     */
    async drop() {
      for (let attempt = 1; ; attempt++) {
        try {
          await server.exec(`drop database if exists ${name}`);
          break;
        } catch (err) {
          // 55006: the database is still being accessed (a connection of the bench not yet gone).
          if ((err as { code?: string }).code !== "55006" || attempt >= 40) throw err;
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
      }
      await server.close();
    },
  };
}
