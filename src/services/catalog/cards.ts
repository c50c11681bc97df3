// Enrolled cards. Only the first six and last four digits, the scheme and a random network token are
// kept; the full number is checked, then dropped, and never written anywhere.
import type { Ctx } from "../../platform/context.ts";
import type { Db } from "../../platform/db.ts";
import { DomainError, invalid, notFound } from "../../domain/errors.ts";
import { CARD_FAILURE_REASONS, checkCardNumber, enrolmentOutcome, expiryProblem, notLinkedRule, type CardFailureReason, type Scheme } from "../../domain/card-number.ts";
import { Filters, pageByCreated, type Page, type PageQuery } from "../../platform/page.ts";
import { getProgram } from "./programs.ts";
import { newId, randomBase62 } from "../../platform/ids.ts";
import type { CardEnrolment } from "../../platform/bus/messages.ts";
import { TOPICS } from "../../platform/bus/topics.ts";
import { enqueueCommand, trySendCommands, type NetworkCommand } from "../../platform/network-outbox.ts";
import { enqueueEvent } from "../../platform/outbox.ts";
import { environmentJoin } from "../../platform/clock/environment.ts";

export interface Card {
  id: string;
  programId: string;
  firstNumbers: string;
  lastNumbers: string;
  scheme: Scheme;
  expMonth: number;
  expYear: number;
  countryCode: string;
  termsOfUse: boolean;
  metadata: Record<string, unknown>;
  /** `linked`: the network enrolled it; `failed`: it refused, and the card is only the record of that answer. */
  status: "linked" | "failed";
  /** Why the network refused it; null for a linked card. */
  failure: { reason: CardFailureReason; message: string } | null;
  live: boolean;
  created: string;
  updated: string;
}

/** The card a transaction is matched to, as stored. */
export interface StoredCard {
  id: string;
  account_id: string;
  live: boolean;
  program_id: string;
  first_numbers: string;
  last_numbers: string;
  scheme: string;
  metadata: Record<string, unknown> | null;
}

interface CardRow {
  id: string;
  program_id: string;
  first_numbers: string;
  last_numbers: string;
  scheme: Scheme;
  exp_month: number;
  exp_year: number;
  country_code: string;
  terms_of_use: boolean;
  metadata: Record<string, unknown> | null;
  status: Card["status"];
  failure_reason: CardFailureReason | null;
  live: boolean;
  created: Date;
  updated: Date;
}

/** A card row as written or deleted, with the sandbox it is in (its account id; null for an account's own environments), for the network. */
type EnrolledRow = CardRow & { environment: string | null };
/** What an insert or delete on cards returns for the enrolment: the row and, in the same statement, its sandbox. */
const RETURNING_ENROLLED = "returning *, sandbox_of(cards.account_id) as environment";

const toCard = (r: CardRow): Card => ({
  id: r.id,
  programId: r.program_id,
  firstNumbers: r.first_numbers,
  lastNumbers: r.last_numbers,
  scheme: r.scheme,
  expMonth: r.exp_month,
  expYear: r.exp_year,
  countryCode: r.country_code,
  termsOfUse: r.terms_of_use,
  // An object everywhere, as in the transaction's card: {} when none was given.
  metadata: r.metadata ?? {},
  status: r.status,
  failure: r.failure_reason ? { reason: r.failure_reason, message: CARD_FAILURE_REASONS[r.failure_reason] } : null,
  live: r.live,
  created: r.created.toISOString(),
  updated: r.updated.toISOString(),
});

export interface CardInput {
  number: string;
  expMonth: number;
  expYear: number;
  countryCode: string;
  termsOfUse: true;
  metadata?: Record<string, unknown> | null;
}

/**
 * Enrols a card: the network links it (`card.linked`) or refuses it (`card.failed`, the failing test
 * numbers), each event written with the card. A failed card is kept as the record of that answer, with
 * its reason: its network is never told of it, so no transaction, activation or look-up can name it.
 */
export async function enrolCard(ctx: Ctx, programId: string, input: CardInput): Promise<Card> {
  await getProgram(ctx, programId);
  const number = checkCardNumber(input.number, ctx.live);
  if (!number.ok) throw invalid("number", number.rule);
  const now = ctx.clock.now();
  const expired = expiryProblem(input.expMonth, input.expYear, now);
  if (expired) throw invalid(expired.field, expired.rule);
  const outcome = enrolmentOutcome(input.number);
  const { card, command } = await ctx.db.tx(async (db) => {
    const [row] = await db.query<EnrolledRow>(
      `insert into cards (id, account_id, live, program_id, first_numbers, last_numbers, scheme, exp_month, exp_year,
         country_code, network_token, terms_of_use, metadata, status, failure_reason, created, updated)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13::jsonb, $14, $15, $16, $16) ${RETURNING_ENROLLED}`,
      [
        newId(),
        ctx.accountId,
        ctx.live,
        programId,
        number.firstNumbers,
        number.lastNumbers,
        number.scheme,
        input.expMonth,
        input.expYear,
        input.countryCode,
        // The token the simulated network knows the card by, in place of the number.
        `ntk_${randomBase62(32)}`,
        input.termsOfUse,
        JSON.stringify(input.metadata ?? null),
        outcome.status,
        outcome.status === "failed" ? outcome.reason : null,
        now,
      ],
    );
    const card = toCard(row!);
    const event = card.status === "linked" ? "card.linked" : "card.failed";
    await enqueueEvent(db, { accountId: ctx.accountId, live: ctx.live, programId, event, data: card }, now);
    return { card, command: card.status === "linked" ? await enqueueCommand(db, enrolment(row!, "ENROL", now), now) : undefined };
  });
  if (command) await trySendCommands(ctx.db, ctx.bus, now, [command]);
  return card;
}

/** The caller's card, refused (409) unless the network linked it: a failed card takes part in nothing. */
export async function getLinkedCard(ctx: Ctx, id: string): Promise<Card> {
  const card = await getCard(ctx, id);
  const refused = notLinkedRule({ id: card.id, status: card.status, failureReason: card.failure?.reason ?? null });
  if (refused) throw new DomainError("conflict", `cardId: ${refused}`);
  return card;
}

/** What the card's network is told: the card id it will see in transactions, the digits it shows. */
const enrolment = (r: EnrolledRow, action: CardEnrolment["action"], now: Date): NetworkCommand => ({
  topic: TOPICS.cardEnrolments.name,
  key: r.id,
  value: {
    cardId: r.id,
    scheme: r.scheme,
    action,
    programId: r.program_id,
    firstSix: r.first_numbers,
    lastFour: r.last_numbers,
    live: r.live,
    at: now.toISOString(),
    environment: r.environment,
  } satisfies CardEnrolment,
});

export async function listCards(ctx: Ctx, programId: string, page: PageQuery): Promise<Page<Card>> {
  await getProgram(ctx, programId);
  return pageByCreated(
    ctx.db,
    "cards",
    new Filters().add("program_id = ?", programId).add("account_id = ?", ctx.accountId).add("live = ?", ctx.live),
    page,
    toCard,
  );
}

/** The caller's card in the caller's environment, or 404 — never another account's. */
export async function getCard(ctx: Ctx, id: string): Promise<Card> {
  const [row] = await ctx.db.query<CardRow>("select * from cards where id = $1 and account_id = $2 and live = $3", [
    id,
    ctx.accountId,
    ctx.live,
  ]);
  if (!row) throw notFound("card", id);
  return toCard(row);
}

export async function deleteCard(ctx: Ctx, id: string): Promise<void> {
  const now = ctx.clock.now();
  const command = await ctx.db.tx(async (db) => {
    const [row] = await db.query<EnrolledRow>(`delete from cards where id = $1 and account_id = $2 and live = $3 ${RETURNING_ENROLLED}`, [
      id,
      ctx.accountId,
      ctx.live,
    ]);
    if (!row) throw notFound("card", id);
    // A failed card's network never knew it: nothing to tell.
    return row.status === "linked" ? enqueueCommand(db, enrolment(row, "UNENROL", now), now) : undefined;
  });
  if (command) await trySendCommands(ctx.db, ctx.bus, now, [command]);
}

/**
 * The linked cards of a batch of network messages, as the qualifier matches them (a failed card is no card of
 * theirs), each with whether it is in a sandbox (only a sandbox has a clock of its own).
 */
export async function cardsForTransactions(db: Db, ids: string[]): Promise<(StoredCard & { in_sandbox: boolean })[]> {
  const environment = environmentJoin("a", "c.account_id");
  return db.query<StoredCard & { in_sandbox: boolean }>(
    `select c.*, ${environment.inSandbox} as in_sandbox from cards c ${environment.join} where c.id = any($1::uuid[]) and c.status = 'linked'`,
    [ids],
  );
}

/** One linked card row of an account and environment, as transactions are matched to it; undefined when there is none. */
export async function findCardRow(db: Db, owner: { accountId: string; live: boolean }, id: string): Promise<StoredCard | undefined> {
  const [card] = await db.query<StoredCard>("select * from cards where id = $1 and account_id = $2 and live = $3 and status = 'linked'", [
    id,
    owner.accountId,
    owner.live,
  ]);
  return card;
}
