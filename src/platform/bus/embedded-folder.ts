// The embedded log's folder: the lock that keeps it to one process, and the topics it holds with their
// partition counts (topics.json); the partition files and the offsets file are kept by their own modules.
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BusError } from "./bus.ts";

/** Takes the folder for this process; refuses one a live process holds, takes over one whose process is gone. */
export function takeLock(dir: string): void {
  const lock = join(dir, "LOCK");
  if (existsSync(lock)) {
    const pid = Number(readFileSync(lock, "utf8"));
    if (pid !== process.pid && isAlive(pid)) {
      throw new BusError(`${dir} is in use by process ${pid}: the embedded log belongs to one process`);
    }
  }
  writeFileSync(lock, String(process.pid));
}

export function releaseLock(dir: string): void {
  rmSync(join(dir, "LOCK"), { force: true });
}

/** Topic name -> partition count. */
export type TopicCounts = Record<string, number>;

export function readTopicCounts(dir: string): TopicCounts {
  const path = join(dir, "topics.json");
  return existsSync(path) ? (JSON.parse(readFileSync(path, "utf8")) as TopicCounts) : {};
}

export function saveTopicCounts(dir: string, counts: TopicCounts): void {
  writeFileSync(join(dir, "topics.json.tmp"), JSON.stringify(counts, null, 2));
  renameSync(join(dir, "topics.json.tmp"), join(dir, "topics.json"));
}

function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
