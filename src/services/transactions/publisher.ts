// Transactions a publisher submits itself (oaas offers). Network messages go through the batch qualifier
// (src/qualifier/batch.ts); both record through the same services (transactions, outbox, offer-activations).
import type { Db } from "../../platform/db.ts";
import type { Clock } from "../../platform/clock/index.ts";
import { decision } from "../../domain/qualification.ts";
import { transactionIdFor } from "../../domain/transaction-id.ts";
import { stageEvents } from "../../domain/stage-events.ts";
import { activationStates, recordQualifiedTransaction } from "../offers/index.ts";
import { findCardRow } from "../catalog/index.ts";
import { emitStageEvents, insertTransactionRows, transactionExists, transactionRowOf } from "./transactions.ts";
import type { Offer } from "../offers/index.ts";
import type { NetworkTransaction } from "./network-transaction.ts";

export interface ProcessDeps {
  db: Db;
  clock: Clock;
}

export interface PublisherTransactionInput {
  cardId: string;
  amount: number;
  /** Local date-time of the purchase, YYYY-MM-DDThh:mm:ss. */
  datetime: string;
  targetingTag: "new" | "lapsed" | "existing" | null;
  /** The publisher's own id for the purchase: submitting it again returns the same transaction. */
  reference: string;
}

/**
 * A purchase the publisher reports for an offer whose transaction data it sources itself (`oaas`):
 * decided against that offer alone, recorded as a cleared transaction with no location, and reported
 * with the clearing webhooks like network traffic.
 */
export async function processPublisherTransaction(
  deps: Pick<ProcessDeps, "db" | "clock">,
  offer: Offer,
  input: PublisherTransactionInput,
): Promise<{ transactionId: string; created: boolean } | { missing: "card" }> {
  const now = deps.clock.now();
  return deps.db.tx(async (db) => {
    const card = await findCardRow(db, { accountId: offer.publisherId, live: offer.live }, input.cardId);
    if (!card) return { missing: "card" as const };
    const purchaseKey = `oaas:${offer.id}:${input.reference}`;
    const id = transactionIdFor(card.scheme, "purchase", purchaseKey);
    // Two submissions of one reference at once: the second waits here and then finds the first's row.
    await db.query("select pg_advisory_xact_lock(hashtext($1))", [id]);
    if (await transactionExists(db, id)) return { transactionId: id, created: false };
    const tx: NetworkTransaction = {
      scheme: card.scheme as NetworkTransaction["scheme"],
      messageId: purchaseKey,
      stage: "clearing",
      purchaseKey,
      originalKey: null,
      clearingKey: null,
      cardId: card.id,
      cardFirstSix: card.first_numbers,
      cardLastFour: card.last_numbers,
      amount: input.amount,
      currency: offer.currency,
      localDateTime: input.datetime,
      cardPresent: false,
      wallet: null,
      targetingTag: input.targetingTag,
      merchant: { vmid: null, vsid: null, visaAcquiringMid: null, visaBin: null, mcLocationId: null, mcAcquiringMid: null, seNumber: null },
      identifiers: { MID: null, mastercardTransactionSequenceNumber: null, mastercardRefNumber: null, amexApprovalCode: null, visaAuthCode: null, mastercardAuthCode: null },
    };
    const activation = await activationStates(db, card.id, [offer]);
    const { result, considered } = decision(
      [offer],
      { amount: tx.amount, currency: tx.currency, localDateTime: tx.localDateTime, scheme: tx.scheme, targetingTag: tx.targetingTag, created: now.toISOString() },
      activation,
      now.toISOString(),
    );
    const row = transactionRowOf({
      id,
      kind: "purchase",
      tx,
      card,
      now,
      result,
      considered,
      originalId: null,
      qualificationDue: result.qualified ? null : result.qualificationDate,
      place: { location_id: null, brand_id: offer.brandId, brand: { id: offer.brandId, name: offer.brandName, logoUrl: offer.brandLogoURL }, location: null },
    });
    await insertTransactionRows(db, [row]);
    if (result.qualified && offer.activation.enabled) await recordQualifiedTransaction(db, offer.id, card.id, now);
    await emitStageEvents(db, row, stageEvents("clearing", result.qualified), now);
    return { transactionId: id, created: true };
  });
}
