// Transactions a publisher submits itself (oaas offers), and the stage events the return-period due work
// emits. Network messages go through the batch qualifier (src/qualifier/batch.ts).
import type { Db } from "./db.ts";
import type { Clock } from "../clock/index.ts";
import { decide, type ActivationState, type OfferResult } from "../domain/qualification.ts";
import { transactionIdFor } from "../domain/transaction-id.ts";
import { recordQualifiedTransaction } from "./offer-activations.ts";
import { claimStages, stageKey } from "./transaction-stages.ts";
import { stageEvents, type EventStage } from "../domain/stage-events.ts";
import { newId } from "./ids.ts";
import { toTransaction, type TransactionRow } from "./transactions.ts";
import type { Offer } from "./offers.ts";
import type { NetworkTransaction, TransactionCard, TransactionLocation } from "./network-transaction.ts";

export interface ProcessDeps {
  db: Db;
  clock: Clock;
}

async function activationStates(db: Db, cardId: string, offers: Offer[]): Promise<(offerId: string) => ActivationState> {
  const ids = offers.filter((o) => o.activation.enabled).map((o) => o.id);
  const rows = ids.length
    ? await db.query<{ offer_id: string; state: "activated" | "deactivated" }>(
        "select offer_id, state from offer_activations where card_id = $1 and offer_id = any($2::uuid[])",
        [cardId, ids],
      )
    : [];
  const states = new Map(rows.map((r) => [r.offer_id, r.state]));
  return (offerId) => states.get(offerId) ?? "not activated";
}

async function countActivation(db: Db, candidates: Offer[], offerId: string, cardId: string, now: Date) {
  if (candidates.find((o) => o.id === offerId)?.activation.enabled) await recordQualifiedTransaction(db, offerId, cardId, now);
}

interface InsertInput {
  id: string;
  kind: "purchase" | "refund";
  tx: NetworkTransaction;
  card: TransactionCard;
  location: TransactionLocation | null;
  result: OfferResult;
  originalId: string | null;
  qualificationDue: string | null;
  now: Date;
  /** The brand, when there is no location to take it from (publisher-submitted transactions). */
  brand?: TransactionRow["brand"];
}

async function insertTransaction(db: Db, i: InsertInput): Promise<TransactionRow> {
  const { tx, card, location } = i;
  const brand = location ? { id: location.brand_id, name: location.brand_name, logoUrl: location.brand_logo_url } : (i.brand ?? null);
  const [row] = await db.query<TransactionRow>(
    `insert into transactions (id, account_id, live, program_id, card_id, location_id, brand_id, scheme, kind, purchase_key,
       original_id, datetime, amount, currency, card_present, wallet, auth, cleared, targeting_tag, identifiers, card, brand,
       location, offer, qualification_due, created, updated)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20::jsonb, $21::jsonb,
       $22::jsonb, $23::jsonb, $24::jsonb, $25, $26, $26)
     returning *`,
    [
      i.id,
      card.account_id,
      card.live,
      card.program_id,
      card.id,
      location?.id ?? null,
      brand?.id ?? null,
      tx.scheme,
      i.kind,
      tx.purchaseKey,
      i.originalId,
      tx.localDateTime,
      tx.amount,
      tx.currency,
      tx.cardPresent,
      tx.wallet,
      tx.stage === "auth",
      tx.stage === "clearing" || tx.stage === "refund",
      tx.targetingTag,
      JSON.stringify(tx.identifiers),
      JSON.stringify({ id: card.id, firstNumbers: card.first_numbers, lastNumbers: card.last_numbers, scheme: card.scheme, metadata: card.metadata ?? {} }),
      JSON.stringify(brand),
      JSON.stringify(
        location
          ? {
              id: location.id,
              address: location.address,
              city: location.city,
              postcode: location.postcode,
              countryCode: location.country_code,
              timezone: location.timezone,
              geolocation: location.latitude === null || location.longitude === null ? null : { latitude: location.latitude, longitude: location.longitude },
              metadata: location.metadata ?? {},
            }
          : null,
      ),
      JSON.stringify(i.result),
      i.qualificationDue,
      i.now,
    ],
  );
  return row!;
}

/**
 * Writes the stage's webhook event and, when the offer result is qualified, the stage's `.qualified`
 * event — each at most once per transaction, whatever is redelivered.
 */
async function emitStage(db: Db, row: TransactionRow, stage: EventStage, now: Date): Promise<string[]> {
  return emitEvents(db, row, stageEvents(stage, row.offer.qualified), now);
}

export async function emitEvents(db: Db, row: TransactionRow, names: string[], now: Date): Promise<string[]> {
  const data = toTransaction(row);
  const won = await claimStages(
    db,
    names.map((event) => ({ transactionId: row.id, event, eventId: newId(), accountId: row.account_id, live: row.live, programId: row.program_id, data })),
    now,
  );
  return names.filter((event) => won.has(stageKey(row.id, event)));
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
    const [card] = await db.query<TransactionCard>("select * from cards where id = $1 and account_id = $2 and live = $3", [
      input.cardId,
      offer.publisherId,
      offer.live,
    ]);
    if (!card) return { missing: "card" as const };
    const purchaseKey = `oaas:${offer.id}:${input.reference}`;
    const id = transactionIdFor(card.scheme, "purchase", purchaseKey);
    // Two submissions of one reference at once: the second waits here and then finds the first's row.
    await db.query("select pg_advisory_xact_lock(hashtext($1))", [id]);
    const [existing] = await db.query("select 1 from transactions where id = $1", [id]);
    if (existing) return { transactionId: id, created: false };
    const tx: NetworkTransaction = {
      scheme: card.scheme as NetworkTransaction["scheme"],
      messageId: purchaseKey,
      stage: "clearing",
      purchaseKey,
      originalKey: null,
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
    const result = decide(
      [offer],
      { amount: tx.amount, currency: tx.currency, localDateTime: tx.localDateTime, scheme: tx.scheme, targetingTag: tx.targetingTag, created: now.toISOString() },
      activation,
      now.toISOString(),
    );
    const row = await insertTransaction(db, {
      id,
      kind: "purchase",
      tx,
      card,
      location: null,
      result,
      originalId: null,
      qualificationDue: result.qualified ? null : result.qualificationDate,
      now,
      brand: { id: offer.brandId, name: offer.brandName, logoUrl: offer.brandLogoURL },
    });
    if (result.qualified) await countActivation(db, [offer], offer.id, card.id, now);
    await emitStage(db, row, "clearing", now);
    return { transactionId: id, created: true };
  });
}
