// The state of one dependency (PostgreSQL, the bus) as this process sees it. A role that finds it
// unreachable says so once (a warning), probes it again with bounded backoff, says once that it is back
// (info), and meanwhile skips work that needs it; readiness (`/health/ready`) reports the same state.
import type { Logger } from "pino";

export type DependencyName = "postgres" | "bus";

/** A dependency did not answer in time or refused; the request made nothing and may be retried. */
export class DependencyUnavailableError extends Error {
  override name = "DependencyUnavailableError";
  constructor(
    readonly dependency: DependencyName,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export interface DependencyState {
  status: "up" | "down";
  /** When the dependency was last found down or back (real time), if it ever was. */
  since?: string;
  /** Why it is down. */
  error?: string;
}

export interface Dependency {
  readonly name: DependencyName;
  readonly up: boolean;
  /** An operation failed because the dependency is unreachable: the first report logs and starts probing. */
  lost(err: unknown): void;
  /** Probes now (bounded by the probe timeout) and answers the state it found. */
  check(): Promise<DependencyState>;
  state(): DependencyState;
  stop(): void;
}

export interface DependencyOptions {
  name: DependencyName;
  /** Resolves when the dependency answers; rejects (or takes longer than `probeTimeoutMs`) when it does not. */
  probe: () => Promise<unknown>;
  log: Logger;
  minDelayMs?: number;
  maxDelayMs?: number;
  probeTimeoutMs?: number;
}

const describe = (err: unknown) => (err instanceof Error ? err.message || err.name : String(err));

/** Rejects after `ms` unless `work` settles first. */
export function within<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

export function watchDependency({ name, probe, log, minDelayMs = 250, maxDelayMs = 5_000, probeTimeoutMs = 2_000 }: DependencyOptions): Dependency {
  let up = true;
  let since: Date | undefined;
  // Outage lengths in real monotonic time; `since` (real wall time, not service time) is for the report only.
  let sinceMs = 0;
  let error: string | undefined;
  let timer: NodeJS.Timeout | undefined;
  let delay = minDelayMs;
  let stopped = false;

  const markUp = () => {
    if (up) return;
    const downForMs = since ? Math.round(performance.now() - sinceMs) : 0;
    up = true;
    since = new Date();
    error = undefined;
    delay = minDelayMs;
    clearTimeout(timer);
    timer = undefined;
    log.info({ dependency: name, downForMs }, `${name} is back`);
  };

  const schedule = () => {
    if (stopped || up || timer) return;
    // The probe timer does not keep the process alive by itself; closeOnSignal does (src/app/system.ts).
    timer = setTimeout(() => {
      timer = undefined;
      within(probe(), probeTimeoutMs, name).then(markUp, (err: unknown) => {
        error = describe(err);
        delay = Math.min(delay * 2, maxDelayMs);
        schedule();
      });
    }, delay);
    timer.unref();
  };

  const dependency: Dependency = {
    name,
    get up() {
      return up;
    },
    lost(err) {
      error = describe(err);
      if (!up) return;
      up = false;
      since = new Date();
      sinceMs = performance.now();
      log.warn({ dependency: name, err: error }, `${name} unavailable; retrying with backoff up to ${maxDelayMs} ms`);
      schedule();
    },
    async check() {
      try {
        await within(probe(), probeTimeoutMs, name);
        markUp();
      } catch (err) {
        dependency.lost(err);
      }
      return dependency.state();
    },
    state: () => ({ status: up ? "up" : "down", ...(since ? { since: since.toISOString() } : {}), ...(error && !up ? { error } : {}) }),
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
  return dependency;
}
