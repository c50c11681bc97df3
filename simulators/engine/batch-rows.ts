// The rows one batch of a network writes, a list per table of its store: the merchants it learnt of, the
// purchases, their messages, the work they scheduled and cancelled, and what the batch adds to its runs'
// counts. Pure: ./history.ts writeBatch writes them in one statement.
import type { BatchRows, MerchantWrite, PurchaseWrite, RunCount } from "./store.ts";
import { COUNTED_AS } from "./types.ts";

type Row = Record<string, unknown>;

/**
 * What a batch writes: a purchase written twice in the batch (say bought then cleared) keeps its last state,
 * a message sent twice counts its copies once, and a due entry the batch both schedules and cancels is left out.
 */
export function batchRows(writes: PurchaseWrite[], merchants: MerchantWrite[], done: string[]): BatchRows {
  const purchases = new Map<string, Row>();
  const messages = new Map<string, { copies: number } & Row>();
  const due = new Map<string, Row>();
  const cancel = new Set<string>(done);
  for (const w of writes) {
    const p = w.purchase;
    purchases.set(p.id, {
      id: p.id,
      scheme: p.scheme,
      native_id: w.nativeId,
      card_id: p.card.id,
      location_id: p.merchant.locationId,
      amount: p.amount,
      local_date: p.localDateTime.slice(0, 10),
      authorized_at: p.authorizedAt,
      state: w.state,
      refunded: w.refunded ?? 0,
      cleared: w.cleared ?? 0,
      run_id: w.runId,
      purchase: p,
      environment: w.environment,
    });
    for (const m of w.messages) {
      const seen = messages.get(m.value.messageId);
      if (seen) {
        seen.copies += m.delivery.copies;
        continue;
      }
      messages.set(m.value.messageId, {
        message_id: m.value.messageId,
        scheme: p.scheme,
        purchase_id: p.id,
        kind: m.kind,
        delivery: m.delivery.delivery,
        copies: m.delivery.copies,
        sent_at: m.at.toISOString(),
        value: m.value,
      });
    }
    for (const d of w.schedule) {
      if (!due.has(d.id)) due.set(d.id, { id: d.id, scheme: p.scheme, due_at: d.dueAt.toISOString(), kind: d.kind, payload: d.payload, environment: w.environment });
    }
    for (const id of w.cancel) cancel.add(id);
  }
  return {
    merchants: merchantRows(merchants),
    purchases: [...purchases.values()],
    messages: [...messages.values()],
    due: [...due.values()].filter((d) => !cancel.has(String(d.id))),
    cancel: [...cancel],
    counts: runCounts(writes),
  };
}

/** The merchants, each once (the last write of it wins). */
function merchantRows(merchants: MerchantWrite[]): Row[] {
  const rows = new Map<string, Row>();
  for (const m of merchants) {
    rows.set(`${m.scheme}\u0000${m.merchant.key}`, {
      scheme: m.scheme,
      merchant_key: m.merchant.key,
      location_id: m.merchant.locationId,
      onboarded: m.onboarded,
      merchant: m.merchant,
      at: m.at.toISOString(),
      environment: m.environment,
    });
  }
  return [...rows.values()];
}

/** What the writes of traffic runs add to each run's totals: purchases made, messages by kind, drops and duplicates. */
function runCounts(writes: PurchaseWrite[]): RunCount[] {
  const counts = new Map<string, RunCount>();
  for (const w of writes) {
    if (w.runId === null) continue;
    const key = `${w.runId}\u0000${w.purchase.scheme}`;
    const c = counts.get(key) ?? { run_id: w.runId, scheme: w.purchase.scheme, purchases: 0, auth: 0, clearing: 0, refund: 0, void: 0, dropped: 0, duplicated: 0 };
    counts.set(key, c);
    if (w.created) c.purchases++;
    for (const m of w.messages) {
      c[COUNTED_AS[m.kind]] += m.delivery.copies;
      if (m.delivery.delivery === "dropped") c.dropped++;
      if (m.delivery.copies > 1) c.duplicated++;
    }
  }
  return [...counts.values()];
}
