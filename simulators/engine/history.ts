// The simulated networks' memory in their own store: merchants and their ids, every purchase and message
// (the history look-ups search), and the queue of work due on the service clock.
import type { OnboardingReply } from "../../src/bus/messages.ts";
import type { SimulatorDb as Db } from "./store.ts";
import type { PurchaseStanding, PurchaseState } from "../../src/domain/purchase-follow-ups.ts";
import type { Delivery } from "./faults.ts";
import type { Merchant, MessageKind, NativeTransaction, Purchase, Scheme } from "./types.ts";

export interface PurchaseRecord {
  purchase: Purchase;
  state: PurchaseState;
  refunded: number;
  runId: string | null;
}

interface PurchaseRow {
  purchase: Purchase;
  state: PurchaseState;
  refunded: number;
  run_id: string | null;
}

/** The purchase as the follow-up rules of src/domain/purchase-follow-ups.ts see it. */
export const standingOf = (r: PurchaseRecord): PurchaseStanding => ({
  state: r.state,
  amount: r.purchase.amount,
  currency: r.purchase.currency,
  refunded: r.refunded,
});

const toRecord = (r: PurchaseRow): PurchaseRecord => ({ purchase: r.purchase, state: r.state, refunded: r.refunded, runId: r.run_id });

export async function findMerchant(db: Db, scheme: Scheme, key: string): Promise<{ merchant: Merchant; onboarded: boolean } | undefined> {
  const [row] = await db.query<{ merchant: Merchant; onboarded: boolean }>(
    "select merchant, onboarded from simulator_merchants where scheme = $1 and merchant_key = $2",
    [scheme, key],
  );
  return row;
}

export async function saveMerchant(db: Db, scheme: Scheme, merchant: Merchant, onboarded: boolean, now: Date): Promise<void> {
  await db.query(
    `insert into simulator_merchants (scheme, merchant_key, location_id, onboarded, merchant, created, updated)
     values ($1, $2, $3, $4, $5::jsonb, $6, $6)
     on conflict (scheme, merchant_key) do update set onboarded = excluded.onboarded, merchant = excluded.merchant, updated = excluded.updated`,
    [scheme, merchant.key, merchant.locationId, onboarded, JSON.stringify(merchant), now.toISOString()],
  );
}

/** A purchase by the id it was given or by the network's own id for it. */
export async function findPurchase(db: Db, scheme: Scheme, ref: string): Promise<PurchaseRecord | undefined> {
  const [row] = await db.query<PurchaseRow>(
    "select purchase, state, refunded, run_id from simulator_purchases where scheme = $1 and (id = $2 or native_id = $2)",
    [scheme, ref],
  );
  return row && toRecord(row);
}

export interface MessageWrite {
  kind: MessageKind;
  value: NativeTransaction;
  delivery: Delivery;
  at: Date;
}

/** What one step of a purchase changes, written in one transaction after its messages went out. */
export interface PurchaseWrite {
  purchase: Purchase;
  nativeId: string;
  runId: string | null;
  state: PurchaseState;
  refunded?: number;
  messages: MessageWrite[];
  schedule: Due[];
  cancel: string[];
}

export async function writePurchases(db: Db, writes: PurchaseWrite[]): Promise<void> {
  if (writes.length === 0) return;
  await db.tx(async (tx) => {
    for (const w of writes) {
      const p = w.purchase;
      await tx.query(
        `insert into simulator_purchases (id, scheme, native_id, card_id, location_id, amount, local_date, authorized_at, state, refunded, run_id, purchase)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::jsonb)
         on conflict (id) do update set state = excluded.state, refunded = excluded.refunded`,
        [
          p.id,
          p.scheme,
          w.nativeId,
          p.card.id,
          p.merchant.locationId,
          p.amount,
          p.localDateTime.slice(0, 10),
          p.authorizedAt,
          w.state,
          w.refunded ?? 0,
          w.runId,
          JSON.stringify(p),
        ],
      );
      for (const m of w.messages) {
        await tx.query(
          `insert into simulator_messages (message_id, scheme, purchase_id, kind, delivery, copies, sent_at, value)
           values ($1, $2, $3, $4, $5, $6, $7, $8::jsonb)
           on conflict (message_id) do update set copies = simulator_messages.copies + excluded.copies`,
          [m.value.messageId, p.scheme, p.id, m.kind, m.delivery.delivery, m.delivery.copies, m.at.toISOString(), JSON.stringify(m.value)],
        );
      }
      for (const id of w.cancel) await tx.query("delete from simulator_due where id = $1", [id]);
      for (const due of w.schedule) await scheduleDue(tx, p.scheme, due);
    }
  });
}

export async function messageExists(db: Db, messageId: string): Promise<boolean> {
  return (await db.query("select 1 from simulator_messages where message_id = $1", [messageId])).length > 0;
}

export type Due =
  | { id: string; kind: "clearing"; dueAt: Date; payload: { purchaseId: string } }
  | { id: string; kind: "void"; dueAt: Date; payload: { purchaseId: string } }
  | { id: string; kind: "refund"; dueAt: Date; payload: { purchaseId: string; refundId: string; amount: number } }
  | { id: string; kind: "onboarding-reply"; dueAt: Date; payload: { reply: OnboardingReply; merchant: Merchant | null } };

export async function scheduleDue(db: Db, scheme: Scheme, due: Due): Promise<boolean> {
  const rows = await db.query(
    `insert into simulator_due (id, scheme, due_at, kind, payload) values ($1, $2, $3, $4, $5::jsonb)
     on conflict (id) do nothing returning id`,
    [due.id, scheme, due.dueAt.toISOString(), due.kind, JSON.stringify(due.payload)],
  );
  return rows.length > 0;
}

export async function dueBefore(db: Db, scheme: Scheme, now: Date, limit: number): Promise<Due[]> {
  const rows = await db.query<{ id: string; kind: Due["kind"]; due_at: Date; payload: Due["payload"] }>(
    "select id, kind, due_at, payload from simulator_due where scheme = $1 and due_at <= $2 order by due_at, id limit $3",
    [scheme, now.toISOString(), limit],
  );
  return rows.map((r) => ({ id: r.id, kind: r.kind, dueAt: r.due_at, payload: r.payload }) as Due);
}

export async function removeDue(db: Db, id: string): Promise<void> {
  await db.query("delete from simulator_due where id = $1", [id]);
}

export async function cardKnown(db: Db, scheme: Scheme, cardId: string): Promise<boolean> {
  return (await db.query("select 1 from simulator_purchases where scheme = $1 and card_id = $2 limit 1", [scheme, cardId])).length > 0;
}

/** The card's purchases with a local date in [from, to], authorised at or after `since`. */
export async function purchasesOfCard(db: Db, scheme: Scheme, cardId: string, from: string, to: string, since: Date): Promise<PurchaseRecord[]> {
  const rows = await db.query<PurchaseRow>(
    `select purchase, state, refunded, run_id from simulator_purchases
     where scheme = $1 and card_id = $2 and local_date between $3 and $4 and authorized_at >= $5
     order by authorized_at limit 200`,
    [scheme, cardId, from, to, since.toISOString()],
  );
  return rows.map(toRecord);
}

/** How many purchases a traffic run has generated for a scheme: where a restarted run picks up. */
export async function purchasesOfRun(db: Db, scheme: Scheme, runId: string): Promise<number> {
  const [row] = await db.query<{ n: number }>("select count(*)::int8 as n from simulator_purchases where run_id = $1 and scheme = $2", [runId, scheme]);
  return row?.n ?? 0;
}

/** The program an onboarding request named for the merchant (traffic runs can keep to one program). */
export async function setMerchantProgram(db: Db, scheme: Scheme, key: string, programId: string): Promise<void> {
  await db.query("update simulator_merchants set program_id = $3 where scheme = $1 and merchant_key = $2", [scheme, key, programId]);
}

/** A card as an enrolment told the network about it (an unenrolment keeps it, no longer enrolled). */
export async function saveCard(
  db: Db,
  card: { scheme: Scheme; cardId: string; programId: string; firstSix: string; lastFour: string; live: boolean; enrolled: boolean },
  now: Date,
): Promise<void> {
  await db.query(
    `insert into simulator_cards (scheme, card_id, program_id, first_six, last_four, live, enrolled, updated)
     values ($1, $2, $3, $4, $5, $6, $7, $8)
     on conflict (scheme, card_id) do update set enrolled = excluded.enrolled, updated = excluded.updated`,
    [card.scheme, card.cardId, card.programId, card.firstSix, card.lastFour, card.live, card.enrolled, now.toISOString()],
  );
}
