// One process per embedded database: the first process to open DATA_DIR (PGlite and the embedded log
// live there) holds DATA_DIR/cardlink.lock, a pid file created exclusively, as PostgreSQL's
// postmaster.pid is. A second process finds the holder alive and refuses, naming the directory and the
// holder; a pid file left by a crash (its process is gone) is taken over. A server records its URL in
// the file, so data-changing CLI commands can go through its /admin API instead.
import { linkSync, mkdirSync, renameSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import type { Config } from "../platform/config/index.ts";
import { alive, lockHolder, lockPath, readHolder, type LockHolder } from "../platform/config/data-dir-holder.ts";

export { lockHolder, type LockHolder };

export class DataDirLockedError extends Error {
  override name = "DataDirLockedError";
  constructor(
    readonly dir: string,
    readonly holder: LockHolder,
    /** The settings that let several processes share one database instead. */
    shared = "DATABASE_URL and KAFKA_BROKERS",
  ) {
    super(
      `DATA_DIR ${dir} is in use by process ${holder.pid} (cardlink ${holder.command}, started ${holder.started}` +
        `${holder.url ? `, serving ${holder.url}` : ""}). One process opens an embedded database at a time: ` +
        `stop that process, or give this one another DATA_DIR (or ${shared} to share one database).`,
    );
  }
}

export interface DataDirLock {
  readonly path: string;
  /** Records the URL the holder serves the API at, for CLI commands to find it. */
  setUrl(url: string): void;
  release(): void;
}

/**
 * Whether a process keeps an embedded part in DATA_DIR — PGlite, or (when it uses the bus) the embedded
 * log — and so must hold DATA_DIR's lock.
 */
export const usesDataDir = (config: Config, { bus }: { bus: boolean }) => !config.DATABASE_URL || (bus && !config.KAFKA_BROKERS);


/**
 * Takes DATA_DIR (or a folder of it that holds one embedded database) for this process, or throws
 * DataDirLockedError naming the live holder and `shared`, the settings that would share a database instead.
 */
export function lockDataDir(dir: string, command: string, shared?: string): DataDirLock {
  mkdirSync(dir, { recursive: true });
  const path = lockPath(dir);
  const holder: LockHolder = { pid: process.pid, command, started: new Date().toISOString() };
  const write = (value: LockHolder) => {
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(value) + "\n", { mode: 0o600 });
    return tmp;
  };
  for (let attempt = 0; ; attempt++) {
    // link() of a complete file is atomic and fails when the lock exists: no one reads a half-written lock.
    const tmp = write(holder);
    try {
      linkSync(tmp, path);
      unlinkSync(tmp);
      break;
    } catch (err) {
      unlinkSync(tmp);
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
    const current = readHolder(path);
    if ((current && current.pid !== process.pid && alive(current.pid)) || attempt > 0) {
      throw new DataDirLockedError(resolve(dir), current ?? { pid: 0, command: "unknown", started: "unknown" }, shared);
    }
    // Left by a process that is gone (or by this pid before a restart in a container): take it over.
    // Of two processes doing this at once, one wins the link of the next attempt.
    rmSync(path, { force: true });
  }
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    if (readHolder(path)?.pid === process.pid) rmSync(path, { force: true });
  };
  process.once("exit", release);
  return {
    path,
    setUrl(url) {
      renameSync(write({ ...holder, url }), path);
    },
    release() {
      process.removeListener("exit", release);
      release();
    },
  };
}
