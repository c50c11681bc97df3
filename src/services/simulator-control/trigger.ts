// `cardlink trigger`: fires one webhook event through the real path — the scheme simulator, the bus,
// the qualifier, the outbox and the dispatcher, or the verb that writes it (a brand, a card, a sync, a
// marketplace offer) — on fixtures kept in a program of the caller's test environment (made on first use,
// reused after), then waits for the event and its first delivery.
import type { Ctx } from "../../platform/context.ts";
import { waitForRow } from "../../platform/wait-for-row.ts";
import { OUTBOX_WRITTEN } from "../../platform/outbox.ts";
import { DomainError, invalid } from "../../domain/errors.ts";
import { getCard, getLocation } from "../catalog/index.ts";
import { countryByAlpha3 } from "../../domain/countries.ts";
import { getTransaction } from "../transactions/index.ts";
import type { Transaction } from "../transactions/index.ts";
import { allFannedOut, type DeliveryTry, eventIdsAbout, firstTries } from "../webhooks/index.ts";
import { ensureFixtures, type Fixtures } from "./fixtures.ts";
import { type Deps, FIRE, type Fired, RETRY_AFTER_SECONDS, type TriggerEvent, type TriggerOverrides, type TriggerResources } from "./firings.ts";

export { ensureFixtures } from "./fixtures.ts";
export { TRIGGER_BEHAVIOURS, TRIGGER_EVENTS, type TriggerBehaviour, type TriggerEvent, type TriggerOverrides } from "./firings.ts";

const CLEARING_EVENTS: readonly TriggerEvent[] = ["transaction.clearing", "transaction.clearing.qualified"];
/** The test network's missing-transaction-request outcomes by amount (spec): any other amount succeeds. */
const FAILING_REQUEST_AMOUNTS = [10.01, 10.02, 10.03, 10.04, 10.05, 10.06];

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

export interface TriggerResult {
  event: TriggerEvent;
  /** The ids of the events fired (three for location.status, one per scheme). */
  eventIds: string[];
  summary: string;
  resources: TriggerResources;
  /** The transaction the event carries, as recorded (transaction events). */
  transaction?: Transaction;
  /** Whether the dispatcher had taken the event up when the wait ended. */
  dispatched: boolean;
  deliveries: DeliveryTry[];
}

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

/** Fires the event and waits for it and for the first attempt of each of its deliveries. */
export async function trigger(deps: Deps, event: TriggerEvent, overrides: TriggerOverrides = {}): Promise<TriggerResult> {
  const { ctx, waitMs } = deps;
  const fixtures = await resolveFixtures(ctx, event, overrides);
  checkRequestAmount(event, overrides);
  const deadline = performance.now() + waitMs;
  const fired = await FIRE[event]({ deps, event, fixtures, overrides });
  await refuseUnqualified(ctx, event, fired);
  const eventIds = await writtenEvents(ctx, event, fired, deadline);
  const dispatched = () => allFannedOut(ctx, eventIds);
  await attempted(ctx, eventIds, dispatched, deadline);
  const transaction = fired.resources.transactionId ? await getTransaction(ctx, fired.resources.transactionId) : undefined;
  return {
    event,
    eventIds,
    summary: fired.summary,
    resources: fired.resources,
    ...(transaction ? { transaction } : {}),
    dispatched: await dispatched(),
    deliveries: await firstTries(ctx, eventIds),
  };
}

/** A missing-transaction request's amount says how the test network answers: it must fit the event asked for. */
function checkRequestAmount(event: TriggerEvent, overrides: TriggerOverrides): void {
  const failing = event === "missing-transaction-request.failed";
  if (overrides.amount !== undefined && event.startsWith("missing-transaction-request.") && FAILING_REQUEST_AMOUNTS.includes(overrides.amount) !== failing) {
    throw invalid("amount", failing ? `the test network fails requests of ${FAILING_REQUEST_AMOUNTS.join(", ")}` : `${overrides.amount} is a failing test amount; use missing-transaction-request.failed`);
  }
}


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
    (await waitForRow(ctx.db, OUTBOX_WRITTEN, deadline, async () => {
      const ids = (await eventIdsAbout(ctx, event, fired.subjectId)).filter((id) => !fired.before.includes(id));
      return ids.length > 0 ? ids : undefined;
    })) ?? [];
  if (eventIds.length === 0) {
    throw new DomainError("unavailable", `trigger: no ${event} event was written in time (${fired.summary}).`, RETRY_AFTER_SECONDS);
  }
  return eventIds;
}

/**
 * Waits, until the deadline, for the events to be fanned out and each delivery tried once. Deliveries send
 * no notification (a NOTIFY on the dispatcher's statements would queue its commits behind the qualifier's,
 * whose outbox writes notify), so this looks every DELIVERY_LOOK_MS.
 */
async function attempted(ctx: Ctx, eventIds: string[], dispatched: () => Promise<boolean>, deadline: number): Promise<void> {
  await waitForRow(ctx.db, null, deadline, async () => {
    if (!(await dispatched())) return undefined;
    const deliveries = await firstTries(ctx, eventIds);
    return deliveries.every((d) => d.attempts > 0) ? true : undefined;
  }, DELIVERY_LOOK_MS);
}

const DELIVERY_LOOK_MS = 50;
