// The DATA_DIR lock file as its readers see it (src/app/data-dir-lock.ts writes it): which process holds
// DATA_DIR and the URL it serves the API at, so CLI commands find the running `npm start` on their own.
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

export const processAlive = (pid: number) => {
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

/** The URL the live process holding `dataDir` serves the API at, if one does. */
export function runningServerUrl(dataDir: string): string | undefined {
  const holder = readHolder(lockPath(dataDir));
  return holder?.url && processAlive(holder.pid) ? holder.url : undefined;
}
