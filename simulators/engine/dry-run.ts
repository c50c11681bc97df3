// The dry run: the native messages one network would publish for a generated population, as JSON
// lines in the order it would publish them, with no bus, no database and no wall clock — the same
// arguments give the same bytes.
import { loadSchema, normalize } from "../../src/platform/bus/avro.ts";
import { generatePools, PurchaseStream } from "./generator.ts";
import { seededRandom, hashSeed } from "./random.ts";
import { DAY_MS, SECOND_MS } from "../../src/domain/time-units.ts";
import type { SchemeAdapter } from "./scheme.ts";
import { expiresAt } from "../../src/domain/purchase-follow-ups.ts";
import { roundMoney } from "../../src/domain/money.ts";
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
    const clear = plan.outcome === "clear" ? plan : null;
    const clearingAt = adapter.clearingDue(purchase.id, at);
    // A clearing with no authorisation comes when the network clears, with nothing before it.
    if (clear?.withoutAuth) push(clearingAt, adapter.clearing(purchase, clearingAt, undefined, { withoutAuth: true }), key);
    else push(at, adapter.auth(purchase, at), key);
    const expires = plan.outcome === "expire" || (plan.outcome !== "void" && !clear?.withoutAuth && expiresAt(at, purchase.authExpiryDays) < clearingAt);
    // As the network sends them: an increment before the clearing, which then clears the new amount.
    const cleared = clear?.increment && !expires ? { ...purchase, amount: roundMoney(purchase.amount + clear.increment.amount, purchase.currency) } : purchase;
    if (clear?.increment && !expires) {
      const incrementAt = new Date(at.getTime() + clear.increment.afterMs);
      push(incrementAt, adapter.increment(purchase, `${purchase.id}:increment`, clear.increment.amount, incrementAt), key);
    }
    const first = clear?.clearings?.[0];
    const firstPart = first === undefined || first === purchase.amount ? undefined : { clearingId: `${purchase.id}:clearing:0`, amount: first };
    const expiryAt = expiresAt(at, purchase.authExpiryDays);
    // What its clearings leave of it (a part that never clears) expires in its time.
    const left = roundMoney(purchase.amount - (clear?.clearings ?? []).reduce((sum, part) => sum + part, 0), purchase.currency);
    if (!expires && clear?.clearings && left > 0) push(expiryAt, adapter.expiry(purchase, left, expiryAt), key);
    if (expires) {
      push(expiryAt, adapter.expiry(purchase, purchase.amount, expiryAt), key);
    } else if (plan.outcome === "void") {
      push(new Date(at.getTime() + plan.afterMs), adapter.void(purchase, new Date(at.getTime() + plan.afterMs)), key);
    } else if (clear?.clearings) {
      // As the network sends them: the parts a day apart, each its own clearing (the whole amount at once is the purchase's one).
      clear.clearings.forEach((amount, n) => {
        const partAt = new Date(clearingAt.getTime() + n * DAY_MS);
        const part = amount === purchase.amount ? undefined : { clearingId: `${purchase.id}:clearing:${n}`, amount };
        push(partAt, adapter.clearing(purchase, partAt, part), key);
      });
    } else if (!clear?.withoutAuth) {
      push(clearingAt, adapter.clearing(cleared, clearingAt), key);
    }
    if (clear?.duplicate && !expires) {
      const resentAt = new Date(clearingAt.getTime() + DAY_MS);
      push(resentAt, adapter.clearing(cleared, resentAt, firstPart, { resent: true, withoutAuth: clear.withoutAuth ?? false }), key);
    }
    if (plan.outcome === "refund") {
      const refundAt = new Date(clearingAt.getTime() + plan.afterClearingMs);
      push(refundAt, adapter.refund(purchase, `${purchase.id}:refund`, plan.amount, refundAt, plan.referenced), key);
    }
    // Exponential gaps: purchases arrive as a Poisson stream, whole seconds apart.
    time += Math.max(1, Math.round(-Math.log(1 - gaps()) * options.meanGapSeconds)) * SECOND_MS;
  }
  lines.sort((a, b) => a.at - b.at || a.order - b.order);
  // Each value as the bus would carry it: checked against the topic's Avro schema, fields in its order.
  const schema = loadSchema(`${adapter.scheme}-transaction`);
  return lines
    .map((l) => JSON.stringify({ at: new Date(l.at).toISOString(), topic: l.topic, key: l.key, value: normalize(l.topic, schema, l.value) }) + "\n")
    .join("");
}
