// `listen --since` and `listen --resume`: the events of the listener's program that happened while it was
// not running, read from GET /programs/{id}/webhook-events and shown oldest first before the live
// deliveries, no event twice across the seam; and where each listener stopped, kept in
// DATA_DIR/listen-positions.json by server URL, program and environment, so a restart resumes after it.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DAY_MS, HOUR_MS, MINUTE_MS, SECOND_MS } from "../domain/time-units.ts";
import type { Config } from "../platform/config/index.ts";
import { answer, type Connection } from "./connection.ts";
import { instantOption } from "./instant-option.ts";
import { UsageError } from "./args.ts";
import type { Event, VerifiedEvent } from "./receiver.ts";

const UNIT_MS = { s: SECOND_MS, m: MINUTE_MS, h: HOUR_MS, d: DAY_MS } as const;

/**
 * `--since`: a span back from the environment's time (`90s`, `15m`, `1h`, `2d`) or an instant with its
 * offset (`2026-03-01T09:00:00Z`), else a UsageError naming the option.
 */
export function sinceOption(value: string): { spanMs: number } | { instant: string } {
  const span = /^(\d+)(s|m|h|d)$/.exec(value.trim());
  if (span) return { spanMs: Number(span[1]) * UNIT_MS[span[2] as keyof typeof UNIT_MS] };
  if (/^\d{4}-/.test(value)) return { instant: instantOption("since", value) };
  throw new UsageError("--since: must be a span back from now such as 90s, 15m, 1h or 2d, or an instant such as 2026-03-01T09:00:00Z");
}

/** The time of the connection's environment (a sandbox's own clock, or the service clock), as events carry it. */
export const environmentNow = async (conn: Connection): Promise<string> => (await answer(conn.url, conn.client.GET("/v1/clock"))).now;

/** An event as the program's event list gives it: the body its deliveries carry. */
export interface PastEvent extends Event {
  created: string;
}

/** Every event of the program written at or after `from` (service time of its environment), oldest first. */
export async function pastEvents(conn: Connection, programId: string, from: string): Promise<PastEvent[]> {
  const newestFirst: PastEvent[] = [];
  let start: string | undefined;
  do {
    const page = await answer(
      conn.url,
      conn.client.GET("/v1/programs/{programId}/webhook-events", { params: { path: { programId }, query: { from, limit: "100", ...(start ? { start } : {}) } } }),
    );
    newestFirst.push(...page.items.map((e) => e.payload as PastEvent));
    start = page.last;
  } while (start);
  return newestFirst.reverse();
}

/**
 * Where a listener stands on one program: every event written before `through` was shown to it (or
 * happened before it first listened), and `shown` names those at or after `through` it showed.
 */
export interface Position {
  through: string;
  shown: string[];
}

/** The file's key of a listener: the server, the program and the environment (test or live, in a sandbox or not). */
export const positionKey = (conn: Connection, programId: string) =>
  `${conn.url} ${programId} ${conn.sandbox ? `sandbox ${conn.sandbox} ` : ""}${conn.live ? "live" : "test"}`;

const positionsPath = (config: Config) => join(config.DATA_DIR, "listen-positions.json");

const readPositions = (config: Config): Record<string, Position> => {
  const path = positionsPath(config);
  try {
    return existsSync(path) ? (JSON.parse(readFileSync(path, "utf8")) as Record<string, Position>) : {};
  } catch {
    // A file cut short (a crash mid-write of an older version): the positions start again.
    return {};
  }
};

export const readPosition = (config: Config, key: string): Position | undefined => readPositions(config)[key];

/**
 * One listener's position, written to the file a moment after each event it shows (and at once by
 * `flush`, on exit). Each write re-reads the file, so listeners of other programs keep theirs.
 */
export class PositionKeeper {
  private through: string;
  /** The ids shown at or after `through`, with the time each event was written. */
  private shown: Map<string, string>;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly config: Config,
    private readonly key: string,
    start: Position,
  ) {
    this.through = start.through;
    this.shown = new Map(start.shown.map((id) => [id, start.through]));
    this.write();
  }

  /** An event shown, live or caught up. */
  showed(event: Pick<VerifiedEvent, "id" | "created">): void {
    this.shown.set(event.id, event.created);
    this.timer ??= setTimeout(() => this.flush(), 100);
  }

  /**
   * After catching up on `past` (the program's events from `through` on, oldest first), every one of them
   * was shown or passed over: the position moves to the newest and keeps only the ids written at its instant.
   */
  caughtUp(past: readonly PastEvent[]): void {
    const newest = past.at(-1)?.created;
    if (newest === undefined) return;
    this.through = newest;
    this.shown = new Map(past.filter((e) => e.created === newest).map((e) => [e.id, e.created]));
    this.flush();
  }

  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.write();
  }

  private write(): void {
    const positions = readPositions(this.config);
    positions[this.key] = { through: this.through, shown: [...this.shown.keys()] };
    mkdirSync(this.config.DATA_DIR, { recursive: true, mode: 0o700 });
    // Written beside and renamed over, so a listener stopped mid-write leaves the former file whole.
    const path = positionsPath(this.config);
    writeFileSync(`${path}.${process.pid}`, JSON.stringify(positions, null, 2) + "\n", { mode: 0o600 });
    renameSync(`${path}.${process.pid}`, path);
  }
}

/**
 * The seam between the events caught up on and the live deliveries: a delivery waits until the catching
 * up is done, and an event already shown (caught up, or delivered twice) is not shown again.
 */
export class Seam {
  private readonly seen = new Set<string>();
  private opened!: () => void;
  private readonly open = new Promise<void>((resolve) => (this.opened = resolve));

  /** Whether the event is new to this listener, marking it seen. */
  first(id: string): boolean {
    if (this.seen.has(id)) return false;
    this.seen.add(id);
    return true;
  }

  /** The receiver's `admit`: live deliveries wait for `goLive`, then each event is shown once. */
  readonly admit = async (event: VerifiedEvent): Promise<boolean> => {
    await this.open;
    return this.first(event.id);
  };

  goLive(): void {
    this.opened();
  }
}
