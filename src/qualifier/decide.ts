// The qualifier's decide step (batch.ts runs it): every message of the batch in batch order, so per card in
// order, into the plan the write step writes. Activation counts and "rewarded once" hold in a batch, across
// the clearings of one authorisation too; refunds are linked to their purchases. Memory only: the rules are
// the domain's (src/domain/qualification.ts), the facts are what the resolve step read.
//
// `decideInOrder` sends each message to its case: a void, a refund, an increment or the expiry of a
// recorded authorisation, a clearing of its own (part of its authorisation, more than it, one of several),
// a clearing the network sent again, the other stage of a recorded purchase, or a new purchase (a
// network's — with an authorisation or a clearing with none — or a publisher's submission). The cases are in
// cases.ts; each adds to the one `Decision` (decision.ts) the batch's messages share.
import { isRepeatedClearing } from "../domain/qualification.ts";
import type { Clock } from "../platform/clock/index.ts";
import { environmentNow } from "../platform/clock/environment.ts";
import { DUPLICATE, drop, purchaseIdOf, type Item, type Verdict } from "./item.ts";
import { isClearingOfItsOwn, rowOf, type Decision, type Facts, type Plan } from "./decision.ts";
import { decideClearingOfAuth, decideExpiry, decideIncrement, decideOtherStage, decidePurchase, decideRefund, decideVoid } from "./cases.ts";

export type { Facts, Plan };

/**
 * Decides every item in batch order; the plan holds one verdict per item, in the items' order. Each item
 * is stamped with its environment's time: the service time `at`, or its sandbox's clock over it.
 */
export function decideInOrder(items: Item[], facts: Facts, at: Pick<Clock, "now" | "offsetMs">): Plan {
  const now = at.now();
  const plan: Plan = {
    verdicts: [],
    transactionOf: new Map(),
    inserted: new Map(),
    updated: new Map(),
    claims: [],
    claimItems: [],
    marks: [],
    redecided: new Set(),
    messages: new Map(),
    midTouches: new Map(),
    activations: new Map(),
  };
  const d: Decision = { plan, facts, now, nowIso: now.toISOString(), claimed: new Set() };
  const service = { now, nowIso: d.nowIso };
  const own = new Map<string, { now: Date; nowIso: string }>();
  for (const item of items) {
    const account = facts.cards.get(item.tx.cardId)?.account_id;
    const clock = account === undefined ? undefined : facts.clocks.get(account);
    let time = service;
    if (clock) {
      time = own.get(account!) ?? { now: environmentNow({ now: () => now, offsetMs: at.offsetMs }, clock), nowIso: "" };
      time.nowIso ||= time.now.toISOString();
      own.set(account!, time);
    }
    d.now = time.now;
    d.nowIso = time.nowIso;
    plan.verdicts.push(decideItem(d, item));
  }
  return plan;
}

/** Sends an item to its case by its stage and what is recorded of its purchase. */
function decideItem(d: Decision, item: Item): Verdict {
  const { tx } = item;
  const card = d.facts.cards.get(tx.cardId);
  if (!card) return drop("card not enrolled");
  if (tx.stage === "void") return decideVoid(d, item);
  if (tx.stage === "refund") return decideRefund(d, item, card);
  const id = purchaseIdOf(tx);
  const existing = rowOf(d, id);
  if (tx.stage === "increment") return decideIncrement(d, item, card, existing);
  if (tx.stage === "expiry") return decideExpiry(d, item, existing);
  if (!existing) return decidePurchase(d, item, card, id, tx.stage);
  // A reference submitted before: its transaction stands as recorded.
  if (item.submitted) return DUPLICATE;
  // The network sent a clearing again (its own message id, the clearing's reference): recorded and rewarded once.
  if (tx.stage === "clearing" && isRepeatedClearing(existing.clearings, tx.clearingKey)) return DUPLICATE;
  if (tx.stage === "clearing" && isClearingOfItsOwn(existing, tx)) return decideClearingOfAuth(d, item, card, existing);
  return decideOtherStage(d, item, existing, tx.stage);
}
