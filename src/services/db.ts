// One database handle over two engines: PostgreSQL through postgres.js, or PGlite in DATA_DIR.
// Both parse values the same way, so the rest of the code never knows which one it talks to.
import { execFile } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { promisify } from "node:util";
import { join } from "node:path";
import postgres from "postgres";
import { PGlite, types } from "@electric-sql/pglite";

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
    backoff: (retries: number) => Math.min(0.1 * 2 ** retries, 1),
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

export async function openPglite(dataDir: string | undefined): Promise<Db> {
  if (dataDir) {
    mkdirSync(dataDir, { recursive: true });
    if (!existsSync(join(dataDir, "PG_VERSION"))) await initialiseInChild(dataDir);
  }
  const pg = await PGlite.create(dataDir, {
    parsers: {
      [types.INT8]: toNumber,
      [types.NUMERIC]: toNumber,
      [types.DATE]: keep,
      [types.TIMESTAMP]: localDateTime,
    },
  });
  // PGlite runs one statement at a time; a queue keeps outside queries out of an open transaction.
  let chain: Promise<unknown> = Promise.resolve();
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = chain.then(fn, fn);
    chain = run.catch(() => undefined);
    return run;
  };
  type Runner = Pick<PGlite, "query" | "exec">;
  const wrap = (r: Runner, inTx: boolean): Db => ({
    engine: "pglite",
    async query<T>(text: string, params: unknown[] = []) {
      const run = async () => (await r.query<T>(text, params)).rows;
      return inTx ? run() : serial(run);
    },
    async exec(text: string) {
      const run = async () => void (await r.exec(text));
      return inTx ? run() : serial(run);
    },
    async tx<T>(fn: (db: Db) => Promise<T>): Promise<T> {
      if (inTx) return fn(wrap(r, true));
      return serial(() => pg.transaction((t) => fn(wrap(t, true))));
    },
    async listen(channel: string, onNotify: () => void) {
      return serial(() => pg.listen(channel, () => onNotify()));
    },
    async close() {
      if (!inTx) await serial(() => pg.close());
    },
  });
  return wrap(pg, false);
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
        if (!stopped) timer = setTimeout(() => attempt(failures + 1), Math.min(250 * 2 ** failures, 5_000));
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
