// A network's answer to a missing-transaction look-up: in live, a search of the purchases it made on the
// card within its window (date tolerance, amount match score), under the look-up error fault; in test, the
// purchase exactly as asked, with a full score.
import type { LookupReply, LookupRequest } from "../../src/platform/bus/messages.ts";
import type { Clock } from "../../src/platform/clock/index.ts";
import { countryByAlpha3 } from "../../src/domain/countries.ts";
import type { SimulatorDb as Db } from "./db.ts";
import type { FaultDice, Faults } from "./faults.ts";
import { cardKnown, findMerchant, purchasesOfCard } from "./store.ts";
import { DATE_TOLERANCE_DAYS, MAX_ENTRIES, MIN_MATCH_SCORE, matchScore } from "./matching.ts";
import { hashSeed, seededRandom } from "./random.ts";
import { DAY_MS } from "../../src/domain/time-units.ts";
import { descriptor, isoDate, type SchemeAdapter } from "./scheme.ts";
import type { Merchant, Purchase } from "./types.ts";

/** What answering a look-up needs of its network. */
export interface LookupNetwork {
  db: Db;
  clock: Clock;
  seed: number;
  adapter: SchemeAdapter;
  dice: FaultDice;
  faults: Faults;
}

/** The reply to one look-up request, as the network publishes it (the caller applies delivery faults). */
export async function answerLookup(net: LookupNetwork, request: LookupRequest): Promise<LookupReply> {
  const now = net.clock.now();
  const base = { requestId: request.requestId, scheme: net.adapter.scheme, cardId: request.cardId, respondedAt: now.toISOString() };
  if (!request.live) return { ...base, outcome: "SUCCEEDED", error: null, transactions: await testLookupEntries(net, request, now) };
  const failed = (code: NonNullable<LookupReply["error"]>["code"], message: string): LookupReply => ({
    ...base,
    outcome: "FAILED",
    error: { code, message },
    transactions: [],
  });
  if (net.dice.roll(net.faults.lookupErrorRate)) return failed(net.faults.lookupErrorCode, "The network could not process the look-up.");
  const windowDays = net.adapter.lookupWindowDays;
  const since = new Date(now.getTime() - windowDays * DAY_MS);
  if (request.transactionDate < isoDate(since) || request.transactionDate > isoDate(now)) {
    return failed("transaction-not-found", `The date is outside the ${windowDays}-day window ${net.adapter.scheme} searches.`);
  }
  if (!(await cardKnown(net.db, net.adapter.scheme, request.cardId))) {
    return failed("card-not-found", `${net.adapter.scheme} has no transactions for this card.`);
  }
  const shift = (days: number) => isoDate(new Date(Date.parse(`${request.transactionDate}T00:00:00Z`) + days * DAY_MS));
  const found = await purchasesOfCard(net.db, net.adapter.scheme, request.cardId, shift(-DATE_TOLERANCE_DAYS), shift(DATE_TOLERANCE_DAYS), since);
  const matches = found
    .map((record) => ({ record, score: matchScore(record.purchase, request) }))
    .filter((m) => m.score >= MIN_MATCH_SCORE)
    .sort((a, b) => b.score - a.score || a.record.purchase.authorizedAt.localeCompare(b.record.purchase.authorizedAt))
    .slice(0, MAX_ENTRIES);
  if (matches.length === 0) return failed("transaction-not-found", "No transaction on this card matches the amount and date.");
  return {
    ...base,
    outcome: "SUCCEEDED",
    error: null,
    transactions: matches.flatMap((m) => net.adapter.lookupEntries(m.record.purchase, m.record.state === "cleared", m.score)),
  };
}

/**
 * The test network's answer: the purchase exactly as asked — that card, at that location (the merchant
 * as this network knows it, with the MIDs the request carries), on that date, for that amount — in the
 * scheme's look-up shape, with a full match score.
 */
async function testLookupEntries(net: LookupNetwork, request: LookupRequest, now: Date): Promise<LookupReply["transactions"]> {
  const key = request.locationId ?? `card:${request.cardId}`;
  const known = (await findMerchant(net.db, net.adapter.scheme, key))?.merchant;
  const name = known?.name ?? "Test merchant";
  const assigned = net.adapter.assignMids(seededRandom(hashSeed(net.seed, net.adapter.scheme, key)), descriptor(name, known?.city ?? ""), true);
  const given = request.mids.map((m) => ({ ...assigned, ...Object.fromEntries(Object.entries(m).filter(([, v]) => v !== null)) }));
  const merchant: Merchant = known
    ? { ...known, mids: given[0] ?? known.mids }
    : {
        key,
        locationId: request.locationId,
        name,
        address: "",
        city: "",
        postcode: "",
        countryCode: "GBR",
        timezone: "UTC",
        mcc: "5999",
        mids: given[0] ?? assigned,
      };
  const purchase: Purchase = {
    id: `test-lookup:${request.requestId}`,
    scheme: net.adapter.scheme,
    card: { id: request.cardId, firstSix: "000000", lastFour: request.cardLastNumbers.slice(-4) },
    merchant,
    amount: request.amount,
    currency: countryByAlpha3(merchant.countryCode)?.currency ?? "USD",
    localDateTime: `${request.transactionDate}T12:00:00`,
    authorizedAt: now.toISOString(),
    cardPresent: true,
    wallet: null,
    targetingTag: null,
  };
  return net.adapter.lookupEntries(purchase, true, 100);
}
