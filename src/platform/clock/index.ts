// The service clock: the one source of business time. Real, scaled (CLOCK_SPEED) or frozen (0),
// and moved forward on demand; whatever is due on service time runs when it moves.
export type ClockMode = "real" | "scaled" | "frozen";

export type DueListener = (now: Date) => Promise<void> | void;

export interface Clock {
  /** Current service time. */
  now(): Date;
  readonly speed: number;
  readonly mode: ClockMode;
  /** How far `advance` has moved service time in total, in milliseconds. */
  readonly offsetMs: number;
  /** Moves service time forward by `ms` and runs every due-listener before resolving. */
  advance(ms: number): Promise<Date>;
  /** Registers work that must run when time jumps (workers that poll for due items). */
  onAdvance(listener: DueListener): () => void;
}

export interface ClockOptions {
  speed: number;
  start?: Date;
  /** Service time already moved forward before this clock was made (kept across restarts). */
  offsetMs?: number;
  /** The wall clock, injectable for the clock's own tests. */
  wall?: () => number;
}

export function createClock({ speed, start, offsetMs = 0, wall = () => Date.now() }: ClockOptions): Clock {
  const realAnchor = wall();
  const serviceAnchor = start ? start.getTime() : realAnchor;
  let offset = offsetMs;
  const listeners = new Set<DueListener>();
  const mode: ClockMode = speed === 0 ? "frozen" : speed === 1 ? "real" : "scaled";

  const nowMs = () => serviceAnchor + (wall() - realAnchor) * speed + offset;

  return {
    speed,
    mode,
    get offsetMs() {
      return offset;
    },
    now: () => new Date(nowMs()),
    async advance(ms: number) {
      if (!Number.isFinite(ms) || ms < 0) throw new RangeError("the clock only moves forward");
      if (nowMs() + ms > LATEST_SERVICE_TIME.getTime()) {
        throw new RangeError(`the service clock stays before ${LATEST_SERVICE_TIME.toISOString()}`);
      }
      offset += ms;
      const now = new Date(nowMs());
      for (const listener of [...listeners]) await listener(now);
      return now;
    },
    onAdvance(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/** The service clock as the configuration sets it (CLOCK_SPEED, CLOCK_START), `offsetMs` advanced already. */
export const configuredClock = (config: { CLOCK_SPEED: number; CLOCK_START?: string | undefined }, offsetMs: number): Clock =>
  createClock({ speed: config.CLOCK_SPEED, ...(config.CLOCK_START ? { start: new Date(config.CLOCK_START) } : {}), offsetMs });

/**
 * The latest service time an advance may reach: 99 years short of 9999-12-31, so that every date
 * computed from service time (offer end dates, retries, return periods) still has a four-digit year
 * that ISO 8601 strings, PostgreSQL and the local-date rules all read.
 */
export const LATEST_SERVICE_TIME = new Date("9900-01-01T00:00:00.000Z");

/** The most one unit of `POST /admin/clock/advance` moves service time: a year (366 days). */
export const MAX_ADVANCE_DAYS = 366;

/** Milliseconds in the units `POST /admin/clock/advance` accepts. */
export const durationMs = ({ days = 0, hours = 0, minutes = 0, seconds = 0 }: {
  days?: number;
  hours?: number;
  minutes?: number;
  seconds?: number;
}) => ((days * 24 + hours) * 60 + minutes) * 60_000 + seconds * 1000;
