// `cardlink trigger`: fires one webhook event through the real path — the scheme simulator, the bus,
// the qualifier, the outbox and the dispatcher, or the verb that writes it (a brand, a card, a sync, a
// marketplace offer) — on fixtures kept in a program of the caller's test environment (made on first use,
// reused after), then waits for the event and its first delivery.
import type { Ctx } from "../../platform/context.ts";
import { probeOnNotify } from "../../platform/db.ts";
import { OUTBOX_WRITTEN } from "../../platform/outbox.ts";
import { DomainError, invalid } from "../../domain/errors.ts";
import type { SimulatorControl } from "./control.ts";
import { addDays, localAt } from "../../domain/local-dates.ts";
import { createProgram, updateProgram } from "../catalog/index.ts";
import { createBrand } from "../catalog/index.ts";
import { createLocation, trySendOnboardingRequests } from "../catalog/index.ts";
import { enrolCard, getCard } from "../catalog/index.ts";
import { getLocation } from "../catalog/index.ts";
import { getProgram } from "../catalog/index.ts";
import { countryByAlpha3 } from "../../domain/countries.ts";
import type { Scheme } from "../../domain/scheme.ts";
import { getTransaction } from "../transactions/index.ts";
import { adoptMarketplaceOffer, createMarketplaceOffer, createOffer, getOffer, linkLocation, updateMarketplaceOffer, updateOffer } from "../offers/index.ts";
import { addMonths } from "../../domain/local-dates.ts";
import { FAILING_TEST_NUMBERS } from "../../domain/card-number.ts";
import {
  clearTestPurchase,
  expireTestPurchase,
  incrementTestPurchase,
  refundTestPurchase,
  sendTestPurchase,
  type Sent,
  type TestPurchaseInput,
} from "./test-transactions.ts";
import { roundMoney } from "../../domain/money.ts";
import type { Transaction } from "../transactions/index.ts";
import { createMissingTransactionRequest } from "../missing-transactions/index.ts";

export const TRIGGER_EVENTS = [
  "transaction.auth.qualified",
  "transaction.auth",
  "transaction.clearing",
  "transaction.clearing.qualified",
  "transaction.refund",
  "transaction.refund.qualified",
  "transaction.auth.expired",
  "location.status",
  "offer.extended",
  "missing-transaction-request.succeeded",
  "missing-transaction-request.failed",
  "brand.consent",
  "card.linked",
  "card.failed",
  "program.status",
  "marketplace.offer.live",
  "marketplace.offer.updated",
] as const;
export type TriggerEvent = (typeof TRIGGER_EVENTS)[number];

/**
 * What the network does beside a plain purchase, and the events it fires through: a clearing with no
 * authorisation, a clearing above the authorisation by a tip, a clearing after an incremental authorisation,
 * a clearing the network sends twice (each of these a clearing event); a purchase billed in another
 * currency than the location's (any transaction event).
 */
export const TRIGGER_BEHAVIOURS = ["without-auth", "tip", "incremented", "duplicate-clearing", "converted"] as const;
export type TriggerBehaviour = (typeof TRIGGER_BEHAVIOURS)[number];
const CLEARING_EVENTS: readonly TriggerEvent[] = ["transaction.clearing", "transaction.clearing.qualified"];
/** The tip `tip` adds to the clearing: 15 %, inside the bound (TIP_BOUND). */
const TIP_SHARE = 0.15;
/** What `incremented` adds to the authorisation: 20 %. */
const INCREMENT_SHARE = 0.2;

/** Marks the fixtures' records (metadata), so a later trigger finds and reuses them. */
const MARK = { cardlinkFixtures: true } as const;
/** The fixtures' test card of each scheme. */
const FIXTURE_CARDS: Record<Scheme, string> = { visa: "4444000000004008", mastercard: "5555000000005007", amex: "340000000000306" };
const ZONE = "Europe/London";
/** The fixtures offer: 10% off from 5.00 GBP, so 42.00 qualifies and 1.00 does not. */
const QUALIFYING_AMOUNT = 42;
const BELOW_MINIMUM_AMOUNT = 1;
/** The test network's missing-transaction-request outcomes by amount (spec): any other amount succeeds. */
const FAILING_REQUEST_AMOUNTS = [10.01, 10.02, 10.03, 10.04, 10.05, 10.06];

/** What a trigger may change of its default purchase (or request) on the fixtures. */
export interface TriggerOverrides {
  /** The fixtures card of this scheme (made on first use); the card's own scheme when cardId is given. */
  scheme?: Scheme | undefined;
  amount?: number | undefined;
  /** The purchase's currency: the location's own (from its country); others are refused. */
  currency?: string | undefined;
  cardId?: string | undefined;
  locationId?: string | undefined;
  /** A program of the caller's test environment: the fixtures location and card are made in it. */
  programId?: string | undefined;
  targeting?: "new" | "lapsed" | "existing" | undefined;
  /** Local to the location, YYYY-MM-DDThh:mm:ss (a request's transactionDate is its date). */
  datetime?: string | undefined;
  /** What the network does beside a plain purchase (TRIGGER_BEHAVIOURS). */
  behaviour?: TriggerBehaviour | undefined;
}

/** The overrides each event takes (the others are refused, naming the option). */
const PURCHASE_OVERRIDES = ["scheme", "amount", "currency", "cardId", "locationId", "programId", "targeting", "datetime", "behaviour"] as const;
const APPLIES: Record<TriggerEvent, readonly (keyof TriggerOverrides)[]> = {
  "transaction.auth.qualified": PURCHASE_OVERRIDES,
  "transaction.auth": PURCHASE_OVERRIDES,
  "transaction.clearing": PURCHASE_OVERRIDES,
  "transaction.clearing.qualified": PURCHASE_OVERRIDES,
  "transaction.refund": PURCHASE_OVERRIDES,
  "transaction.refund.qualified": PURCHASE_OVERRIDES,
  "transaction.auth.expired": PURCHASE_OVERRIDES,
  "location.status": ["programId"],
  "offer.extended": [],
  "missing-transaction-request.succeeded": ["scheme", "amount", "cardId", "locationId", "programId", "datetime"],
  "missing-transaction-request.failed": ["scheme", "amount", "cardId", "locationId", "programId", "datetime"],
  "brand.consent": [],
  "card.linked": ["scheme", "programId"],
  "card.failed": ["scheme", "programId"],
  "program.status": ["programId"],
  "marketplace.offer.live": ["programId"],
  "marketplace.offer.updated": ["programId"],
};

export interface Fixtures {
  programId: string;
  brandId: string;
  locationId: string;
  cardId: string;
  offerId: string;
}

async function findMarked(ctx: Ctx, table: "programs" | "brands" | "locations" | "cards", programId?: string, scheme?: Scheme): Promise<string | undefined> {
  const params: unknown[] = [ctx.accountId, ctx.live, JSON.stringify(MARK)];
  const and = (column: string, value: string | undefined) => (value === undefined ? "" : `and ${column} = $${params.push(value)}`);
  const [row] = await ctx.db.query<{ id: string }>(
    `select id from ${table} where account_id = $1 and live = $2 and metadata @> $3::jsonb
     ${and("program_id", programId)} ${and("scheme", scheme)} order by created, id limit 1`,
    params,
  );
  return row?.id;
}

/**
 * The fixtures program of the caller's test environment with a brand, a location, a card and a live
 * offer linked to the location; what is missing (or was deleted) is made again. One caller at a time.
 * With `programId`, the location and card are found or made in that program of the caller's instead;
 * with `scheme`, the card is the fixtures card of that scheme; a `cardId` or `locationId` of the caller's
 * is used as it is (nothing is made or linked in its place).
 */
export async function ensureFixtures(
  ctx: Ctx,
  options: { programId?: string | undefined; scheme?: Scheme | undefined; cardId?: string | undefined; locationId?: string | undefined } = {},
): Promise<Fixtures> {
  if (ctx.live) throw new DomainError("invalid", "trigger: works in the test environment; use a test key (sk_test_…).");
  const scheme = options.scheme ?? "visa";
  if (options.programId) await getProgram(ctx, options.programId);
  const fixtures = await ctx.db.tx(async (db) => {
    // Nothing goes to the networks from inside the transaction: an answer could come back before the
    // location it answers is committed, and find nothing to apply to. What is left unsent goes below.
    const { bus: _afterCommit, ...outside } = ctx;
    const tx: Ctx = { ...outside, db };
    await db.query("select pg_advisory_xact_lock(hashtext($1))", [`fixtures:${ctx.accountId}`]);
    const programId = options.programId ?? (await findMarked(tx, "programs")) ?? (await createProgram(tx, { name: "Fixtures", metadata: MARK })).id;
    const brandId = (await findMarked(tx, "brands")) ?? (await createBrand(tx, { name: "Fixtures Coffee", metadata: MARK })).id;
    const locationId =
      options.locationId ??
      (await findMarked(tx, "locations", programId)) ??
      (await createLocation(tx, programId, { brandId, address: "1 Fixture Street", city: "London", postcode: "SW1A 1AA", countryCode: "GBR", metadata: MARK })).id;
    const cardId =
      options.cardId ??
      (await findMarked(tx, "cards", programId, scheme)) ??
      (await enrolCard(tx, programId, { number: FIXTURE_CARDS[scheme], expMonth: 12, expYear: 2030, countryCode: "GBR", termsOfUse: true, metadata: MARK })).id;
    // The newest fixtures offer, unless it has ended (service time may have moved a year on).
    const [found] = await db.query<{ id: string }>(
      `select id from offers where account_id = $1 and live = $2 and brand_id = $3 and metadata @> $4::jsonb order by created desc, id limit 1`,
      [ctx.accountId, ctx.live, brandId, JSON.stringify(MARK)],
    );
    const current = found && (await getOffer(tx, found.id)).status !== "expired" ? found.id : undefined;
    const offerId =
      current ??
      (
        await createOffer(tx, {
          brandId,
          countryCode: "GBR",
          name: "Fixtures: 10% off coffee",
          publisherId: ctx.accountId,
          startDate: localAt(new Date(ctx.clock.now().getTime() - 86_400_000), ZONE),
          type: { name: "discount", value: 10 },
          minTransactionAmount: 5,
          feeSplit: 1,
          metadata: MARK,
        })
      ).id;
    if (!options.locationId) await linkLocation(tx, offerId, locationId);
    return { programId, brandId, locationId, cardId, offerId };
  });
  // The card's enrolment, left in the network outbox, goes with the workers' next pass.
  await trySendOnboardingRequests(ctx.db, ctx.bus, ctx.clock.now(), { locationIds: [fixtures.locationId] });
  return fixtures;
}

export interface TriggerDelivery {
  hookId: string;
  url: string;
  status: "pending" | "succeeded" | "failed";
  attempts: number;
  responseCode: number | null;
  error: string | null;
}

export interface TriggerResult {
  event: TriggerEvent;
  /** The ids of the events fired (three for location.status, one per scheme). */
  eventIds: string[];
  summary: string;
  resources: Fixtures & {
    transactionId?: string;
    newLocationId?: string;
    missingTransactionRequestId?: string;
    purchaseId?: string;
    newBrandId?: string;
    newCardId?: string;
    marketplaceOfferId?: string;
    addedOfferId?: string;
  };
  /** The transaction the event carries, as recorded (transaction events). */
  transaction?: Transaction;
  /** Whether the dispatcher had taken the event up when the wait ended. */
  dispatched: boolean;
  deliveries: TriggerDelivery[];
}

interface Deps {
  ctx: Ctx;
  simulators: SimulatorControl;
  /** Real milliseconds to wait for the event, then for its first delivery attempts. */
  waitMs: number;
}

/** The events about a subject, by its id: a transaction event's stored data (its stage's view) keeps the transaction's. */
const eventIdsFor = async (ctx: Ctx, event: string, subjectId: string): Promise<string[]> =>
  (
    await ctx.db.query<{ id: string }>(
      `select id from outbox_events where account_id = $1 and live = $2 and event = $3
         and (data->>'id' = $4 or data->'location'->>'id' = $4) order by created, id`,
      [ctx.accountId, ctx.live, event, subjectId],
    )
  ).map((r) => r.id);

const RETRY_AFTER_SECONDS = 5;

const received = (sent: Sent, what: string): Transaction => {
  if (!sent.transaction) {
    throw new DomainError("unavailable", `trigger: the ${what} ${sent.id} was sent but not recorded in time; is the qualifier running?`, RETRY_AFTER_SECONDS);
  }
  return sent.transaction;
};

const describeOffer = (t: Transaction) =>
  t.offer.qualified
    ? `qualified for offer ${t.offer.id}: cashback ${t.offer.cashback} ${t.currency}, performance fee ${t.offer.performanceFee} ${t.currency}`
    : `not qualified: ${t.offer.message.join("; ") || "no live offer applies"}`;

/**
 * The fixtures the event fires on, with the overrides' card, location and program in place of the
 * defaults; refuses an override the event does not take, or a card, location and program that do not fit.
 */
async function resolveFixtures(ctx: Ctx, event: TriggerEvent, o: TriggerOverrides): Promise<Fixtures> {
  for (const [name, value] of Object.entries(o) as [keyof TriggerOverrides, unknown][]) {
    if (value !== undefined && !APPLIES[event].includes(name)) throw invalid(name, `does not apply to ${event}`);
  }
  if (o.behaviour && o.behaviour !== "converted" && !CLEARING_EVENTS.includes(event)) {
    throw invalid("behaviour", `${o.behaviour} is a clearing's: it applies to ${CLEARING_EVENTS.join(" and ")}`);
  }
  if (ctx.live) throw new DomainError("invalid", "trigger: works in the test environment; use a test key (sk_test_…).");
  const card = o.cardId ? await getCard(ctx, o.cardId) : undefined;
  const location = o.locationId ? await getLocation(ctx, o.locationId) : undefined;
  if (card && o.scheme && card.scheme !== o.scheme) throw invalid("scheme", `the card ${card.id} is a ${card.scheme} card`);
  const programId = o.programId ?? card?.programId ?? location?.programId;
  if (card && card.programId !== programId) throw invalid("cardId", `the card is in program ${card.programId}, not ${programId}`);
  if (location && location.programId !== programId) throw invalid("locationId", `the location is in program ${location.programId}, not ${programId}`);
  if (location && o.currency !== undefined) {
    const own = countryByAlpha3(location.countryCode)?.currency;
    if (o.currency !== own) throw invalid("currency", `a purchase at a location in ${location.countryCode} is in ${own ?? "its country's currency"}`);
  } else if (o.currency !== undefined && o.currency !== "GBP") {
    throw invalid("currency", "a purchase at the fixtures location (GBR) is in GBP");
  }
  const fixtures = await ensureFixtures(ctx, { programId, scheme: o.scheme, cardId: card?.id, locationId: location?.id });
  return fixtures;
}

/** What firing an event made: the subject its events name, a line saying what happened, the resources made. */
interface Fired {
  subjectId: string;
  summary: string;
  resources: TriggerResult["resources"];
  /** The subject's events of this kind written before it fired (an offer's earlier extensions). */
  before: string[];
}

interface Firing {
  deps: Deps;
  event: TriggerEvent;
  fixtures: Fixtures;
  overrides: TriggerOverrides;
}

/** Fires the event and waits for it and for the first attempt of each of its deliveries. */
export async function trigger(deps: Deps, event: TriggerEvent, overrides: TriggerOverrides = {}): Promise<TriggerResult> {
  const { ctx, waitMs } = deps;
  const fixtures = await resolveFixtures(ctx, event, overrides);
  checkRequestAmount(event, overrides);
  const deadline = performance.now() + waitMs;
  const fired = await FIRE[event]({ deps, event, fixtures, overrides });
  await refuseUnqualified(ctx, event, fired);
  const eventIds = await writtenEvents(ctx, event, fired, deadline);
  const dispatched = () => allDispatched(ctx, eventIds);
  await attempted(ctx, eventIds, dispatched, deadline);
  const transaction = fired.resources.transactionId ? await getTransaction(ctx, fired.resources.transactionId) : undefined;
  return {
    event,
    eventIds,
    summary: fired.summary,
    resources: fired.resources,
    ...(transaction ? { transaction } : {}),
    dispatched: await dispatched(),
    deliveries: await deliveriesOf(ctx, eventIds),
  };
}

/** A missing-transaction request's amount says how the test network answers: it must fit the event asked for. */
function checkRequestAmount(event: TriggerEvent, overrides: TriggerOverrides): void {
  const failing = event === "missing-transaction-request.failed";
  if (overrides.amount !== undefined && event.startsWith("missing-transaction-request.") && FAILING_REQUEST_AMOUNTS.includes(overrides.amount) !== failing) {
    throw invalid("amount", failing ? `the test network fails requests of ${FAILING_REQUEST_AMOUNTS.join(", ")}` : `${overrides.amount} is a failing test amount; use missing-transaction-request.failed`);
  }
}

/** A test purchase of the fixtures' card at their location, as recorded (`extra`: how the network makes it). */
async function purchase({ deps, fixtures, overrides }: Firing, amount: number, extra: Partial<TestPurchaseInput> = {}): Promise<Transaction> {
  const converted = overrides.behaviour === "converted" ? { billingCurrency: await foreignCurrency(deps.ctx, fixtures.locationId) } : {};
  const sent = await sendTestPurchase(deps, {
    cardId: fixtures.cardId,
    locationId: fixtures.locationId,
    amount: overrides.amount ?? amount,
    ...(overrides.datetime ? { datetime: overrides.datetime } : {}),
    ...(overrides.targeting ? { targetingTag: overrides.targeting } : {}),
    ...converted,
    ...extra,
  });
  return received(sent, extra.stage === "clearing" ? "clearing" : "purchase");
}

/** A currency the card is billed in that is not the location's: USD, or EUR at a location in the United States. */
async function foreignCurrency(ctx: Ctx, locationId: string): Promise<string> {
  const own = countryByAlpha3((await getLocation(ctx, locationId)).countryCode)?.currency;
  return own === "USD" ? "EUR" : "USD";
}

/** What a behaviour adds to a line saying what happened. */
const BEHAVIOUR_SUMMARY: Record<TriggerBehaviour, string> = {
  "without-auth": "with no authorisation first",
  tip: `${TIP_SHARE * 100}% above its authorisation (a tip)`,
  incremented: `after an incremental authorisation of ${INCREMENT_SHARE * 100}%`,
  "duplicate-clearing": "sent twice by the network (recorded once)",
  converted: "billed to the cardholder in another currency",
};
const behaviourOf = (f: Firing) => (f.overrides.behaviour ? ` ${BEHAVIOUR_SUMMARY[f.overrides.behaviour]}` : "");

async function fireAuth(f: Firing): Promise<Fired> {
  const t = await purchase(f, f.event === "transaction.auth" ? BELOW_MINIMUM_AMOUNT : QUALIFYING_AMOUNT);
  return { subjectId: t.id, summary: `purchase ${t.amount} ${t.currency}${behaviourOf(f)}, ${describeOffer(t)}`, resources: { ...f.fixtures, transactionId: t.id }, before: [] };
}

async function fireClearing(f: Firing): Promise<Fired> {
  const { behaviour } = f.overrides;
  if (behaviour === "without-auth") {
    const t = await purchase(f, QUALIFYING_AMOUNT, { stage: "clearing" });
    return { subjectId: t.id, summary: `clearing of ${t.amount} ${t.currency}${behaviourOf(f)}, ${describeOffer(t)}`, resources: { ...f.fixtures, transactionId: t.id }, before: [] };
  }
  const auth = await purchase(f, QUALIFYING_AMOUNT);
  if (behaviour === "incremented") received(await incrementTestPurchase(f.deps, auth.id, roundMoney(auth.amount * INCREMENT_SHARE, auth.currency)), "increment");
  const amount = behaviour === "tip" ? roundMoney(auth.amount * (1 + TIP_SHARE), auth.currency) : undefined;
  const t = received(await clearTestPurchase(f.deps, auth.id, amount, behaviour === "duplicate-clearing"), "clearing");
  return {
    subjectId: t.id,
    summary: `clearing of ${t.amount} ${t.currency}${behaviourOf(f)}, ${describeOffer(t)}`,
    resources: { ...f.fixtures, transactionId: t.id, purchaseId: auth.id },
    before: [],
  };
}

async function fireExpiry(f: Firing): Promise<Fired> {
  const auth = await purchase(f, QUALIFYING_AMOUNT, { autoClear: false });
  const t = received(await expireTestPurchase(f.deps, auth.id), "expiry");
  return {
    subjectId: t.id,
    summary: `authorisation of ${t.amount} ${t.currency}${behaviourOf(f)} expired uncleared, ${describeOffer(t)}`,
    resources: { ...f.fixtures, transactionId: t.id },
    before: [],
  };
}

async function fireRefund(f: Firing): Promise<Fired> {
  const auth = await purchase(f, QUALIFYING_AMOUNT);
  const t = received(await refundTestPurchase(f.deps, auth.id), "refund");
  return {
    subjectId: t.id,
    summary: `refund of ${t.amount} ${t.currency} of purchase ${auth.id}${behaviourOf(f)}, ${describeOffer(t)}`,
    resources: { ...f.fixtures, transactionId: t.id, purchaseId: auth.id },
    before: [],
  };
}

async function fireLocationStatus({ deps, fixtures }: Firing): Promise<Fired> {
  const location = await createLocation(deps.ctx, fixtures.programId, {
    brandId: fixtures.brandId,
    address: "2 Fixture Street",
    city: "London",
    postcode: "SW1A 1AB",
    countryCode: "GBR",
  });
  return {
    subjectId: location.id,
    summary: `location ${location.id} onboarded on visa, mastercard and amex (location.active each)`,
    resources: { ...fixtures, newLocationId: location.id },
    before: [],
  };
}

async function fireMissingTransactionRequest({ deps, event, fixtures, overrides }: Firing): Promise<Fired> {
  const { ctx, waitMs } = deps;
  // The test network answers at once; 10.01 is its amount for transaction-not-found.
  const request = await createMissingTransactionRequest({
    ctx,
    input: {
      cardId: fixtures.cardId,
      locationId: fixtures.locationId,
      transactionDate: overrides.datetime?.slice(0, 10) ?? localAt(new Date(ctx.clock.now().getTime() - 86_400_000), ZONE).slice(0, 10),
      amount: overrides.amount ?? (event === "missing-transaction-request.failed" ? 10.01 : QUALIFYING_AMOUNT),
    },
    waitMs,
  });
  return {
    subjectId: request.id,
    summary: `missing transaction request ${request.id} ${request.status}`,
    resources: { ...fixtures, missingTransactionRequestId: request.id },
    before: [],
  };
}

async function fireOfferExtended({ deps, event, fixtures }: Firing): Promise<Fired> {
  const { ctx } = deps;
  const before = await eventIdsFor(ctx, event, fixtures.offerId);
  const offer = await getOffer(ctx, fixtures.offerId);
  const extended = await updateOffer(ctx, offer.id, { endDate: addDays(offer.endDate!, 1) });
  return { subjectId: offer.id, summary: `offer ${offer.id} endDate ${offer.endDate} -> ${extended.endDate}`, resources: fixtures, before };
}

async function fireBrandConsent({ deps, fixtures }: Firing): Promise<Fired> {
  // A test brand consents at once, as Fidel's test environment does.
  const brand = await createBrand(deps.ctx, { name: `Fixtures brand ${deps.ctx.clock.now().toISOString()}` });
  return { subjectId: brand.id, summary: `brand ${brand.id} consent ${brand.consent}`, resources: { ...fixtures, newBrandId: brand.id }, before: [] };
}

/** Enrols a card in the fixtures program: the fixtures number of the scheme links, its first failing test number fails. */
async function fireCard({ deps, event, fixtures, overrides }: Firing): Promise<Fired> {
  const scheme = overrides.scheme ?? "visa";
  const number = event === "card.linked" ? FIXTURE_CARDS[scheme] : FAILING_TEST_NUMBERS.find((f) => f.scheme === scheme)!.example;
  const card = await enrolCard(deps.ctx, fixtures.programId, { number, expMonth: 12, expYear: 2030, countryCode: "GBR", termsOfUse: true });
  const outcome = card.failure ? `failed: ${card.failure.reason}` : card.status;
  return { subjectId: card.id, summary: `card ${card.id} (${card.scheme} ${card.lastNumbers}) ${outcome}`, resources: { ...fixtures, newCardId: card.id }, before: [] };
}

async function fireProgramStatus({ deps, event, fixtures }: Firing): Promise<Fired> {
  const before = await eventIdsFor(deps.ctx, event, fixtures.programId);
  // The test networks answer a sync at once: it starts (syncing) and ends (idle) together.
  const program = await updateProgram(deps.ctx, fixtures.programId, { status: "syncing" });
  return {
    subjectId: program.id,
    summary: `program ${program.id} synced ${program.sync?.locations ?? 0} location(s): syncing, then ${program.status}`,
    resources: fixtures,
    before,
  };
}

/** The fixtures' marketplace brand: its offers (oaas, so live with no location) never meet the fixtures' purchases. */
const MARKETPLACE_BRAND = "Cardlink fixtures marketplace";

/** A marketplace offer only the caller sees, added to the fixtures program: live at once (a test brand answers at once). */
async function addFixturesMarketplaceOffer(ctx: Ctx, programId: string): Promise<{ marketplaceOfferId: string; offerId: string }> {
  const startDate = localAt(new Date(ctx.clock.now().getTime() - 86_400_000), ZONE);
  const offer = await createMarketplaceOffer(
    ctx.db,
    {
      name: "Fixtures: 5% back online",
      brandName: MARKETPLACE_BRAND,
      countryCode: "GBR",
      channels: ["online"],
      startDate,
      endDate: addMonths(startDate, 12),
      type: { name: "discount", value: 5 },
      transactionSource: "oaas",
      supplier: { id: "cardlink_fixtures", type: "affiliate", name: "Cardlink fixtures" },
    },
    ctx.clock.now(),
    ctx.accountId,
  );
  const added = await adoptMarketplaceOffer(ctx, offer.id, programId);
  return { marketplaceOfferId: offer.id, offerId: added.id };
}

async function fireMarketplaceOfferLive({ deps, fixtures }: Firing): Promise<Fired> {
  const { marketplaceOfferId, offerId } = await addFixturesMarketplaceOffer(deps.ctx, fixtures.programId);
  return {
    subjectId: offerId,
    summary: `marketplace offer ${marketplaceOfferId} added to program ${fixtures.programId} as offer ${offerId}, live`,
    resources: { ...fixtures, marketplaceOfferId, addedOfferId: offerId },
    before: [],
  };
}

/** The content provider extends the newest fixtures marketplace offer added to the program (one is added when there is none) by a day. */
async function fireMarketplaceOfferUpdated({ deps, event, fixtures }: Firing): Promise<Fired> {
  const { ctx } = deps;
  const [found] = await ctx.db.query<{ id: string; marketplace_offer_id: string }>(
    `select o.id, o.marketplace_offer_id from offers o join marketplace_offers m on m.id = o.marketplace_offer_id
     where o.account_id = $1 and o.live = $2 and o.program_id = $3 and m.private_to = $1 and m.end_at > $4 order by o.created desc, o.id limit 1`,
    [ctx.accountId, ctx.live, fixtures.programId, ctx.clock.now()],
  );
  const { marketplaceOfferId, offerId } = found
    ? { marketplaceOfferId: found.marketplace_offer_id, offerId: found.id }
    : await addFixturesMarketplaceOffer(ctx, fixtures.programId);
  const before = await eventIdsFor(ctx, event, offerId);
  const offer = await getOffer(ctx, offerId);
  await updateMarketplaceOffer(ctx.db, marketplaceOfferId, { endDate: addDays(offer.endDate!, 1) }, ctx.clock.now());
  return {
    subjectId: offerId,
    summary: `marketplace offer ${marketplaceOfferId} endDate ${offer.endDate} -> ${addDays(offer.endDate!, 1)} (offer ${offerId})`,
    resources: { ...fixtures, marketplaceOfferId, addedOfferId: offerId },
    before,
  };
}

/** How each event is fired. */
const FIRE: Record<TriggerEvent, (f: Firing) => Promise<Fired>> = {
  "transaction.auth": fireAuth,
  "transaction.auth.qualified": fireAuth,
  "transaction.clearing": fireClearing,
  "transaction.clearing.qualified": fireClearing,
  "transaction.refund": fireRefund,
  "transaction.refund.qualified": fireRefund,
  "transaction.auth.expired": fireExpiry,
  "location.status": fireLocationStatus,
  "missing-transaction-request.succeeded": fireMissingTransactionRequest,
  "missing-transaction-request.failed": fireMissingTransactionRequest,
  "offer.extended": fireOfferExtended,
  "brand.consent": fireBrandConsent,
  "card.linked": fireCard,
  "card.failed": fireCard,
  "program.status": fireProgramStatus,
  "marketplace.offer.live": fireMarketplaceOfferLive,
  "marketplace.offer.updated": fireMarketplaceOfferUpdated,
};

/**
 * A `.qualified` event comes only of a qualified transaction: one recorded as not qualified (a datetime past
 * the offer's end, a card's own offer) will not write it, so waiting for it would only end in a timeout.
 */
async function refuseUnqualified(ctx: Ctx, event: TriggerEvent, fired: Fired): Promise<void> {
  if (!event.endsWith(".qualified") || !fired.resources.transactionId) return;
  const recorded = await getTransaction(ctx, fired.resources.transactionId);
  if (!recorded.offer.qualified) {
    throw new DomainError("conflict", `trigger: the transaction ${recorded.id} was recorded but did not qualify, so there is no ${event} event (${fired.summary}).`);
  }
}

/** The ids of the events the firing wrote, once there are some; 503 when none came by the deadline. */
async function writtenEvents(ctx: Ctx, event: TriggerEvent, fired: Fired, deadline: number): Promise<string[]> {
  const eventIds =
    (await probeOnNotify(ctx.db, OUTBOX_WRITTEN, deadline, async () => {
      const ids = (await eventIdsFor(ctx, event, fired.subjectId)).filter((id) => !fired.before.includes(id));
      return ids.length > 0 ? ids : undefined;
    })) ?? [];
  if (eventIds.length === 0) {
    throw new DomainError("unavailable", `trigger: no ${event} event was written in time (${fired.summary}).`, RETRY_AFTER_SECONDS);
  }
  return eventIds;
}

/** Whether the dispatcher has fanned every one of the events out. */
async function allDispatched(ctx: Ctx, eventIds: string[]): Promise<boolean> {
  return (await ctx.db.query("select 1 from outbox_events where id = any($1::uuid[]) and dispatched is null limit 1", [eventIds])).length === 0;
}

/**
 * Waits, until the deadline, for the events to be fanned out and each delivery tried once. Deliveries send
 * no notification (a NOTIFY on the dispatcher's statements would queue its commits behind the qualifier's,
 * whose outbox writes notify), so this looks every DELIVERY_LOOK_MS.
 */
async function attempted(ctx: Ctx, eventIds: string[], dispatched: () => Promise<boolean>, deadline: number): Promise<void> {
  await probeOnNotify(ctx.db, null, deadline, async () => {
    if (!(await dispatched())) return undefined;
    const deliveries = await deliveriesOf(ctx, eventIds);
    return deliveries.every((d) => d.attempts > 0) ? true : undefined;
  }, DELIVERY_LOOK_MS);
}

const DELIVERY_LOOK_MS = 50;

async function deliveriesOf(ctx: Ctx, eventIds: string[]): Promise<TriggerDelivery[]> {
  const rows = await ctx.db.query<{
    hook_id: string;
    url: string;
    status: TriggerDelivery["status"];
    attempts: number;
    response_code: number | null;
    error: string | null;
  }>(
    `select d.hook_id, h.url, d.status, d.attempts, a.response_code, a.error
     from webhook_deliveries d join hooks h on h.id = d.hook_id
     left join lateral (select response_code, error from webhook_attempts where delivery_id = d.id order by attempt desc limit 1) a on true
     where d.event_id = any($1::uuid[]) and d.account_id = $2 order by d.created, d.id`,
    [eventIds, ctx.accountId],
  );
  return rows.map((r) => ({ hookId: r.hook_id, url: r.url, status: r.status, attempts: r.attempts, responseCode: r.response_code, error: r.error }));
}
