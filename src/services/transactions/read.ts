// Reading transactions as the API shows them: one, a program's list, a transaction's qualification, and
// what the refunds of purchases come to.
import type { Ctx } from "../../platform/context.ts";
import type { Db } from "../../platform/db.ts";
import { notFound } from "../../domain/errors.ts";
import { z } from "zod";
import type { Scheme } from "../../domain/scheme.ts";
import { amexTransactionSchema, mastercardTransactionSchema, visaTransactionSchema } from "../../platform/bus/validators.generated.ts";
import { lostReason, type ConsideredOffer } from "../../domain/qualification.ts";
import type { Stage } from "./network-transaction.ts";
import { Filters, pageByCreated, type Page, type PageQuery } from "../../platform/page.ts";
import { getProgram } from "../catalog/index.ts";
import { offerNamesOf } from "../offers/index.ts";
import { toTransaction, type Transaction, type TransactionRow } from "./transactions.ts";

export async function findTransaction(ctx: Ctx, id: string): Promise<Transaction | undefined> {
  const [row] = await ctx.db.query<TransactionRow>(
    "select * from transactions where id = $1 and account_id = $2 and live = $3",
    [id, ctx.accountId, ctx.live],
  );
  return row && toTransaction(row);
}

export async function getTransaction(ctx: Ctx, id: string): Promise<Transaction> {
  const found = await findTransaction(ctx, id);
  if (!found) throw notFound("transaction", id);
  return found;
}

/** One offer a transaction's decision weighed, as the qualification read shows it. */
export interface ConsideredOfferView {
  offerId: string;
  /** The offer's name while it exists (null once deleted). */
  offerName: string | null;
  outcome: ConsideredOffer["outcome"];
  cashback: number | null;
  performanceFee: number | null;
  reason: string | null;
}

/** The scheme's own message a stage of a transaction was made from. */
export interface NativeMessage {
  stage: Stage;
  scheme: Scheme;
  /** The scheme's name for the message (its messageType: Visa AUTH, SETTLEMENT…; Mastercard AUTHORIZATION, CLEARING…; Amex AUTH, SUBMISSION…). */
  kind: string | null;
  /** The message as the network sent it. */
  value: Record<string, unknown>;
}

/** How the qualifier decided a transaction: the offers it weighed and the network's messages it read. */
export interface TransactionQualification {
  transactionId: string;
  /** null when the transaction was not decided against offers (a refund) or was recorded before Cardlink kept them. */
  considered: ConsideredOfferView[] | null;
  /** How many more offers were weighed than are listed. */
  moreConsidered: number;
  nativeMessages: NativeMessage[];
}

const STAGE_ORDER: Stage[] = ["auth", "increment", "clearing", "void", "expiry", "refund"];

const MESSAGE_SCHEMAS: Record<Scheme, z.ZodType> = { visa: visaTransactionSchema, mastercard: mastercardTransactionSchema, amex: amexTransactionSchema };

/** The fields of an object schema (through nullable and optional), or null. */
function shapeOf(schema: z.ZodType): Record<string, z.ZodType> | null {
  if (schema instanceof z.ZodObject) return schema.shape as Record<string, z.ZodType>;
  if (schema instanceof z.ZodNullable || schema instanceof z.ZodOptional) return shapeOf(schema.unwrap() as z.ZodType);
  return null;
}

/**
 * jsonb keeps keys in its own order; a native message is shown in its scheme's field order (the Avro
 * schema's, as the network lays it out), nested objects too, any field the schema does not know after.
 */
function inSchemaOrder(value: unknown, schema: z.ZodType): unknown {
  const shape = shapeOf(schema);
  if (!shape || value === null || typeof value !== "object" || Array.isArray(value)) return value;
  const record = value as Record<string, unknown>;
  const ordered: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(shape)) if (key in record) ordered[key] = inSchemaOrder(record[key], field);
  for (const key of Object.keys(record)) if (!(key in ordered)) ordered[key] = record[key];
  return ordered;
}

/** The caller's transaction's qualification: what its decision weighed and the native message of each stage. */
export async function getTransactionQualification(ctx: Ctx, id: string): Promise<TransactionQualification> {
  const [row] = await ctx.db.query<Pick<TransactionRow, "id" | "scheme" | "currency" | "considered" | "native_messages">>(
    "select id, scheme, currency, considered, native_messages from transactions where id = $1 and account_id = $2 and live = $3",
    [id, ctx.accountId, ctx.live],
  );
  if (!row) throw notFound("transaction", id);
  const offers = row.considered?.offers ?? [];
  const winner = offers.find((o) => o.outcome === "won");
  const names = await offerNamesOf(ctx, [...new Set(offers.map((o) => o.offerId))]);
  const messages = row.native_messages ?? {};
  return {
    transactionId: row.id,
    considered:
      row.considered &&
      offers.map((o) => ({
        offerId: o.offerId,
        offerName: names.get(o.offerId) ?? null,
        outcome: o.outcome,
        cashback: o.cashback ?? null,
        performanceFee: o.performanceFee ?? null,
        reason: o.outcome === "lost" ? lostReason(o, winner, row.currency) : (o.reason ?? null),
      })),
    moreConsidered: row.considered?.more ?? 0,
    nativeMessages: STAGE_ORDER.flatMap((stage) => {
      const value = messages[stage];
      if (value === null || typeof value !== "object") return [];
      const record = value as Record<string, unknown>;
      const kind = typeof record.messageType === "string" ? record.messageType : null;
      return [{ stage, scheme: row.scheme as Scheme, kind, value: inSchemaOrder(record, MESSAGE_SCHEMAS[row.scheme as Scheme]) as Record<string, unknown> }];
    }),
  };
}

export async function listProgramTransactions(
  ctx: Ctx,
  programId: string,
  filter: { cardId?: string; locationId?: string },
  page: PageQuery,
): Promise<Page<Transaction>> {
  await getProgram(ctx, programId);
  const filters = new Filters()
    .add("program_id = ?", programId)
    .add("account_id = ?", ctx.accountId)
    .add("live = ?", ctx.live);
  if (filter.cardId) filters.add("card_id = ?", filter.cardId);
  if (filter.locationId) filters.add("location_id = ?", filter.locationId);
  return pageByCreated(ctx.db, "transactions", filters, page, toTransaction);
}

/** How much of each purchase has been refunded, many purchases in one statement. */
export async function refundedAmounts(db: Db, purchaseIds: string[]): Promise<Map<string, number>> {
  const rows = await db.query<{ original_id: string; refunded: number }>(
    "select original_id, coalesce(-sum(amount), 0)::float8 as refunded from transactions where original_id = any($1::uuid[]) group by original_id",
    [purchaseIds],
  );
  return new Map(rows.map((r) => [r.original_id, r.refunded]));
}

/** What the refunds of a purchase add up to (a positive amount). */
export async function refundedAmount(db: Db, purchaseId: string): Promise<number> {
  const [row] = await db.query<{ refunded: number }>("select coalesce(-sum(amount), 0)::float8 as refunded from transactions where original_id = $1", [purchaseId]);
  return row?.refunded ?? 0;
}
