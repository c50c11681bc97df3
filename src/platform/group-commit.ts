// Group commit: requests that arrive together share one round of statements. A call joins the round that
// is gathering; a round starts on the next turn of the event loop when none is running, and otherwise as
// soon as the running one ends (or, with a tick, a tick after the running one started), taking everything
// that arrived meanwhile. So an idle service answers one request with no added wait, and a busy one pays per
// round, not per request: the busier, the larger the rounds. Each caller gets its own result or its own
// error; a round that fails as a whole fails each call in it.
// With `fairBy`, a round that cannot take everything waiting takes it in fair turns (deficit round robin over
// each tenant's calls), so one tenant's thousand calls delay another's by a round at most, not by a thousand.
import { DeficitRoundRobin } from "../domain/fair-share.ts";

/** What a round says of one input: its result, or the error that input alone gets. */
export type Outcome<O> = { ok: O } | { error: unknown };

export interface GroupOptions<I> {
  /** At most this many inputs in one round; the rest wait for the next. */
  maxRound?: number;
  /** The tenant an input counts toward (an account): a round full to maxRound is filled in fair turns among tenants. */
  fairBy?: (input: I) => string;
  /**
   * Once busy (the last round carried more than one input's worth), a round starts no sooner than this
   * many milliseconds after the one before it started (0: as soon as it ended). A busy group then runs a
   * round a tick, each carrying a tick's inputs, instead of rounds back to back that each carry a few: its
   * statements a second stay bounded however fast rounds could go. A quiet group's call (the last round
   * carried one) starts its round at once, and so does the round after a full one (more was waiting).
   */
  tickMs?: number;
}

/**
 * The tick of the stream's hops and the front door's rounds: a busy hop runs at most one round (one set of
 * statements) per tick (docs/architecture.md, "A tick").
 */
export const ROUND_TICK_MS = 50;

/** A bound on a round by what its inputs weigh (a batch of messages weighs its count), beside `maxRound`. */
export interface SizeBound<I> {
  sizeOf: (input: I) => number;
  /** A round takes no more inputs once their sizes reach this; it takes one input whatever its size. */
  maxSize: number;
}

export type Grouped<I, O> = (input: I) => Promise<O>;

/** One call a round: `run` answers every input of the round, in order. */
export function groupCommit<I, O>(
  run: (inputs: I[]) => Promise<Outcome<O>[]>,
  { maxRound = 1_000, fairBy, size, tickMs = 0 }: GroupOptions<I> & { size?: SizeBound<I> } = {},
): Grouped<I, O> {
  interface Waiting {
    input: I;
    resolve: (value: O) => void;
    reject: (err: unknown) => void;
  }
  const gathering = new DeficitRoundRobin<Waiting>();
  let running = false;
  let scheduled = false;
  /** When the last round started (performance.now()), and how much it carried: 0 after a full one. */
  let lastStart = -Infinity;
  let lastSize = 0;

  async function round(): Promise<void> {
    scheduled = false;
    lastStart = performance.now();
    const taken: Waiting[] = [];
    let weight = 0;
    while (taken.length < maxRound && (taken.length === 0 || !size || weight < size.maxSize)) {
      const next = gathering.shift();
      if (!next) break;
      taken.push(next.item);
      weight += size ? size.sizeOf(next.item.input) : 1;
    }
    // A full round leaves more waiting: the next one goes as soon as it ends.
    const full = taken.length === maxRound || (size !== undefined && weight >= size.maxSize);
    lastSize = full && gathering.size > 0 ? 0 : weight;
    running = true;
    try {
      const outcomes = await run(taken.map((w) => w.input));
      taken.forEach((w, i) => {
        const outcome = outcomes[i];
        if (!outcome) w.reject(new Error("group commit: a round answered fewer inputs than it was given"));
        else if ("ok" in outcome) w.resolve(outcome.ok);
        else w.reject(outcome.error);
      });
    } catch (err) {
      for (const w of taken) w.reject(err);
    } finally {
      running = false;
      if (gathering.size > 0) schedule();
    }
  }

  function schedule(): void {
    if (running || scheduled) return;
    scheduled = true;
    const wait = lastSize > 1 ? lastStart + tickMs - performance.now() : 0;
    if (wait > 1) setTimeout(() => void round(), wait);
    else setImmediate(() => void round());
  }

  return (input) =>
    new Promise<O>((resolve, reject) => {
      gathering.push(fairBy ? fairBy(input) : "", { input, resolve, reject });
      schedule();
    });
}

/** One group per handle it works with (a database: a test's, a benchmark's, the service's), made on first use. */
export function perHandle<H extends object, I, O>(make: (handle: H) => Grouped<I, O>): (handle: H) => Grouped<I, O> {
  const groups = new WeakMap<H, Grouped<I, O>>();
  return (handle) => {
    let group = groups.get(handle);
    if (!group) groups.set(handle, (group = make(handle)));
    return group;
  };
}

/** Looks keys up a round at a time: `load` answers the rows of many keys in one statement. */
export function groupedLookup<H extends object, K, V>(
  load: (handle: H, keys: K[]) => Promise<Map<K, V>>,
  options?: GroupOptions<K>,
): (handle: H, key: K) => Promise<V | undefined> {
  const group = perHandle((db: H) =>
    groupCommit<K, V | undefined>(async (keys) => {
      const found = await load(db, [...new Set(keys)]);
      return keys.map((k) => ({ ok: found.get(k) }));
    }, options),
  );
  return (db, key) => group(db)(key);
}
