// The V8 heap bound (old space, MiB) each Cardlink process runs with, as the launchers set it: `npm start`
// (package.json), the image's roles (Dockerfile's NODE_OPTIONS). The benches run their Cardlink processes,
// and the qualifier they feed directly, under the same bounds.
import { spawn } from "node:child_process";
import { constants } from "node:os";

export const HEAP_MIB = { start: 384, role: 256 } as const;
export type Bounded = keyof typeof HEAP_MIB;

/** The node option that bounds a process as `kind` runs. */
export const heapOption = (kind: Bounded) => `--max-old-space-size=${HEAP_MIB[kind]}`;

/**
 * Runs this bench again under `kind`'s bound unless it has one (given on the command line or in
 * NODE_OPTIONS): the child's exit code, or undefined in the bounded process itself.
 */
export function runBounded(kind: Bounded): Promise<number> | undefined {
  if ([...process.execArgv, ...(process.env.NODE_OPTIONS ?? "").split(/\s+/)].some((a) => a.startsWith("--max-old-space-size"))) return undefined;
  const child = spawn(process.execPath, [...process.execArgv, heapOption(kind), ...process.argv.slice(1)], { stdio: "inherit" });
  process.on("SIGTERM", () => child.kill("SIGTERM"));
  return new Promise((resolve) => child.once("exit", (code, signal) => resolve(code ?? 128 + (signal ? constants.signals[signal] : 0))));
}
