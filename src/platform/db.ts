// One database handle over two engines: PostgreSQL through postgres.js, or PGlite in DATA_DIR.
// Both parse values the same way, so the rest of the code never knows which one it talks to.
import { execFile } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { promisify } from "node:util";
import { join } from "node:path";
import postgres from "postgres";
import { Worker } from "node:worker_threads";
import { backoffMs } from "./backoff.ts";
import { DependencyUnavailableError } from "./health/dependency.ts";

export interface Db {
  readonly engine: "postgres" | "pglite";
  query<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  /** Runs several statements separated by semicolons, with no parameters (migrations). */
  exec(text: string): Promise<void>;
  /** Runs `fn` in one transaction; inside a transaction it joins the open one. */
  tx<T>(fn: (db: Db) => Promise<T>): Promise<T>;
  /**
   * Calls `onNotify` for every notification on `channel` (LISTEN; what `notify` sends, in any process,
   * arrives once its transaction commits). Resolves once listening, to the function that stops it. On
   * PostgreSQL the listening connection is made again after a lost server.
   */
  listen(channel: string, onNotify: () => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/**
 * `db` with every statement it sends counted: a query, a script, and a transaction's begin and commit (a
 * transaction joined from inside another sends neither). What `/metrics` reports as
 * cardlink_db_statements_total, the statements a purchase costs.
 */
export function countStatements(db: Db, count: () => void, inTransaction = false): Db {
  return {
    engine: db.engine,
    query: (text, params) => (count(), db.query(text, params)),
    exec: (text) => (count(), db.exec(text)),
    tx: (fn) => {
      if (!inTransaction) {
        count();
        count();
      }
      return db.tx((inner) => fn(countStatements(inner, count, true)));
    },
    listen: (channel, onNotify) => db.listen(channel, onNotify),
    close: () => db.close(),
  };
}

// Type OIDs whose text form we keep or turn into numbers, identically on both engines.
const OID = { int8: 20, numeric: 1700, date: 1082, timestamp: 1114, json: 114, jsonb: 3802 } as const;
const toNumber = (v: string) => Number(v);
// `timestamp` (no zone) holds the offers' local datetimes; keep them as YYYY-MM-DDThh:mm:ss.
const localDateTime = (v: string) => v.replace(" ", "T").slice(0, 19);
const keep = (v: string) => v;
// jsonb parameters arrive as JSON text (JSON.stringify(x) with $n::jsonb), as PGlite takes them;
// postgres.js would otherwise encode that text a second time and store a JSON string.
const jsonText = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v));

export function openPostgres(url: string, options: { max?: number } = {}): Db {
  const sql = postgres(url, {
    max: options.max ?? 10,
    // A server that does not answer is reported within a bounded time (a refused connection is at once).
    connect_timeout: 3,
    // Reconnect attempts after a lost server come at most a second apart (the default grows to 20 s), so
    // queries queued for a connection while PostgreSQL restarts are answered soon after it is back.
    backoff: (retries: number) => backoffMs(retries, { capMs: 1_000 }) / 1_000,
    onnotice: () => {},
    types: {
      int8: { to: OID.int8, from: [OID.int8], serialize: String, parse: toNumber },
      numeric: { to: OID.numeric, from: [OID.numeric], serialize: String, parse: toNumber },
      date: { to: OID.date, from: [OID.date], serialize: String, parse: keep },
      timestamp: { to: OID.timestamp, from: [OID.timestamp], serialize: String, parse: localDateTime },
      json: { to: OID.jsonb, from: [OID.json, OID.jsonb], serialize: jsonText, parse: (v: string) => JSON.parse(v) },
    },
  });
  const wrap = (s: postgres.Sql | postgres.TransactionSql, inTx: boolean): Db => ({
    engine: "postgres",
    async query<T>(text: string, params: unknown[] = []) {
      return (await s.unsafe(text, params as postgres.ParameterOrJSON<never>[])) as unknown as T[];
    },
    async exec(text: string) {
      await s.unsafe(text);
    },
    async tx<T>(fn: (db: Db) => Promise<T>): Promise<T> {
      if (inTx) return fn(wrap(s, true));
      return (await (s as postgres.Sql).begin((t) => fn(wrap(t, true)))) as T;
    },
    async listen(channel: string, onNotify: () => void) {
      const { unlisten } = await sql.listen(channel, () => onNotify());
      return unlisten;
    },
    async close() {
      if (!inTx) await (s as postgres.Sql).end({ timeout: 5 });
    },
  });
  return wrap(sql, false);
}

/**
 * Initialises a fresh PGlite folder in a short-lived Node process of its own. initdb's WebAssembly memory
 * (about 450 MiB) is never given back to the operating system by the process that ran it, even once that
 * instance is closed and collected: run here, it would stay in this process's RSS for its whole life.
 */
async function initialiseInChild(dataDir: string): Promise<void> {
  const script = `const { PGlite } = await import(${JSON.stringify(import.meta.resolve("@electric-sql/pglite"))}); await (await PGlite.create(process.argv[1])).close();`;
  await promisify(execFile)(process.execPath, ["--input-type=module", "-e", script, dataDir]);
}

/** The embedded database's thread (pglite-thread.mjs), as calls: one statement (or a script) per call, in order. */
async function startPgliteThread(dataDir: string | undefined) {
  const worker = new Worker(new URL("./pglite-thread.mjs", import.meta.url), { workerData: { dataDir } });
  const waiting = new Map<number, { resolve: (value: unknown) => void; reject: (err: unknown) => void }>();
  const listeners = new Map<string, Set<() => void>>();
  let next = 0;
  let failed: Error | undefined;
  const ready = new Promise<void>((resolve, reject) => {
    worker.on("message", (m: { ready?: true; notify?: string; id?: number; ok?: boolean; result?: unknown; error?: Record<string, unknown> }) => {
      if (m.ready) return resolve();
      if (m.notify !== undefined) {
        for (const listener of listeners.get(m.notify) ?? []) listener();
        return;
      }
      const call = waiting.get(m.id!);
      waiting.delete(m.id!);
      if (m.ok) call?.resolve(m.result);
      else if (m.error?.closed) call?.reject(new DependencyUnavailableError("postgres", String(m.error.message)));
      else call?.reject(Object.assign(new Error(String(m.error?.message)), m.error));
    });
    const fail = (err: Error) => {
      failed ??= err;
      reject(err);
      for (const call of waiting.values()) call.reject(failed);
      waiting.clear();
    };
    worker.once("error", fail);
    worker.once("exit", () => fail(new DependencyUnavailableError("postgres", "PGlite is closed")));
  });
  await ready;
  const call = <T>(message: Record<string, unknown>): Promise<T> =>
    failed
      ? Promise.reject(failed)
      : new Promise<T>((resolve, reject) => {
          const id = next++;
          waiting.set(id, { resolve: resolve as (value: unknown) => void, reject });
          worker.postMessage({ ...message, id });
        });
  return {
    query: <T>(text: string, params: unknown[]) => call<T[]>({ op: "query", text, params }),
    exec: (text: string) => call<void>({ op: "exec", text }),
    async listen(channel: string, onNotify: () => void) {
      let set = listeners.get(channel);
      if (!set) listeners.set(channel, (set = new Set()));
      set.add(onNotify);
      await call({ op: "listen", channel });
      return async () => {
        set.delete(onNotify);
        if (set.size === 0) {
          listeners.delete(channel);
          await call({ op: "unlisten", channel });
        }
      };
    },
    async close() {
      await call({ op: "close" });
      await worker.terminate();
    },
  };
}

/**
 * PGlite in DATA_DIR (or in memory), on a thread of its own. One statement runs at a time: a transaction
 * holds the database from its begin to its commit, and a query from outside it waits its turn.
 */
export async function openPglite(dataDir: string | undefined): Promise<Db> {
  if (dataDir) {
    mkdirSync(dataDir, { recursive: true });
    if (!existsSync(join(dataDir, "PG_VERSION"))) await initialiseInChild(dataDir);
  }
  const pg = await startPgliteThread(dataDir);
  let chain: Promise<unknown> = Promise.resolve();
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = chain.then(fn, fn);
    chain = run.catch(() => undefined);
    return run;
  };
  const wrap = (inTx: boolean): Db => ({
    engine: "pglite",
    async query<T>(text: string, params: unknown[] = []) {
      const run = () => pg.query<T>(text, params);
      return inTx ? run() : serial(run);
    },
    async exec(text: string) {
      const run = () => pg.exec(text);
      return inTx ? run() : serial(run);
    },
    async tx<T>(fn: (db: Db) => Promise<T>): Promise<T> {
      if (inTx) return fn(wrap(true));
      return serial(async () => {
        await pg.exec("begin");
        let result: T;
        try {
          result = await fn(wrap(true));
        } catch (err) {
          await pg.exec("rollback");
          throw err;
        }
        await pg.exec("commit");
        return result;
      });
    },
    listen: (channel: string, onNotify: () => void) => pg.listen(channel, onNotify),
    async close() {
      if (!inTx) await serial(() => pg.close());
    },
  });
  return wrap(false);
}

/**
 * Listens on `channel` until stopped, trying again with backoff (at most 5 s apart) while the database
 * cannot be reached; a wake-up lost meanwhile is what the caller's own periodic look covers.
 */
export function keepListening(db: Db, channel: string, onNotify: () => void): { stop(): Promise<void> } {
  let stopped = false;
  let unlisten: (() => Promise<void>) | undefined;
  let timer: NodeJS.Timeout | undefined;
  const attempt = (failures: number) => {
    db.listen(channel, onNotify).then(
      async (stop) => {
        if (stopped) await stop().catch(() => undefined);
        else unlisten = stop;
      },
      () => {
        if (!stopped) timer = setTimeout(() => attempt(failures + 1), backoffMs(failures, { baseMs: 250 }));
      },
    );
  };
  attempt(0);
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await unlisten?.().catch(() => undefined);
    },
  };
}
