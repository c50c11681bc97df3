// DATA_DIR holds PGlite's files, the embedded bus log, hook secrets and key digests: only its owner may
// read it. The folder and every folder in it are 0700, every file 0600. A process that opens DATA_DIR
// sets its umask to 077, so what it writes later (bus segments, offsets, new relation files) is born
// private; what PGlite's initdb unpacks with mode 0666 is tightened after opening.
import { chmodSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";

/** Creates DATA_DIR (0700) and makes everything this process writes from now on private to its user. */
export function secureDataDir(dir: string): void {
  process.umask(0o077);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
}

/** Folders 0700, files 0600, throughout `dir` (older DATA_DIRs, and what a library wrote with a mode of its own). */
export function tightenDataDir(dir: string): void {
  chmodSync(dir, 0o700);
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) tightenDataDir(path);
    else if (entry.isFile()) chmodSync(path, 0o600);
  }
}
