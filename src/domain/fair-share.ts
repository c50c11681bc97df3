// Fair turns among tenants (accounts, a sandbox counting toward its owner): deficit round robin over their
// queues, max-min fair shares of a capacity, and the capacity a front door admits as the latency it sees and
// the stream's backlog move. Pure: the API's admission gate and group commit's rounds run on it.

/**
 * Deficit round robin (Shreedhar and Varghese): each tenant with work waiting gets `quantum` of credit per
 * turn and is served while its credit covers the cost of its next item, so every tenant gets the same
 * amount per round whatever the sizes of its items, and one tenant's long queue never delays another's
 * first item by more than a turn. Items of one tenant come out in the order they went in.
 */
export class DeficitRoundRobin<T> {
  /** Each tenant's items from `head` on (taken items are cut off in bulk, not one shift at a time). */
  private readonly queues = new Map<string, { items: { item: T; cost: number }[]; head: number; deficit: number }>();
  /** Tenants with items, in turn order; `turn` is where the next visit starts. */
  private ring: string[] = [];
  private turn = 0;
  /** Whether the tenant at `turn` has been given its quantum for this visit. */
  private credited = false;
  private count = 0;

  constructor(private readonly quantum = 1) {
    if (!(quantum > 0)) throw new RangeError("quantum must be more than 0");
  }

  get size(): number {
    return this.count;
  }

  /** Items waiting for `tenant`. */
  sizeOf(tenant: string): number {
    const queue = this.queues.get(tenant);
    return queue ? queue.items.length - queue.head : 0;
  }

  push(tenant: string, item: T, cost = 1): void {
    let queue = this.queues.get(tenant);
    if (!queue) {
      this.queues.set(tenant, (queue = { items: [], head: 0, deficit: 0 }));
      this.ring.push(tenant);
    }
    queue.items.push({ item, cost });
    this.count++;
  }

  /**
   * The next item in fair turn among the tenants `eligible` admits (all when absent); undefined when none of
   * them has an item. A tenant passed over as ineligible keeps its place and its credit.
   */
  shift(eligible: (tenant: string) => boolean = () => true): { tenant: string; item: T } | undefined {
    if (!this.ring.some(eligible)) return undefined;
    // An eligible tenant gains a quantum at each visit, so its head item's cost is covered within a few passes.
    for (;;) {
      const tenant = this.ring[this.turn]!;
      const queue = this.queues.get(tenant)!;
      if (!eligible(tenant)) {
        this.advance();
        continue;
      }
      if (!this.credited) {
        queue.deficit += this.quantum;
        this.credited = true;
      }
      const head = queue.items[queue.head]!;
      if (queue.deficit >= head.cost) {
        queue.deficit -= head.cost;
        queue.head++;
        this.count--;
        if (queue.head === queue.items.length) this.drop(tenant);
        else if (queue.head >= 1_024 && queue.head * 2 >= queue.items.length) {
          queue.items.splice(0, queue.head);
          queue.head = 0;
        }
        return { tenant, item: head.item };
      }
      this.advance();
    }
  }

  private advance(): void {
    this.credited = false;
    this.turn = this.ring.length === 0 ? 0 : (this.turn + 1) % this.ring.length;
  }

  /** An emptied queue leaves the ring and forgets its credit (DRR: no saving up while idle). */
  private drop(tenant: string): void {
    const at = this.ring.indexOf(tenant);
    this.queues.delete(tenant);
    this.ring.splice(at, 1);
    if (at < this.turn) this.turn--;
    else if (at === this.turn) this.credited = false;
    if (this.turn >= this.ring.length) this.turn = 0;
  }
}

/**
 * Max-min fair shares of `capacity` (water-filling): tenants asking for less than an equal split get what they
 * ask; what they leave is split equally among the rest. So when capacity shrinks, the heaviest tenants' shares
 * shrink first and a light tenant keeps its own until every share is down to it.
 */
export function fairShares(demands: ReadonlyMap<string, number>, capacity: number): Map<string, number> {
  const shares = new Map<string, number>();
  const ascending = [...demands].sort((a, b) => a[1] - b[1]);
  let left = Math.max(0, capacity);
  ascending.forEach(([tenant, demand], i) => {
    const share = Math.min(Math.max(0, demand), left / (ascending.length - i));
    shares.set(tenant, share);
    left -= share;
  });
  return shares;
}

/** What the front door saw since its last look, for `nextCapacity`. */
export interface CapacitySignals {
  /** More than one tenant has asked lately: someone's latency is at stake besides the asker's own. */
  contended: boolean;
  /** The median latency of the work admitted in the last interval, ms; undefined with too few samples. */
  latencyMs: number | undefined;
  /** The lowest such median over the baseline's horizon: the latency of the pipeline without a queue. */
  baselineMs: number | undefined;
  /** The stream is past a bound (the qualifier's lag, the outbox's backlog). */
  backlogged: boolean;
  /** Work in flight now, every tenant together. */
  inFlight: number;
}

export interface CapacityBounds {
  min: number;
  max: number;
  /** Latency may grow to this many times the baseline while tenants contend. */
  tolerance: number;
}

/**
 * The capacity for the next interval (AIMD over what is in flight). A backlogged stream, or contending
 * tenants whose latency grew past tolerance × baseline, cut it to three quarters of what is in flight (never
 * below `min`); otherwise, while tenants contend, a capacity the work fills grows by a tenth (at least one).
 * A tenant alone queues only behind itself, so without contention or backlog the capacity doubles back to `max`.
 */
export function nextCapacity(current: number, signals: CapacitySignals, bounds: CapacityBounds): number {
  const slow =
    signals.contended && signals.latencyMs !== undefined && signals.baselineMs !== undefined && signals.latencyMs > bounds.tolerance * signals.baselineMs;
  if (signals.backlogged || slow) return Math.max(bounds.min, Math.floor(Math.min(current, signals.inFlight) * 0.75));
  if (!signals.contended) return Math.min(bounds.max, current * 2);
  if (signals.inFlight >= current - 1) return Math.min(bounds.max, current + Math.max(1, Math.floor(current / 10)));
  return current;
}

/** The median of `values` (unsorted); undefined when empty. */
export function median(values: readonly number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)];
}
