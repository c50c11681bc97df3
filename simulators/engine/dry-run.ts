// The dry run: the native messages one network would publish for a generated population, as JSON
// lines in the order it would publish them, with no bus, no database and no wall clock — the same
// arguments give the same bytes.
import { loadSchema, normalize } from "../../src/platform/bus/avro.ts";
import { generatePools, PurchaseStream } from "./generator.ts";
import { seededRandom, hashSeed } from "./random.ts";
import { DAY_MS, type SchemeAdapter } from "./scheme.ts";
import type { NativeTransaction } from "./types.ts";

export interface DryRunOptions {
  seed: number;
  /** Purchases to generate. */
  count: number;
  /** Service time of the first purchase. */
  start: Date;
  cards: number;
  merchants: number;
  /** Mean real-world gap between purchases, in seconds. */
  meanGapSeconds: number;
}

export const DRY_RUN_DEFAULTS = { start: new Date("2026-01-05T09:00:00Z"), cards: 50, merchants: 20, meanGapSeconds: 300 };

interface Line {
  at: number;
  order: number;
  topic: string;
  key: string;
  value: NativeTransaction;
}

export function dryRun(adapter: SchemeAdapter, options: DryRunOptions): string {
  const pools = generatePools(adapter, options.seed, { cards: options.cards, merchants: options.merchants });
  const stream = new PurchaseStream(adapter, options.seed, pools);
  const gaps = seededRandom(hashSeed(options.seed, adapter.scheme, "arrivals"));
  const lines: Line[] = [];
  const push = (at: Date, value: NativeTransaction, key: string) =>
    lines.push({ at: at.getTime(), order: lines.length, topic: adapter.topic, key, value });
  let time = options.start.getTime();
  for (let i = 0; i < options.count; i++) {
    const at = new Date(time);
    const { purchase, plan } = stream.next(at);
    const key = purchase.card.id;
    push(at, adapter.auth(purchase, at), key);
    const clearingAt = adapter.clearingDue(purchase.id, at);
    if (plan.outcome === "void") {
      push(new Date(at.getTime() + plan.afterMs), adapter.void(purchase, new Date(at.getTime() + plan.afterMs)), key);
    } else if (plan.outcome === "clear" && plan.clearings) {
      // As the network sends them: the parts a day apart, each its own clearing (the whole amount at once is the purchase's one).
      plan.clearings.forEach((amount, n) => {
        const partAt = new Date(clearingAt.getTime() + n * DAY_MS);
        const part = amount === purchase.amount ? undefined : { clearingId: `${purchase.id}:clearing:${n}`, amount };
        push(partAt, adapter.clearing(purchase, partAt, part), key);
      });
    } else {
      push(clearingAt, adapter.clearing(purchase, clearingAt), key);
    }
    if (plan.outcome === "refund") {
      const refundAt = new Date(clearingAt.getTime() + plan.afterClearingMs);
      push(refundAt, adapter.refund(purchase, `${purchase.id}:refund`, plan.amount, refundAt, plan.referenced), key);
    }
    // Exponential gaps: purchases arrive as a Poisson stream, whole seconds apart.
    time += Math.max(1, Math.round(-Math.log(1 - gaps()) * options.meanGapSeconds)) * 1000;
  }
  lines.sort((a, b) => a.at - b.at || a.order - b.order);
  // Each value as the bus would carry it: checked against the topic's Avro schema, fields in its order.
  const schema = loadSchema(`${adapter.scheme}-transaction`);
  return lines
    .map((l) => JSON.stringify({ at: new Date(l.at).toISOString(), topic: l.topic, key: l.key, value: normalize(l.topic, schema, l.value) }) + "\n")
    .join("");
}
