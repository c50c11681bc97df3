// The structured logger (pino, JSON lines on stdout), and what happens when stdout goes away.
//
// Lines are written synchronously: pino's default asynchronous stdout flushes what is left when the process
// exits, and that flush retries a write failing with EPIPE forever (`npm start | tee log`, then Ctrl-C:
// tee is gone before the drain's last lines), so the process never ended. A closed stdout (EPIPE, as
// `npm start | head -1` leaves it) is reported once to onStdoutClosed, and the drain ends the process as
// SIGPIPE would, cleanly; nothing is written to stdout after that.
import pino, { type Logger } from "pino";
import type { Config } from "./config/index.ts";

const closedListeners = new Set<() => void>();
let stdoutClosed = false;
let watchingStdout = false;

function closed() {
  if (stdoutClosed) return;
  stdoutClosed = true;
  for (const listener of closedListeners) listener();
}

/** Calls `listener` once stdout has been found closed (EPIPE), at once if it already was. */
export function onStdoutClosed(listener: () => void): void {
  watchStdout();
  if (stdoutClosed) listener();
  else closedListeners.add(listener);
}

/** process.stdout's own writes (the banner, the CLI's answers) report a closed stdout here too. */
function watchStdout() {
  if (watchingStdout) return;
  watchingStdout = true;
  process.stdout.on("error", (err: NodeJS.ErrnoException) => {
    // After EPIPE every later write fails too (the stream is destroyed): nothing more to say to anyone.
    if (err.code === "EPIPE" || stdoutClosed) closed();
    else throw err;
  });
}

export function createLogger(config: Pick<Config, "LOG_LEVEL">): Logger {
  watchStdout();
  // pino.destination ignores EPIPE (writes become no-ops); this listener reports it.
  const destination = pino.destination({ dest: 1, sync: true });
  destination.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code === "EPIPE") closed();
  });
  return pino({ level: config.LOG_LEVEL, base: { service: "cardlink" } }, destination);
}
