// The request log's writer: the request path hands each request's record over (`add`: a push, no I/O, never a
// failure) and the writer writes them a round at a time, one statement a round, after a short linger that lets
// a busy process's records gather. The masks, the cuts and the error code and resource of each record are
// worked out here, off the request path. PostgreSQL away: the records wait in a bounded buffer and the round
// is tried again with backoff; past the bound new records are dropped and counted, never the process.
import type { Logger } from "pino";
import { backoffMs } from "../../platform/backoff.ts";
import type { Db } from "../../platform/db.ts";
import type { RequestLogObserver } from "../../platform/metrics/index.ts";
import { errorCodeOf, logBody, resourceIdOf, type HeldBody } from "../../domain/request-log.ts";
import { writeRequests, type RequestRow } from "./records.ts";

/**
 * One request as the request path knows it: what its row holds but the parts worked out here, and its
 * bodies held as they were (src/domain/request-log.ts holdBody).
 */
export type RequestEntry = Omit<RequestRow, "errorCode" | "resourceId" | "request" | "response"> & {
  request: HeldBody | null;
  response: HeldBody | null;
};

export interface RequestLogDeps {
  db: Db;
  log: Logger;
  observer: RequestLogObserver;
  /** Whether PostgreSQL is known to be up, and the report of a failure that may say it is not (the health watch's). */
  health: { readonly postgres: { readonly up: boolean }; report(err: unknown): boolean };
  /** Records held at most (REQUEST_LOG_BUFFER). */
  bufferLimit: number;
}

export interface RequestLog {
  /** Hands a request's record to the writer; past the buffer's bound it is dropped and counted. */
  add(entry: RequestEntry): void;
  /** Resolves once every record added before the call is written (or given up at stop). */
  flush(): Promise<void>;
  /**
   * Resolves after the next round this process writes or after `ms`, to true; to false at once, or as soon as
   * it happens, when `signal` aborts or the waits are ended: what a long-poll of the log waits on between its looks.
   */
  nextRound(ms: number, signal?: AbortSignal): Promise<boolean>;
  /** Ends every wait now and from now on (the server is closing: a long-poll answers at once). */
  endWaits(): void;
  /** Writes what is held and stops: at most a few tries while PostgreSQL is away, then the rest is dropped and counted. */
  close(): Promise<void>;
}

/** Records in one statement at most. */
const ROUND = 500;
/** How long the first record of a round waits for others (real ms), unless a round's worth is held already. */
const LINGER_MS = 50;
/** Tries of a round at stop before what is held is given up. */
const TRIES_AT_STOP = 3;

const sleep = (ms: number) =>
  new Promise<void>((resolve) => {
    setTimeout(resolve, ms).unref();
  });

/** The row of an entry: its bodies masked and cut, its error code and the resource it made or changed. */
function rowOf(e: RequestEntry): RequestRow {
  const answer = e.response?.text;
  return {
    id: e.id,
    accountId: e.accountId,
    live: e.live,
    keyId: e.keyId,
    source: e.source,
    method: e.method,
    path: e.path,
    query: e.query === null ? null : logBody({ text: e.query, cut: false }).body,
    status: e.status,
    errorCode: errorCodeOf(e.status, answer),
    latencyMs: Math.round(e.latencyMs * 10) / 10,
    idempotencyKey: e.idempotencyKey,
    resourceId: resourceIdOf(e.method, e.path, e.status, answer, e.response?.cut ?? false),
    request: e.request && logBody(e.request),
    response: e.response && logBody(e.response),
    created: e.created,
  };
}

/** Writes one round; false when PostgreSQL is away (the round goes back to the head of the buffer). */
async function writeRound({ db, log, observer, health }: RequestLogDeps, round: RequestEntry[]): Promise<boolean> {
  let rows: RequestRow[];
  try {
    rows = round.map(rowOf);
  } catch (err) {
    log.error({ err, records: round.length }, "request log records could not be prepared; dropped");
    observer.dropped("refused", round.length);
    return true;
  }
  try {
    await writeRequests(db, rows);
    observer.written(rows.length);
    return true;
  } catch (err) {
    if (health.report(err)) return false;
  }
  // PostgreSQL is there but refused the statement: a record of its own is the cause; each goes alone.
  let refused = 0;
  for (const row of rows) {
    try {
      await writeRequests(db, [row]);
      observer.written(1);
    } catch (err) {
      if (health.report(err)) return false;
      refused++;
      log.error({ err, requestId: row.id }, "request log record refused by PostgreSQL; dropped");
    }
  }
  if (refused > 0) observer.dropped("refused", refused);
  return true;
}

/** The records waiting to be written, at most `bufferLimit`: past it new records are dropped and counted. */
function createBuffer({ log, observer, bufferLimit }: RequestLogDeps) {
  let held: RequestEntry[] = [];
  let overflowing = false;
  const report = () => observer.buffered(held.length);
  return {
    size: () => held.length,
    /** Holds a record; false when the buffer is full and it was dropped. */
    hold(entry: RequestEntry): boolean {
      if (held.length >= bufferLimit) {
        if (!overflowing) log.warn({ held: held.length, bufferLimit }, "request log buffer full; new records are dropped until it is written");
        overflowing = true;
        observer.dropped("overflow", 1);
        return false;
      }
      held.push(entry);
      return true;
    },
    /** Takes the next round out of the buffer. */
    take(): RequestEntry[] {
      const round = held.slice(0, ROUND);
      held = held.slice(round.length);
      report();
      return round;
    },
    /** A round was written: the buffer has room again. */
    written(): void {
      overflowing = false;
      report();
    },
    /** A round could not be written: it goes back to the head. */
    putBack(round: RequestEntry[]): void {
      held = round.concat(held);
    },
    /** Gives up what is held (PostgreSQL away at stop). */
    dropAll(): void {
      log.error({ records: held.length }, "request log records left unwritten at stop (PostgreSQL away); dropped");
      observer.dropped("stopped", held.length);
      held = [];
      report();
    },
  };
}

/** The waits for the next round written: what a long-poll of the log waits on between its looks. */
function createRoundWaits(): Pick<RequestLog, "nextRound" | "endWaits"> & { roundWritten(): void } {
  const roundWaiters = new Set<() => void>();
  let waitsEnded = false;

  function roundWritten() {
    for (const wake of roundWaiters) wake();
    roundWaiters.clear();
  }

  return {
    roundWritten,
    nextRound(ms, signal) {
      if (waitsEnded || signal?.aborted) return Promise.resolve(false);
      return new Promise<boolean>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", done);
          roundWaiters.delete(done);
          resolve(!waitsEnded && !signal?.aborted);
        };
        const timer = setTimeout(done, ms);
        signal?.addEventListener("abort", done, { once: true });
        roundWaiters.add(done);
      });
    },
    endWaits() {
      waitsEnded = true;
      roundWritten();
    },
  };
}

/** The first record of a round waits LINGER_MS for others, unless it is woken (a round's worth held, a flush, a stop). */
function createLinger() {
  let wake: (() => void) | undefined;
  return {
    async wait(): Promise<void> {
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, LINGER_MS).unref();
      });
      wake = undefined;
    },
    wake: () => wake?.(),
  };
}

export function createRequestLog(deps: RequestLogDeps): RequestLog {
  const { log, observer, health } = deps;
  const buffer = createBuffer(deps);
  const rounds = createRoundWaits();
  const linger = createLinger();
  let writing: Promise<void> | undefined;
  let urgent = false;
  let stopping = false;

  /** Writes rounds until the buffer is empty, retrying a round with backoff while PostgreSQL is away. */
  async function writeAll(): Promise<void> {
    let failures = 0;
    while (buffer.size() > 0) {
      if (!urgent && !stopping && buffer.size() < ROUND && failures === 0) await linger.wait();
      if (!health.postgres.up && !stopping) {
        // The health watch probes it with backoff; the records wait for it.
        await sleep(250);
        continue;
      }
      const round = buffer.take();
      if (await writeRound(deps, round)) {
        failures = 0;
        buffer.written();
        rounds.roundWritten();
        continue;
      }
      buffer.putBack(round);
      failures++;
      if (stopping && failures >= TRIES_AT_STOP) {
        buffer.dropAll();
        break;
      }
      await sleep(backoffMs(failures, { capMs: 2_000 }));
    }
    urgent = false;
  }

  function startWriting() {
    writing ??= writeAll()
      .catch((err: unknown) => log.error({ err }, "request log writer failed"))
      .finally(() => {
        writing = undefined;
        if (buffer.size() > 0) startWriting();
      });
  }

  async function drained(): Promise<void> {
    while (writing) await writing;
  }

  return {
    add(entry) {
      // A request answered as the process stops, after the writer's last round: too late to be written.
      if (stopping) return observer.dropped("stopped", 1);
      if (!buffer.hold(entry)) return;
      if (buffer.size() >= ROUND) linger.wake();
      startWriting();
    },
    async flush() {
      if (buffer.size() === 0 && !writing) return;
      urgent = true;
      linger.wake();
      startWriting();
      await drained();
    },
    nextRound: rounds.nextRound,
    endWaits: rounds.endWaits,
    async close() {
      rounds.endWaits();
      stopping = true;
      linger.wake();
      if (buffer.size() > 0) startWriting();
      await drained();
    },
  };
}
