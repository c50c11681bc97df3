// The qualifier's decide step over typed values, without I/O: each case of a message (void, refund, a
// clearing of part of its own authorisation, the other stage of a recorded purchase, a new purchase or a
// submission) in batch order, with the drop reasons, the stage events it claims in order and the rows,
// updates, native messages and marks the write step then writes.
import { describe, expect, it } from "vitest";
import { decideInOrder, type Facts } from "../../src/qualifier/decide.ts";
import { purchaseIdOf, type Item } from "../../src/qualifier/item.ts";
import { clearingTransactionIdFor, transactionIdFor } from "../../src/domain/transaction-id.ts";
import { placeAt, transactionRowOf, type NetworkTransaction, type TransactionRow } from "../../src/services/transactions/index.ts";
import type { Offer } from "../../src/services/offers/index.ts";
import type { LocationWithBrand, StoredCard } from "../../src/services/catalog/index.ts";

const NOW = new Date("2026-01-07T10:31:00.000Z");

const card: StoredCard = {
  id: "card-1",
  account_id: "acct-1",
  live: false,
  program_id: "prog-1",
  first_numbers: "444400",
  last_numbers: "4008",
  scheme: "visa",
  metadata: null,
};

const location: LocationWithBrand = {
  id: "loc-1",
  program_id: "prog-1",
  brand_id: "brand-1",
  address: "1 High Street",
  city: "London",
  postcode: "N1 1AA",
  country_code: "GBR",
  timezone: "Europe/London",
  latitude: null,
  longitude: null,
  metadata: null,
  live: false,
  created: NOW,
  updated: NOW,
  brand_name: "Brand",
  brand_logo_url: null,
};

/** £5 back on any purchase at the location, at once (no return period). */
const offer: Offer = {
  id: "offer-1",
  accepted: true,
  activation: { enabled: false },
  additionalTerms: null,
  brandId: "brand-1",
  brandName: "Brand",
  brandLogoURL: null,
  countryCode: "GBR",
  created: "2026-01-01T00:00:00.000Z",
  currency: "GBP",
  daysOfWeek: [0, 1, 2, 3, 4, 5, 6],
  endDate: null,
  feeSplit: 1,
  fees: null,
  funded: { id: "pub-1", type: "card-linking" },
  live: false,
  locationsTotal: 1,
  maxTransactionAmount: null,
  minTransactionAmount: 0,
  metadata: null,
  name: "£5 back",
  origin: { id: "pub-1", type: "card-linking" },
  priority: 1,
  publisherId: "pub-1",
  returnPeriod: 0,
  schemes: ["visa"],
  startDate: "2026-01-01T00:00:00",
  status: "live",
  supplier: null,
  targeting: null,
  type: { name: "amount", value: 5, maxRewardAmount: null },
  transactionSource: null,
  updated: "2026-01-01T00:00:00.000Z",
  marketplace: null,
};

let messages = 0;
/** A Visa message of the card, received as `raw`; its purchase key names the purchase. */
function message(stage: NetworkTransaction["stage"], purchaseKey: string, over: Partial<NetworkTransaction> = {}): Item {
  const tx: NetworkTransaction = {
    scheme: "visa",
    messageId: `m${++messages}`,
    stage,
    purchaseKey,
    originalKey: null,
    clearingKey: null,
    cardId: card.id,
    cardFirstSix: card.first_numbers,
    cardLastFour: card.last_numbers,
    amount: 40,
    currency: "GBP",
    localDateTime: "2026-01-07T10:30:00",
    cardPresent: true,
    wallet: null,
    targetingTag: null,
    merchant: { vmid: "v1", vsid: null, visaAcquiringMid: null, visaBin: null, mcLocationId: null, mcAcquiringMid: null, seNumber: null },
    identifiers: {
      MID: "v1",
      mastercardTransactionSequenceNumber: null,
      mastercardRefNumber: null,
      amexApprovalCode: null,
      visaAuthCode: null,
      mastercardAuthCode: null,
    },
    ...over,
  };
  return { raw: { scheme: "visa", value: { messageId: tx.messageId, stage } }, tx };
}

function facts(over: Partial<Facts> = {}): Facts {
  return {
    recorded: new Set(),
    cards: new Map([[card.id, card]]),
    existing: new Map(),
    refundCandidates: new Map(),
    locations: new Map(),
    mids: new Map(),
    offers: new Map([[location.id, [offer]]]),
    activations: new Map(),
    clocks: new Map(),
    ...over,
  };
}
/** The service clock at NOW, unmoved. */
const AT = { now: () => NOW, offsetMs: 0 };

const purchaseId = (key: string) => transactionIdFor("visa", "purchase", key);
const VERDICT_OK = { kind: "ok" };
const dropped = (reason: string) => ({ kind: "drop", outcome: { kind: "dropped", reason } });

/**
 * One batch with a message of each case, in this order: a card not enrolled, a void of a purchase never
 * recorded, a purchase at no onboarded location, a purchase's auth, its clearing of the whole amount, a
 * clearing of part of it after the whole, a refund of it, the same refund again, its void, a refund at no
 * location naming no purchase, and the partial clearing sent again.
 */
function decideTheBatch() {
  const stranger = message("auth", "p0", { cardId: "card-unknown" });
  const lostVoid = message("void", "p-never");
  const nowhere = message("auth", "p1");
  const auth = message("auth", "p2");
  const clearing = message("clearing", "p2");
  const partClearing = message("clearing", "p2", { amount: 15, clearingKey: "c2" });
  const refund = message("refund", "r1", { amount: -40, originalKey: "p2" });
  const refundAgain = message("refund", "r1", { amount: -40, originalKey: "p2" });
  const voided = message("void", "p2");
  const unplacedRefund = message("refund", "r2", { amount: -10 });
  const clearingAgain = message("clearing", "p2", { amount: 15, clearingKey: "c2" });
  const items = [stranger, lostVoid, nowhere, auth, clearing, partClearing, refund, refundAgain, voided, unplacedRefund, clearingAgain];
  const plan = decideInOrder(items, facts({ locations: new Map([[auth, location]]) }), AT);
  const ids = { p2: purchaseId("p2"), c2: clearingTransactionIdFor("visa", "p2", "c2"), r1: transactionIdFor("visa", "refund", "r1") };
  /** The verdict on the item. */
  const verdictOf = (item: Item) => plan.verdicts[items.indexOf(item)];
  /** The stage events the item claimed, as [transaction, event]. */
  const claimsOf = (item: Item) => plan.claims.filter((_, i) => plan.claimItems[i] === item).map((c) => [c.transactionId, c.event]);
  /** The item's message marks, as [stage, transaction]. */
  const marksOf = (item: Item) => plan.marks.filter((m) => m.messageId === item.tx.messageId).map((m) => [m.stage, m.transactionId]);
  return {
    plan,
    items: { stranger, lostVoid, nowhere, auth, clearing, partClearing, refund, refundAgain, voided, unplacedRefund, clearingAgain },
    ids,
    verdictOf,
    claimsOf,
    marksOf,
  };
}

describe("decideInOrder", () => {
  it("a card not enrolled is dropped", () => {
    const { items, verdictOf, claimsOf, marksOf } = decideTheBatch();
    expect(verdictOf(items.stranger)).toEqual(dropped("card not enrolled"));
    expect(claimsOf(items.stranger)).toEqual([]);
    expect(marksOf(items.stranger)).toEqual([]);
  });

  it("a void of an unrecorded purchase is dropped", () => {
    const { items, verdictOf, claimsOf, marksOf } = decideTheBatch();
    expect(verdictOf(items.lostVoid)).toEqual(dropped("void of a purchase Cardlink did not record"));
    expect(claimsOf(items.lostVoid)).toEqual([]);
    expect(marksOf(items.lostVoid)).toEqual([]);
  });

  it("a purchase at a MID of no onboarded location of the card's program is dropped", () => {
    const { plan, items, verdictOf, claimsOf, marksOf } = decideTheBatch();
    expect(verdictOf(items.nowhere)).toEqual(dropped("no onboarded location of the card's program has this MID"));
    expect(claimsOf(items.nowhere)).toEqual([]);
    expect(marksOf(items.nowhere)).toEqual([]);
    expect(plan.inserted.has(purchaseId("p1"))).toBe(false);
  });

  it("a new purchase is recorded at its location, decided against its offers, and claims its auth events", () => {
    const { plan, items, ids, verdictOf, claimsOf, marksOf } = decideTheBatch();
    expect(verdictOf(items.auth)).toEqual(VERDICT_OK);
    expect(claimsOf(items.auth)).toEqual([
      [ids.p2, "transaction.auth"],
      [ids.p2, "transaction.auth.qualified"],
    ]);
    expect(marksOf(items.auth)).toEqual([["auth", ids.p2]]);
    expect(plan.inserted.get(ids.p2)).toMatchObject({ auth: true, location_id: location.id, offer: { id: offer.id, cashback: 5, qualified: true } });
  });

  it("the clearing of a purchase's whole amount is a stage of its row, with its own events", () => {
    const { plan, items, ids, verdictOf, claimsOf, marksOf } = decideTheBatch();
    expect(verdictOf(items.clearing)).toEqual(VERDICT_OK);
    expect(claimsOf(items.clearing)).toEqual([
      [ids.p2, "transaction.clearing"],
      [ids.p2, "transaction.clearing.qualified"],
    ]);
    expect(marksOf(items.clearing)).toEqual([["clearing", ids.p2]]);
    expect(plan.inserted.get(ids.p2)).toMatchObject({ cleared: true, native_messages: { clearing: items.clearing.raw!.value } });
  });

  it("an amount offer rewards a purchase once: its partial clearing after the whole earns nothing", () => {
    const { plan, items, ids, verdictOf, claimsOf, marksOf } = decideTheBatch();
    expect(verdictOf(items.partClearing)).toEqual(VERDICT_OK);
    expect(claimsOf(items.partClearing)).toEqual([[ids.c2, "transaction.clearing"]]);
    expect(marksOf(items.partClearing)).toEqual([["clearing", ids.c2]]);
    expect(plan.inserted.get(ids.c2)).toMatchObject({ auth_id: ids.p2, amount: 15, location_id: location.id, offer: { cashback: 0, qualified: false } });
    expect(plan.inserted.get(ids.p2)!.clearings).toMatchObject({ amount: 55, count: 2, cashback: 5, keys: ["c2"] });
    expect(plan.transactionOf.get(items.partClearing)).toBe(ids.c2);
  });

  it("a refund of a recorded purchase is linked to it and reverses its cashback", () => {
    const { plan, items, ids, verdictOf, claimsOf, marksOf } = decideTheBatch();
    expect(verdictOf(items.refund)).toEqual(VERDICT_OK);
    expect(claimsOf(items.refund)).toEqual([
      [ids.r1, "transaction.refund"],
      [ids.r1, "transaction.refund.qualified"],
    ]);
    expect(marksOf(items.refund)).toEqual([["refund", ids.r1]]);
    expect(plan.inserted.get(ids.r1)).toMatchObject({ kind: "refund", original_id: ids.p2, amount: -40, offer: { cashback: -5, qualified: true } });
    expect(plan.inserted.get(ids.p2)).toMatchObject({ refund_id: ids.r1 });
  });

  it("a refund already recorded is dropped", () => {
    const { items, verdictOf, claimsOf, marksOf } = decideTheBatch();
    expect(verdictOf(items.refundAgain)).toEqual(dropped("refund already recorded"));
    expect(claimsOf(items.refundAgain)).toEqual([]);
    expect(marksOf(items.refundAgain)).toEqual([]);
  });

  it("a void marks the purchase it voids and keeps its message, with no events of its own", () => {
    const { plan, items, ids, verdictOf, claimsOf, marksOf } = decideTheBatch();
    expect(verdictOf(items.voided)).toEqual(VERDICT_OK);
    expect(claimsOf(items.voided)).toEqual([]);
    expect(marksOf(items.voided)).toEqual([["void", ids.p2]]);
    expect(plan.inserted.get(ids.p2)).toMatchObject({ voided: true, native_messages: { void: items.voided.raw!.value } });
  });

  it("a refund that names no recorded purchase, at no onboarded location of the card's program, is dropped", () => {
    const { plan, items, verdictOf, claimsOf, marksOf } = decideTheBatch();
    expect(verdictOf(items.unplacedRefund)).toEqual(dropped("refund at no onboarded location of the card's program"));
    expect(claimsOf(items.unplacedRefund)).toEqual([]);
    expect(marksOf(items.unplacedRefund)).toEqual([]);
    expect(plan.inserted.has(transactionIdFor("visa", "refund", "r2"))).toBe(false);
  });

  it("a clearing sent twice is a duplicate", () => {
    const { plan, items, ids, verdictOf, claimsOf, marksOf } = decideTheBatch();
    expect(verdictOf(items.clearingAgain)).toEqual({ kind: "drop", outcome: { kind: "duplicate" } });
    expect(claimsOf(items.clearingAgain)).toEqual([]);
    expect(marksOf(items.clearingAgain)).toEqual([]);
    expect(plan.inserted.get(ids.p2)!.clearings).toMatchObject({ count: 2, keys: ["c2"] });
  });

  it("decides each case of a batch in order, with its drop reasons, its stage events once each and the rows it records", () => {
    const { plan, items, ids } = decideTheBatch();
    const { auth, clearing, partClearing, refund, voided } = items;
    const { p2, c2, r1 } = ids;
    expect(plan.verdicts).toEqual([
      dropped("card not enrolled"),
      dropped("void of a purchase Cardlink did not record"),
      dropped("no onboarded location of the card's program has this MID"),
      VERDICT_OK,
      VERDICT_OK,
      VERDICT_OK,
      VERDICT_OK,
      dropped("refund already recorded"),
      VERDICT_OK,
      dropped("refund at no onboarded location of the card's program"),
      { kind: "drop", outcome: { kind: "duplicate" } },
    ]);
    // The amount offer rewards the purchase once: the clearing of part of it after the whole is told why not.
    expect(plan.claims.map((c) => [c.transactionId, c.event])).toEqual([
      [p2, "transaction.auth"],
      [p2, "transaction.auth.qualified"],
      [p2, "transaction.clearing"],
      [p2, "transaction.clearing.qualified"],
      [c2, "transaction.clearing"],
      // The purchase had earned cashback: its refund reverses it, told with transaction.refund.qualified.
      [r1, "transaction.refund"],
      [r1, "transaction.refund.qualified"],
    ]);
    expect(plan.claimItems).toEqual([auth, auth, clearing, clearing, partClearing, refund, refund]);
    expect(plan.marks.map((m) => [m.messageId, m.stage, m.transactionId])).toEqual([
      [auth.tx.messageId, "auth", p2],
      [clearing.tx.messageId, "clearing", p2],
      [partClearing.tx.messageId, "clearing", c2],
      [refund.tx.messageId, "refund", r1],
      [voided.tx.messageId, "void", p2],
    ]);

    // Rows the batch inserts carry every stage the batch adds to them; nothing recorded before is updated.
    expect([...plan.inserted.keys()]).toEqual([p2, c2, r1]);
    expect(plan.updated.size).toBe(0);
    expect(plan.messages.size).toBe(0);
    const purchase = plan.inserted.get(p2)!;
    expect(purchase).toMatchObject({ auth: true, cleared: true, voided: true, refund_id: r1, location_id: location.id });
    expect(purchase.offer).toMatchObject({ id: offer.id, cashback: 5, qualified: true });
    expect(purchase.clearings).toEqual({ amount: 55, count: 2, cashback: 5, performanceFee: purchase.offer.performanceFee, keys: ["c2"] });
    expect(purchase.native_messages).toEqual({ auth: auth.raw!.value, clearing: clearing.raw!.value, void: voided.raw!.value });
    expect(plan.inserted.get(c2)).toMatchObject({ auth_id: p2, amount: 15, location_id: location.id, offer: { cashback: 0, qualified: false } });
    expect(plan.inserted.get(r1)).toMatchObject({ kind: "refund", original_id: p2, amount: -40, offer: { cashback: -5, qualified: true } });
    expect(plan.transactionOf.get(partClearing)).toBe(c2);
  });

  it("updates a recorded purchase with its other stage and keeps the stage's native message for the update", () => {
    const tx = message("auth", "p3").tx;
    const recorded: TransactionRow = {
      ...transactionRowOf({ id: purchaseId("p3"), kind: "purchase", tx, card, now: NOW, result: { ...offerResult(), qualified: true, cashback: 5 }, originalId: null, qualificationDue: null, place: placeAt(location) }),
      native_messages: { auth: { stored: true } },
    };
    const clearing = message("clearing", "p3");

    const plan = decideInOrder([clearing], facts({ existing: new Map([[recorded.id, recorded]]) }), AT);

    expect(plan.verdicts).toEqual([VERDICT_OK]);
    expect([...plan.updated.keys()]).toEqual([recorded.id]);
    expect(plan.updated.get(recorded.id)).toMatchObject({ auth: true, cleared: true, clearings: { amount: 40, count: 1, cashback: 5 } });
    expect(plan.messages.get(recorded.id)).toEqual({ clearing: clearing.raw!.value });
    expect(plan.claims.map((c) => c.event)).toEqual(["transaction.clearing", "transaction.clearing.qualified"]);
    expect(plan.inserted.size).toBe(0);
  });

  it("takes a publisher's submission as a duplicate once its purchase is recorded, and decides it against its one offer before", () => {
    const submission = (): Item => {
      const { tx } = message("clearing", "sub-1");
      return { tx, submitted: { offer, place: { location_id: null, brand_id: offer.brandId, brand: null, location: null } } };
    };
    const first = submission();
    const second = submission();

    const plan = decideInOrder([first, second], facts({ offers: new Map() }), AT);

    expect(plan.verdicts).toEqual([VERDICT_OK, { kind: "drop", outcome: { kind: "duplicate" } }]);
    expect(plan.inserted.get(purchaseIdOf(first.tx))).toMatchObject({ location_id: null, brand_id: offer.brandId, cleared: true, native_messages: null, offer: { id: offer.id, qualified: true } });
    expect(plan.claims.map((c) => c.event)).toEqual(["transaction.clearing", "transaction.clearing.qualified"]);
  });

  it("stamps each item with its environment's time: a sandbox's clock over the service time", () => {
    const auth = message("auth", "p-sandbox");
    const sandboxed = { frozen: false, offsetMs: 15 * 86_400_000 };
    const plan = decideInOrder([auth], facts({ locations: new Map([[auth, location]]), clocks: new Map([[card.account_id, sandboxed]]) }), AT);
    const later = new Date(NOW.getTime() + sandboxed.offsetMs);
    expect(plan.inserted.get(purchaseIdOf(auth.tx))).toMatchObject({ created: later, updated: later });
    expect(plan.claims.map((c) => c.created)).toEqual([later, later]);
    const frozen = decideInOrder([auth], facts({ locations: new Map([[auth, location]]), clocks: new Map([[card.account_id, { frozen: true, offsetMs: Date.parse("2027-01-01T00:00:00Z") }]]) }), AT);
    expect(frozen.claims[0]!.created).toEqual(new Date("2027-01-01T00:00:00Z"));
  });
});

describe("decideInOrder: the networks' other behaviours", () => {
  const recordedAuth = (key: string, result = { ...offerResult(), qualified: true, cashback: 5, performanceFee: 1 }, amount = 40): TransactionRow => ({
    ...transactionRowOf({ id: purchaseId(key), kind: "purchase", tx: message("auth", key, { amount }).tx, card, now: NOW, result, originalId: null, qualificationDue: null, place: placeAt(location) }),
  });

  it("takes a clearing with no authorisation for a purchase of its own, cleared and decided on its amount", () => {
    const clearing = message("clearing", "p-offline", { amount: 30, clearingKey: "arn-1" });
    const plan = decideInOrder([clearing], facts({ locations: new Map([[clearing, location]]) }), AT);
    expect(plan.inserted.get(purchaseId("p-offline"))).toMatchObject({ auth: false, cleared: true, amount: 30, auth_id: null, offer: { qualified: true, cashback: 5 } });
    expect(plan.claims.map((c) => c.event)).toEqual(["transaction.clearing", "transaction.clearing.qualified"]);
  });

  it("knows a clearing sent again by its reference, whole or part, and records and rewards nothing for it", () => {
    const auth = recordedAuth("p-dup");
    const whole = message("clearing", "p-dup", { clearingKey: "arn-whole" });
    const again = message("clearing", "p-dup", { clearingKey: "arn-whole" });
    const plan = decideInOrder([whole, again], facts({ existing: new Map([[auth.id, auth]]) }), AT);
    expect(plan.verdicts).toEqual([VERDICT_OK, { kind: "drop", outcome: { kind: "duplicate" } }]);
    expect(plan.updated.get(auth.id)!.clearings).toMatchObject({ amount: 40, count: 1, keys: ["arn-whole"] });
    expect(plan.inserted.size).toBe(0);
    expect(plan.claims.map((c) => c.event)).toEqual(["transaction.clearing", "transaction.clearing.qualified"]);
  });

  it("raises an authorisation's amount on an increment, decides it again and sends its .qualified event when it makes it qualify", () => {
    const minimum = { ...offer, minTransactionAmount: 50 };
    const auth = recordedAuth("p-inc", { ...offerResult(), message: ["The amount 40 is below the minimum transaction amount of 50."] });
    const increment = message("increment", "p-inc", { amount: 20 });
    const plan = decideInOrder([increment], facts({ existing: new Map([[auth.id, auth]]), offers: new Map([[location.id, [minimum]]]) }), AT);
    expect(plan.verdicts).toEqual([VERDICT_OK]);
    expect(plan.updated.get(auth.id)).toMatchObject({ amount: 60, offer: { qualified: true, cashback: 5 } });
    expect([...plan.redecided]).toEqual([auth.id]);
    expect(plan.inserted.size).toBe(0);
    // Its transaction.auth went before (the claim loses in the database); its .qualified goes now.
    expect(plan.claims.map((c) => c.event)).toEqual(["transaction.auth", "transaction.auth.qualified"]);
    expect(plan.marks.map((m) => m.stage)).toEqual(["increment"]);
    expect(plan.messages.get(auth.id)).toEqual({ increment: increment.raw!.value });
    expect(decideInOrder([message("increment", "p-never", { amount: 5 })], facts(), AT).verdicts).toEqual([dropped("increment of an authorisation Cardlink did not record")]);
  });

  it("marks an authorisation expired and withdraws its cashback when nothing of it cleared; a second expiry is a duplicate", () => {
    const auth = recordedAuth("p-exp");
    const partly = { ...recordedAuth("p-part"), clearings: { amount: 25, count: 1, cashback: 5, performanceFee: 1 } };
    const [expiry, again, partExpiry] = [message("expiry", "p-exp"), message("expiry", "p-exp"), message("expiry", "p-part", { amount: 15 })];
    const plan = decideInOrder([expiry, again, partExpiry], facts({ existing: new Map([[auth.id, auth], [partly.id, partly]]) }), AT);
    expect(plan.verdicts).toEqual([VERDICT_OK, { kind: "drop", outcome: { kind: "duplicate" } }, VERDICT_OK]);
    expect(plan.updated.get(auth.id)).toMatchObject({
      expired_at: NOW,
      offer: { qualified: false, cashback: 0, performanceFee: 0, message: ["The authorisation expired uncleared: the network withdrew it, and its cashback with it."] },
    });
    // Part of it cleared: those clearings keep their reward, and the authorisation its result.
    expect(plan.updated.get(partly.id)).toMatchObject({ expired_at: NOW, offer: { qualified: true, cashback: 5 } });
    expect([...plan.redecided]).toEqual([auth.id]);
    const view = (c: (typeof plan.claims)[number]) => c.stage as { expired: boolean; offer: { cashback: number } };
    expect(plan.claims.map((c) => [c.transactionId, c.event, view(c).expired, view(c).offer.cashback])).toEqual([
      [auth.id, "transaction.auth.expired", true, 0],
      [partly.id, "transaction.auth.expired", true, 5],
    ]);
  });
});

function offerResult() {
  return { id: offer.id, cashback: 0, performanceFee: 0, qualified: false, qualificationDate: null, message: [] as string[] };
}
