// Test transactions: a purchase sent through the card's scheme simulator, so it takes the path network traffic
// takes; then, for the caller's convenience, a short wait for the qualifier to record it. Its follow-ups (clearing,
// void, refund, increment, expiry) are in follow-ups.ts.
import type { Ctx } from "../../platform/context.ts";
import { DomainError, invalid, notFound } from "../../domain/errors.ts";
import type { PurchaseInput, SimulatorControl } from "./control.ts";
import { BusValidationError } from "../../platform/bus/bus.ts";
import { DependencyUnavailableError } from "../../platform/health/index.ts";
import { within } from "../../platform/health/dependency.ts";
import type { Db } from "../../platform/db.ts";
import { countryByAlpha3 } from "../../domain/countries.ts";
import type { Scheme } from "../../platform/bus/messages.ts";
import { transactionIdFor } from "../../domain/transaction-id.ts";
import { notLinkedRule } from "../../domain/card-number.ts";
import type { Transaction } from "../transactions/index.ts";
import { findAtNextTick } from "../transactions/index.ts";
import { groupCommit, perHandle, ROUND_TICK_MS, type Outcome } from "../../platform/group-commit.ts";
import { type PurchaseCard, purchaseCardsSql, type PurchaseLocation, purchaseLocationsSql } from "../catalog/index.ts";
import { waitForRow } from "../../platform/wait-for-row.ts";

export interface TestPurchaseInput {
  cardId: string;
  locationId: string;
  amount: number;
  datetime?: string;
  targetingTag?: "new" | "lapsed" | "existing";
  cardPresent?: boolean;
  wallet?: "APPLE_PAY" | "GOOGLE_PAY" | "SAMSUNG_PAY" | null;
  /** `clearing`: the network clears it with no authorisation first (offline, force-posted); `auth` (default): it authorises it. */
  stage?: "auth" | "clearing";
  /** false: the network leaves the authorisation uncleared (it expires unless cleared by request). */
  autoClear?: boolean;
  /** Days the authorisation lasts uncleared before the network withdraws it. */
  authExpiryDays?: number;
  /** The currency the card is billed in (default: its country's): the network converts when it is not the location's. */
  billingCurrency?: string;
}

export interface Sent {
  id: string;
  transaction: Transaction | undefined;
  /** Written, but the bus was down: the workers send it when the bus is back. */
  accepted?: boolean;
  /** The answer is a transaction of its own (a clearing of part of a purchase), not the purchase. */
  created?: boolean;
}

/** How long a request waits for the bus to take a command before it answers without it (real ms). */
const PUBLISH_TIMEOUT_MS = 3_000;
/** How long after its request a purchase not known to be published is left to that request (real ms). */
const RELAY_AFTER_MS = 5_000;
/**
 * A purchase's answer budget from the request's start (real ms): once published, the wait for the
 * qualifier gets what is left of it (at most waitMs), so a slow publish does not add to the answer.
 */
const ANSWER_WITHIN_MS = 6_000;
/**
 * How long a published purchase waits for a round of purchases to mark it published before it is marked
 * by a statement of its own (real ms); well within RELAY_AFTER_MS, so the workers' relay does not publish it again.
 */
const MARK_WITHIN_MS = 1_000;
/** How many waiting purchases the workers publish together. */
const RELAY_BATCH = 500;
/** How often a purchase looks again whether its location's test network has answered the onboarding (real ms). */
const ONBOARDING_LOOK_MS = 20;

/** The bus took the command in time, or a DependencyUnavailableError (malformed commands fail as they are). */
export async function publishWithin<T>(publishing: Promise<T>): Promise<T> {
  try {
    return await within(publishing, PUBLISH_TIMEOUT_MS, "bus");
  } catch (err) {
    if (err instanceof BusValidationError) throw err;
    throw new DependencyUnavailableError("bus", "the bus did not take the command", { cause: err });
  }
}

export interface Deps {
  ctx: Ctx;
  simulators: SimulatorControl;
  /** How long to wait for the qualifier, in real milliseconds. */
  waitMs: number;
}

export function requireTestKey(ctx: Ctx) {
  if (ctx.live) throw new DomainError("invalid", "Test transactions need a test key; live transactions come from the networks.");
}

/**
 * Looks at every tick (with the process's other waits, in one query) until the transaction exists and
 * `ready` holds, or the wait is over (a query left hanging included).
 */
export async function waitFor(ctx: Ctx, id: string, waitMs: number, ready: (t: Transaction) => boolean): Promise<Transaction | undefined> {
  const deadline = performance.now() + waitMs;
  // The shared look-up paces the probe, so it needs no timer of its own (everyMs 0).
  return waitForRow(ctx.db, null, deadline, async () => {
    const found = await within(findAtNextTick(ctx, id), Math.max(deadline - performance.now(), 0) + 100, "postgres");
    return found && ready(found) ? found : undefined;
  }, 0);
}

interface PurchaseRequest {
  ctx: Ctx;
  simulators: SimulatorControl;
  input: TestPurchaseInput;
}

/** A purchase written and ready to publish, or the location's network has not given it its MIDs yet. */
type Prepared = { id: string; command: PurchaseInput } | { notOnboarded: Scheme };

/**
 * The card and the location the purchase is made at, checked: the location must be in the card's program
 * and onboarded on its scheme (a test location is onboarded over the bus at creation, answered within moments).
 */
function purchaseOf({ ctx, input }: PurchaseRequest, card: PurchaseCard | undefined, locations: PurchaseLocation[]): (PurchaseInput & { purchaseId: string }) | { notOnboarded: Scheme } {
  if (!card || card.account_id !== ctx.accountId || card.live !== ctx.live) throw notFound("card", input.cardId);
  const unlinked = notLinkedRule({ id: card.id, status: card.status, failureReason: card.failure_reason });
  if (unlinked) throw new DomainError("conflict", `cardId: ${unlinked}`);
  const location = locations.find((l) => l.scheme === card.scheme);
  if (!location || location.account_id !== ctx.accountId || location.live !== ctx.live) throw notFound("location", input.locationId);
  if (location.program_id !== card.program_id) throw invalid("locationId", "the location is not in the card's program");
  if (location.status !== "Active") throw invalid("locationId", `the location is ${location.status} on ${card.scheme}, not Active`);
  if (location.mids.length === 0) {
    if (location.answered === null) return { notOnboarded: card.scheme };
    throw invalid("locationId", `the location has no ${card.scheme} MIDs (they were removed after onboarding); give it some with PATCH /locations/{locationId} mids.${card.scheme}`);
  }
  const purchaseId = crypto.randomUUID();
  return {
    scheme: card.scheme,
    purchaseId,
    card: {
      id: card.id,
      firstSix: card.first_numbers,
      lastFour: card.last_numbers,
      billingCurrency: input.billingCurrency ?? countryByAlpha3(card.country_code)?.currency ?? null,
    },
    location: {
      id: location.id,
      name: location.brand_name,
      address: location.address,
      city: location.city,
      postcode: location.postcode,
      countryCode: location.country_code,
      timezone: location.timezone,
      mids: location.mids,
    },
    amount: input.amount,
    ...(input.datetime ? { datetime: input.datetime } : {}),
    ...(input.cardPresent !== undefined ? { cardPresent: input.cardPresent } : {}),
    wallet: input.wallet ?? null,
    targetingTag: input.targetingTag ?? null,
    ...(input.stage === "clearing" ? { withoutAuth: true } : {}),
    ...(input.autoClear !== undefined ? { autoClear: input.autoClear } : {}),
    ...(input.authExpiryDays !== undefined ? { authExpiryDays: input.authExpiryDays } : {}),
    environment: card.environment,
  };
}

/**
 * A round full to its limit takes the waiting purchases in fair turns among their accounts (a sandbox's with
 * its owner's); busy rounds are a tick apart, each carrying a tick's purchases.
 */
const PURCHASE_ROUNDS = { fairBy: ({ ctx }: PurchaseRequest) => ctx.tenant ?? ctx.accountId, tickMs: ROUND_TICK_MS };

/**
 * Purchases known to be on the bus, waiting to be marked: each round of purchases marks them in its insert,
 * so a busy front door marks them with no statement of their own; an idle one within MARK_WITHIN_MS.
 */
interface Marks {
  ids: string[];
  timer: NodeJS.Timeout | undefined;
}
const marksOf = new WeakMap<Db, Marks>();

function marks(db: Db): Marks {
  let m = marksOf.get(db);
  if (!m) marksOf.set(db, (m = { ids: [], timer: undefined }));
  return m;
}

/** The marks waiting, taken for a statement that writes them. */
function takeMarks(db: Db): string[] {
  const m = marks(db);
  clearTimeout(m.timer);
  m.timer = undefined;
  const ids = m.ids;
  m.ids = [];
  return ids;
}

/** Notes that the purchase is on the bus; the next round of purchases, or MARK_WITHIN_MS at the latest, marks it. */
function markPublished(db: Db, id: string): void {
  const m = marks(db);
  m.ids.push(id);
  // A mark that never lands only costs a second publish, which the simulators drop (relayTestPurchases).
  m.timer ??= setTimeout(() => void writePurchases(db, [], takeMarks(db)).catch(() => undefined), MARK_WITHIN_MS).unref();
}

/**
 * Inserts the purchases of a round and marks those known to be on the bus (their commands no longer kept),
 * in one statement.
 */
async function writePurchases(db: Db, rows: Record<string, unknown>[], published: string[]): Promise<void> {
  if (rows.length === 0 && published.length === 0) return;
  await db.query(
    `with marked as (
       update test_purchases set published = true, command = null where transaction_id = any($3::uuid[])
     )
     insert into test_purchases (transaction_id, account_id, scheme, card_id, purchase_id, created, command, published, publish_after)
     select r.transaction_id, r.account_id, r.scheme, r.card_id, r.purchase_id, r.created, r.command, false, now() + make_interval(secs => $2)
     from jsonb_to_recordset($1::jsonb) as r(transaction_id uuid, account_id uuid, scheme text, card_id uuid, purchase_id text, created timestamptz, command jsonb)`,
    [JSON.stringify(rows), RELAY_AFTER_MS / 1000, published],
  );
}

/**
 * The purchases that arrived together, checked and written together: one read of their cards and their
 * locations at every network, and one statement inserting every purchase that can be made (with the marks
 * of the purchases published since the last round). Written first: if the write fails (PostgreSQL down)
 * nothing was sent and each answer is a 503. Until a command is known to be on the bus its row keeps it,
 * for the workers to publish (relayTestPurchases).
 */
const preparePurchases = perHandle((db: Db) =>
  groupCommit<PurchaseRequest, Prepared>(async (requests) => {
    const cardIds = [...new Set(requests.map((r) => r.input.cardId))];
    const locationIds = [...new Set(requests.map((r) => r.input.locationId))];
    const [found] = await db.query<{ cards: PurchaseCard[]; locations: PurchaseLocation[] }>(
      `select
         coalesce((select json_agg(c) from (${purchaseCardsSql("$1")}) c), '[]'::json) as cards,
         coalesce((select json_agg(l) from (${purchaseLocationsSql("$2")}) l), '[]'::json) as locations`,
      [cardIds, locationIds],
    );
    const { cards, locations } = found!;
    const cardById = new Map(cards.map((c) => [c.id, c]));
    const outcomes: Outcome<Prepared>[] = [];
    const rows: Record<string, unknown>[] = [];
    for (const request of requests) {
      try {
        const made = purchaseOf(request, cardById.get(request.input.cardId.toLowerCase()), locations.filter((l) => l.id === request.input.locationId.toLowerCase()));
        if ("notOnboarded" in made) {
          outcomes.push({ ok: made });
          continue;
        }
        const id = transactionIdFor(made.scheme, "purchase", request.simulators.purchaseReceipt(made.scheme, made.purchaseId).transactionId);
        rows.push({ transaction_id: id, account_id: request.ctx.accountId, scheme: made.scheme, card_id: made.card.id, purchase_id: made.purchaseId, created: request.ctx.clock.now(), command: made });
        outcomes.push({ ok: { id, command: made } });
      } catch (error) {
        outcomes.push({ error });
      }
    }
    if (rows.length > 0) {
      const published = takeMarks(db);
      try {
        await writePurchases(db, rows, published);
      } catch (err) {
        // The marks were not written: they wait for the next round.
        for (const id of published) markPublished(db, id);
        throw err;
      }
    }
    return outcomes;
  }, PURCHASE_ROUNDS),
);

export async function sendTestPurchase({ ctx, simulators, waitMs }: Deps, input: TestPurchaseInput): Promise<Sent> {
  const began = performance.now();
  requireTestKey(ctx);
  // A location whose test network has not answered its onboarding yet is waited for, up to `waitMs`.
  let notOnboarded: Scheme | undefined;
  const prepared = await waitForRow(ctx.db, null, began + waitMs, async () => {
    const made = await preparePurchases(ctx.db)({ ctx, simulators, input });
    if (!("notOnboarded" in made)) return made;
    notOnboarded = made.notOnboarded;
    return undefined;
  }, ONBOARDING_LOOK_MS);
  if (!prepared) {
    throw new DomainError("unavailable", `locationId: the ${notOnboarded} test network has not answered the location's onboarding yet; try again in a moment.`, 1);
  }
  const { id, command } = prepared;
  try {
    await publishWithin(simulators.purchase(command));
  } catch (err) {
    if (!(err instanceof DependencyUnavailableError)) throw err;
    // Accepted durably: the purchase is made when the bus is back (202, status "accepted").
    return { id, transaction: undefined, accepted: true };
  }
  // The purchase is on its way: its mark goes with the next round's insert, not in a statement of its own.
  markPublished(ctx.db, id);
  // The wait for the qualifier is what is left of the answer's budget, so a slow publish does not add to it.
  const left = Math.min(waitMs, began + ANSWER_WITHIN_MS - performance.now());
  return { id, transaction: left > 0 ? await waitFor(ctx, id, left, () => true).catch(() => undefined) : undefined };
}

/**
 * Publishes the test purchases whose request could not (the bus was down, or the process ended between
 * its write and its publish): the workers run it on every sweep. A batch at a time — published together
 * (the producer sends them in one round trip) and marked in one statement — until none is left or the
 * bus refuses. A purchase published twice is made once, as the simulators drop a purchase id they have seen.
 */
export async function relayTestPurchases({ db, simulators }: { db: Db; simulators: SimulatorControl }): Promise<number> {
  let relayed = 0;
  for (;;) {
    const waiting = await db.query<{ transaction_id: string; command: PurchaseInput }>(
      `select transaction_id, command from test_purchases where not published and publish_after <= now() order by publish_after limit ${RELAY_BATCH}`,
    );
    const results = await Promise.allSettled(waiting.map(({ command }) => publishWithin(simulators.purchase(command))));
    const published = waiting.filter((_, i) => results[i]!.status === "fulfilled").map((w) => w.transaction_id);
    if (published.length > 0) {
      await db.query("update test_purchases set published = true, command = null where transaction_id = any($1::uuid[])", [published]);
    }
    relayed += published.length;
    const refused = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (refused) throw refused.reason;
    if (waiting.length < RELAY_BATCH) return relayed;
  }
}
