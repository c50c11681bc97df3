// Missing transaction requests: a look-up at the card's network for a transaction the integration did
// not receive. Test requests are answered at once; live ones wait until 4 days after the transaction
// date, then a look-up goes on the bus to the card's scheme network, whose reply ends the request.
import { dueIn, dueParams, envNowSql, type DueTime } from "../../platform/clock/environment.ts";
import type { Ctx } from "../../platform/context.ts";
import { DomainError, invalid, notFound } from "../../domain/errors.ts";
import type { Bus } from "../../platform/bus/bus.ts";
import type { LookupReply, LookupRequest, LookupTransaction } from "../../platform/bus/messages.ts";
import { TOPICS } from "../../platform/bus/topics.ts";
import { notLinkedRule, type Scheme } from "../../domain/card-number.ts";
import { countryByAlpha3 } from "../../domain/countries.ts";
import { schemeIdentifiers, sameMid, type MidIdentifiers } from "../../domain/mid-insights.ts";
import {
  amountProblem,
  initialRequestStatus,
  lookupDueAt,
  requestTransition,
  retainedSince,
  testAmountError,
  transactionDateProblem,
  type MissingRequestError,
  type MissingRequestStatus,
} from "../../domain/missing-transaction.ts";
import type { Db } from "../../platform/db.ts";
import { newId } from "../../platform/ids.ts";
import { recordMissingTransactionLookup } from "../mid-insights/index.ts";
import { enqueueEvent, OUTBOX_WRITTEN } from "../../platform/outbox.ts";
import { waitForRow } from "../../platform/wait-for-row.ts";
import { fullIds, networkMidsForUpdate, networkMidsSql, requestCard, requestLocation, setNetworkMids } from "../catalog/index.ts";
import { Filters, pageByCreated, type Page, type PageQuery } from "../../platform/page.ts";
import { getProgram } from "../catalog/index.ts";

/** One transaction the network found, with the fields of the card's scheme. */
export interface FoundTransaction {
  amount: number;
  date: string;
  networkStatus: "SUCCEED" | "MID-NOT-ASSIGNED";
  merchantCity: string;
  merchantName: string;
  matchScore: number;
  type?: "settlement" | "authorization";
  vmid?: string | null;
  vsid?: string | null;
  visaStoreName?: string | null;
  visaAcquiringMid?: string | null;
  visaBin?: string | null;
  mcLocationId?: string | null;
  mcAcquiringMid?: string | null;
  seNumber?: string | null;
}

export type RequestResult = { transactions: FoundTransaction[] } | { error: { code: MissingRequestError; message: string } };

export interface MissingTransactionRequest {
  id: string;
  accountId: string;
  programId: string;
  brandId: string;
  locationId: string;
  cardId: string;
  cardLastNumbers: string;
  amount: number;
  transactionDate: string;
  scheme: Scheme;
  live: boolean;
  status: MissingRequestStatus;
  estimatedCompletionDate: string;
  created: string;
  updated: string;
  /** null until the request ends. */
  result: RequestResult | null;
}

interface RequestRow {
  id: string;
  account_id: string;
  live: boolean;
  program_id: string;
  brand_id: string;
  location_id: string;
  card_id: string;
  card_last_numbers: string;
  amount: number;
  transaction_date: string | Date;
  scheme: Scheme;
  status: MissingRequestStatus;
  due_at: Date;
  estimated_completion: Date;
  lookup_sent: Date | null;
  result: RequestResult | null;
  created: Date;
  updated: Date;
}

const day = (d: string | Date) => (typeof d === "string" ? d.slice(0, 10) : d.toISOString().slice(0, 10));

const toRequest = (r: RequestRow): MissingTransactionRequest => ({
  id: r.id,
  accountId: r.account_id,
  programId: r.program_id,
  brandId: r.brand_id,
  locationId: r.location_id,
  cardId: r.card_id,
  cardLastNumbers: r.card_last_numbers,
  amount: Number(r.amount),
  transactionDate: day(r.transaction_date),
  scheme: r.scheme,
  live: r.live,
  status: r.status,
  estimatedCompletionDate: r.estimated_completion.toISOString(),
  created: r.created.toISOString(),
  updated: r.updated.toISOString(),
  result: r.result,
});

export interface MissingTransactionInput {
  cardId: string;
  locationId: string;
  /** ISO 8601 date or date-time. */
  transactionDate: string;
  amount: number;
}

const FINAL: readonly MissingRequestStatus[] = ["successful", "failed"];

/**
 * Creates a request for the caller's card at a location of the card's program. Test: an amount of
 * 10.01–10.06 fails at once with its code; any other goes to the test network, which answers at once —
 * the record comes back final unless the network took longer than `waitMs`. Live: pending until 4 days
 * after the transaction date, or processing (the look-up sent) when that has passed.
 */
export async function createMissingTransactionRequest({
  ctx,
  input,
  waitMs,
}: {
  ctx: Ctx;
  input: MissingTransactionInput;
  waitMs: number;
}): Promise<MissingTransactionRequest> {
  const card = await requestCard(ctx, input.cardId);
  if (!card) throw notFound("card", input.cardId);
  const unlinked = notLinkedRule({ id: card.id, status: card.status, failureReason: card.failure_reason });
  if (unlinked) throw new DomainError("conflict", `cardId: ${unlinked}`);
  const location = await requestLocation(ctx, input.locationId);
  if (!location) throw notFound("location", input.locationId);
  if (location.program_id !== card.program_id) throw invalid("locationId", "the location belongs to another program than the card's; use a location of the card's program");
  const currency = countryByAlpha3(location.country_code)?.currency ?? "USD";
  const badAmount = amountProblem(input.amount, currency);
  if (badAmount) throw invalid("amount", badAmount);
  const now = ctx.clock.now();
  const badDate = transactionDateProblem(card.scheme, input.transactionDate, now);
  if (badDate) throw invalid("transactionDate", badDate);

  const transactionDay = input.transactionDate.slice(0, 10);
  const dueAt = ctx.live ? lookupDueAt(transactionDay) : now;
  const status = initialRequestStatus(ctx.live, dueAt, now);
  const testError = ctx.live ? undefined : testAmountError(input.amount);
  const id = newId();
  const row = await ctx.db.tx(async (db) => {
    const [inserted] = await db.query<RequestRow>(
      `insert into missing_transaction_requests (id, account_id, live, program_id, brand_id, location_id, card_id,
         card_last_numbers, amount, transaction_date, scheme, status, due_at, estimated_completion, lookup_sent, result, created, updated)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16::jsonb, $17, $17) returning *`,
      [
        id,
        ctx.accountId,
        ctx.live,
        card.program_id,
        location.brand_id,
        location.id,
        card.id,
        card.last_numbers,
        input.amount,
        transactionDay,
        card.scheme,
        testError ? "failed" : status,
        dueAt,
        new Date(Math.max(dueAt.getTime(), now.getTime())),
        // A test amount's outcome needs no network: nothing to send.
        testError ? now : null,
        JSON.stringify(testError ? { error: testError } : null),
        now,
      ],
    );
    if (testError) await enqueueEvent(db, eventOf(toRequest(inserted!)), now);
    return inserted!;
  });
  if (row.status !== "processing") return toRequest(row);
  if (ctx.bus) {
    try {
      await sendLookups(ctx.db, ctx.bus, now, { ids: [id] });
    } catch {
      // Left unsent: the workers send it on their next pass.
    }
  }
  // Live: the record as created (processing), as documented; the network's answer comes as its event and
  // could otherwise be read back here already when the network is quick.
  return ctx.live ? toRequest(row) : waitForAnswer(ctx, id, waitMs);
}

/** How often a test request looks again for its answer when no notification came (real ms). */
const ANSWER_LOOK_MS = 20;

/** The request once final (its answer writes its event, which notifies), or as it stands when `waitMs` is over. */
async function waitForAnswer(ctx: Ctx, id: string, waitMs: number): Promise<MissingTransactionRequest> {
  let request: MissingTransactionRequest | undefined;
  const answered = await waitForRow(ctx.db, OUTBOX_WRITTEN, performance.now() + waitMs, async () => {
    request = await getMissingTransactionRequest(ctx, id);
    return FINAL.includes(request.status) ? request : undefined;
  }, ANSWER_LOOK_MS);
  return answered ?? request!;
}

/** The caller's request in the caller's environment, or 404. */
export async function getMissingTransactionRequest(ctx: Ctx, id: string): Promise<MissingTransactionRequest> {
  const [row] = await ctx.db.query<RequestRow>(
    "select * from missing_transaction_requests where id = $1 and account_id = $2 and live = $3",
    [id, ctx.accountId, ctx.live],
  );
  if (!row) throw notFound("missing transaction request", id);
  return toRequest(row);
}

export interface MissingTransactionFilter {
  status?: MissingRequestStatus;
  cardId?: string;
  locationId?: string;
  scheme?: Scheme;
}

/** The program's requests, newest first; those for transactions older than 90 days are no longer listed. */
export async function listMissingTransactionRequests(
  ctx: Ctx,
  programId: string,
  filter: MissingTransactionFilter,
  page: PageQuery,
): Promise<Page<MissingTransactionRequest>> {
  await getProgram(ctx, programId);
  const filters = new Filters()
    .add("program_id = ?", programId)
    .add("account_id = ?", ctx.accountId)
    .add("live = ?", ctx.live)
    .add("transaction_date >= ?::date", retainedSince(ctx.clock.now()));
  if (filter.status) filters.add("status = ?", filter.status);
  if (filter.cardId) filters.add("card_id = ?", filter.cardId);
  if (filter.locationId) filters.add("location_id = ?", filter.locationId);
  if (filter.scheme) filters.add("scheme = ?", filter.scheme);
  return pageByCreated(ctx.db, "missing_transaction_requests", filters, page, toRequest);
}

const eventOf = (request: MissingTransactionRequest) => ({
  accountId: request.accountId,
  live: request.live,
  programId: request.programId,
  event: request.status === "successful" ? "missing-transaction-request.succeeded" : "missing-transaction-request.failed",
  data: request,
});

// ---------------------------------------------------------------- the network side (workers)

/** Live requests whose pending period is over go to processing; returns how many. */
export async function startDueLookups(db: Db, at: DueTime): Promise<number> {
  const rows = await db.query<{ id: string }>(
    `update missing_transaction_requests set status = 'processing', updated = ${envNowSql("account_id", 1)}
     where status = 'pending' and ${dueIn("due_at", "account_id", 1)} returning id`,
    dueParams(at),
  );
  return rows.length;
}

/** Publishes the look-ups of processing requests not sent yet (all, or the given ones), then marks them sent. */
export async function sendLookups(db: Db, bus: Bus, now: Date, scope: { ids?: string[] } = {}): Promise<number> {
  const rows = await db.query<RequestRow & { mids: MidIdentifiers[] | null; environment: string | null }>(
    `select r.*, ${networkMidsSql("r.location_id", "r.scheme")} as mids, sandbox_of(r.account_id) as environment from missing_transaction_requests r
     where r.status = 'processing' and r.lookup_sent is null and ($1::uuid[] is null or r.id = any($1::uuid[]))
     order by r.created limit 500`,
    [scope.ids ?? null],
  );
  for (const r of rows) {
    const request: LookupRequest = {
      requestId: r.id,
      scheme: r.scheme,
      cardId: r.card_id,
      cardLastNumbers: r.card_last_numbers,
      amount: Number(r.amount),
      transactionDate: day(r.transaction_date),
      locationId: r.location_id,
      mids: (r.mids ?? []).map((m) => fullIds(m)),
      // When it went to processing, in its environment's time.
      requestedAt: r.updated.toISOString(),
      live: r.live,
      environment: r.environment,
    };
    await bus.publish(TOPICS.lookupRequests.name, r.card_id, request);
  }
  if (rows.length > 0) {
    await db.query("update missing_transaction_requests set lookup_sent = $2 where id = any($1::uuid[])", [rows.map((r) => r.id), now]);
  }
  return rows.length;
}

/** A look-up entry as the request's result shows it: the card's scheme fields only. */
function found(scheme: Scheme, t: LookupTransaction): FoundTransaction {
  const base = {
    amount: t.amount,
    date: t.date,
    networkStatus: t.networkStatus,
    merchantCity: t.merchantCity,
    merchantName: t.merchantName,
    matchScore: t.matchScore,
  };
  switch (scheme) {
    case "visa":
      return {
        ...base,
        type: t.type ?? "authorization",
        vmid: t.vmid,
        vsid: t.vsid,
        visaStoreName: t.visaStoreName,
        visaAcquiringMid: t.visaAcquiringMid,
        visaBin: t.visaBin,
      };
    case "mastercard":
      return { ...base, mcLocationId: t.mcLocationId, mcAcquiringMid: t.mcAcquiringMid };
    case "amex":
      return { ...base, seNumber: t.seNumber };
  }
}

/**
 * The network's answer to a look-up: the request ends successful (its transactions) or failed (the
 * network's error code), with its event. A MID found with networkStatus SUCCEED that the location
 * lacks is added to the location and to MID insights (origin missing-transaction-lookup). A
 * redelivered or late answer changes nothing.
 */
export async function applyLookupReply(db: Db, reply: LookupReply, now: Date): Promise<"applied" | "stale" | "unknown"> {
  return db.tx(async (tx) => {
    const [row] = await tx.query<RequestRow>("select * from missing_transaction_requests where id = $1 for update", [reply.requestId]);
    if (!row) return "unknown";
    const succeeded = reply.outcome === "SUCCEEDED" && reply.transactions.length > 0;
    const next = requestTransition(row.status, succeeded ? "network-found" : "network-not-found");
    if (!next.ok) return "stale";
    const result: RequestResult = succeeded
      ? { transactions: reply.transactions.map((t) => found(row.scheme, t)) }
      : { error: reply.error ?? { code: "transaction-not-found", message: "The network found no matching transaction." } };
    const [updated] = await tx.query<RequestRow>(
      "update missing_transaction_requests set status = $2, result = $3::jsonb, updated = $4 where id = $1 returning *",
      [row.id, next.status, JSON.stringify(result), now],
    );
    if (succeeded) await learnMids(tx, row, reply.transactions, new Date(reply.respondedAt), now);
    await enqueueEvent(tx, eventOf(toRequest(updated!)), now);
    return "applied";
  });
}

async function learnMids(db: Db, row: RequestRow, transactions: LookupTransaction[], at: Date, now: Date): Promise<void> {
  const known = await networkMidsForUpdate(db, row.location_id, row.scheme);
  if (!known) return; // the location was deleted meanwhile
  const mids = [...known];
  for (const t of transactions) {
    if (t.networkStatus !== "SUCCEED") continue;
    const identifiers = schemeIdentifiers(row.scheme, t as unknown as Record<string, unknown>);
    if (Object.keys(identifiers).length === 0 || mids.some((m) => sameMid(m, identifiers))) continue;
    mids.push(identifiers);
    await recordMissingTransactionLookup(db, { locationId: row.location_id, scheme: row.scheme, identifiers, merchantName: t.merchantName, at }, now);
  }
  if (mids.length > known.length) {
    await setNetworkMids(db, row.location_id, row.scheme, mids, now);
  }
}

/** Whether a look-up of the account's requests is still at a network (processing). */
export async function anyLookupInFlight(db: Db, accountId: string): Promise<boolean> {
  const [row] = await db.query<{ waiting: boolean }>(
    "select exists (select 1 from missing_transaction_requests where account_id = $1 and status = 'processing') as waiting",
    [accountId],
  );
  return row!.waiting;
}
