// The embedded database's own thread: PGlite (PostgreSQL compiled to WebAssembly) runs here, so its work
// — most of a busy `npm start` process's CPU — runs beside the API, the bus and the roles on the main
// thread instead of taking turns with them. The main thread (db.ts) sends one statement at a time and keeps
// transactions whole; this side runs what it is sent, in order, and sends notifications back.
import { parentPort, workerData } from "node:worker_threads";
import { PGlite, types } from "@electric-sql/pglite";

const toNumber = (v) => Number(v);
// `timestamp` (no zone) holds the offers' local datetimes; keep them as YYYY-MM-DDThh:mm:ss (as db.ts does).
const localDateTime = (v) => v.replace(" ", "T").slice(0, 19);
const keep = (v) => v;

// shared_buffers: PGlite's WebAssembly memory never shrinks, and PostgreSQL's default 128 MB of buffers is
// part of it from the start; one process's embedded database does well with 32 MB (docs/architecture.md, "Memory").
const pg = await PGlite.create(workerData.dataDir ?? undefined, {
  parsers: { [types.INT8]: toNumber, [types.NUMERIC]: toNumber, [types.DATE]: keep, [types.TIMESTAMP]: localDateTime },
  startParams: [...PGlite.defaultStartParams, "-c", "shared_buffers=32MB"],
});
const listening = new Map();

/**
 * An error as plain data (structured clone keeps an Error's message, not PostgreSQL's code and detail), with
 * `closed` when the database was closed under the statement (db.ts reports the database unavailable).
 */
const plain = (err) => ({
  message: err instanceof Error ? err.message : String(err),
  ...(typeof err === "object" && err !== null ? { ...err } : {}),
  closed: pg.closed,
});

async function run(message) {
  switch (message.op) {
    case "query":
      return (await pg.query(message.text, message.params)).rows;
    case "exec":
      await pg.exec(message.text);
      return undefined;
    case "listen":
      if (!listening.has(message.channel)) {
        listening.set(message.channel, await pg.listen(message.channel, () => parentPort.postMessage({ notify: message.channel })));
      }
      return undefined;
    case "unlisten":
      await listening.get(message.channel)?.();
      listening.delete(message.channel);
      return undefined;
    case "close":
      await pg.close();
      return undefined;
    default:
      throw new Error(`unknown operation ${message.op}`);
  }
}

parentPort.on("message", (message) => {
  run(message).then(
    (result) => parentPort.postMessage({ id: message.id, ok: true, result }),
    (err) => parentPort.postMessage({ id: message.id, ok: false, error: plain(err) }),
  );
});
parentPort.postMessage({ ready: true });
