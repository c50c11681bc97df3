// Who holds DATA_DIR (src/app/data-dir-lock.ts takes and releases the lock): read by the composition root
// and by the CLI's client commands, which find the running server's URL here when none is given.
import { readFileSync } from "node:fs";
import { join } from "node:path";

export interface LockHolder {
  pid: number;
  command: string;
  started: string;
  /** The holder's HTTP address once it serves the API. */
  url?: string;
}

export const lockPath = (dir: string) => join(dir, "cardlink.lock");

export const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists and belongs to someone else.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
};

export function readHolder(path: string): LockHolder | undefined {
  try {
    const holder = JSON.parse(readFileSync(path, "utf8")) as LockHolder;
    return Number.isInteger(holder.pid) ? holder : undefined;
  } catch {
    return undefined;
  }
}

/** The live process holding `dir`, if any (not this one). */
export function lockHolder(dir: string): LockHolder | undefined {
  const holder = readHolder(lockPath(dir));
  return holder && holder.pid !== process.pid && alive(holder.pid) ? holder : undefined;
}
