// How `trigger` fires each event: the events and what a trigger may change of them, and for each event the verb
// or test purchase that writes it on the fixtures, with a line saying what happened.
import type { Ctx } from "../../platform/context.ts";
import { DomainError } from "../../domain/errors.ts";
import { addDays, localAt } from "../../domain/local-dates.ts";
import { countryByAlpha3 } from "../../domain/countries.ts";
import type { Scheme } from "../../domain/scheme.ts";
import { DAY_MS } from "../../domain/time-units.ts";
import { FAILING_TEST_NUMBERS } from "../../domain/card-number.ts";
import { roundMoney } from "../../domain/money.ts";
import type { SimulatorControl } from "./control.ts";
import { createBrand, createLocation, enrolCard, getLocation, updateProgram } from "../catalog/index.ts";
import type { Transaction } from "../transactions/index.ts";
import { getOffer, updateMarketplaceOffer, updateOffer } from "../offers/index.ts";
import { createMissingTransactionRequest } from "../missing-transactions/index.ts";
import { eventIdsAbout } from "../webhooks/index.ts";
import { clearTestPurchase, expireTestPurchase, incrementTestPurchase, refundTestPurchase } from "./follow-ups.ts";
import { sendTestPurchase, type Sent, type TestPurchaseInput } from "./test-transactions.ts";
import { addFixturesMarketplaceOffer, FIXTURE_CARDS, type Fixtures, fixturesMarketplaceOffer, ZONE } from "./fixtures.ts";

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
/** The tip `tip` adds to the clearing: 15 %, inside the bound (TIP_BOUND). */
const TIP_SHARE = 0.15;
/** What `incremented` adds to the authorisation: 20 %. */
const INCREMENT_SHARE = 0.2;
/** The fixtures offer: 10% off from 5.00 GBP, so 42.00 qualifies and 1.00 does not. */
const QUALIFYING_AMOUNT = 42;
const BELOW_MINIMUM_AMOUNT = 1;

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

/** The fixtures an event fired on, with what firing it made. */
export type TriggerResources = Fixtures & {
  transactionId?: string;
  newLocationId?: string;
  missingTransactionRequestId?: string;
  purchaseId?: string;
  newBrandId?: string;
  newCardId?: string;
  marketplaceOfferId?: string;
  addedOfferId?: string;
};

export interface Deps {
  ctx: Ctx;
  simulators: SimulatorControl;
  /** Real milliseconds to wait for the event, then for its first delivery attempts. */
  waitMs: number;
}

export const RETRY_AFTER_SECONDS = 5;

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

/** What firing an event made: the subject its events name, a line saying what happened, the resources made. */
export interface Fired {
  subjectId: string;
  summary: string;
  resources: TriggerResources;
  /** The subject's events of this kind written before it fired (an offer's earlier extensions). */
  before: string[];
}

export interface Firing {
  deps: Deps;
  event: TriggerEvent;
  fixtures: Fixtures;
  overrides: TriggerOverrides;
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
      transactionDate: overrides.datetime?.slice(0, 10) ?? localAt(new Date(ctx.clock.now().getTime() - DAY_MS), ZONE).slice(0, 10),
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
  const before = await eventIdsAbout(ctx, event, fixtures.offerId);
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
  const before = await eventIdsAbout(deps.ctx, event, fixtures.programId);
  // The test networks answer a sync at once: it starts (syncing) and ends (idle) together.
  const program = await updateProgram(deps.ctx, fixtures.programId, { status: "syncing" });
  return {
    subjectId: program.id,
    summary: `program ${program.id} synced ${program.sync?.locations ?? 0} location(s): syncing, then ${program.status}`,
    resources: fixtures,
    before,
  };
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
  const { marketplaceOfferId, offerId } = await fixturesMarketplaceOffer(ctx, fixtures.programId);
  const before = await eventIdsAbout(ctx, event, offerId);
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
export const FIRE: Record<TriggerEvent, (f: Firing) => Promise<Fired>> = {
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
