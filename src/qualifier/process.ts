// One network message, applied in one database transaction: resolve the card and the location, update
// the MID insight, decide against the live offers, write the transaction with its offer result and
// the outbox events. Re-applying a message changes nothing, so a redelivery after a crash is harmless.
import type { Db } from "../store/db.ts";
import type { Clock } from "../clock/index.ts";
import { decide, refundResult, type ActivationState, type OfferResult } from "../domain/qualification.ts";
import { transactionIdFor } from "../domain/transaction-id.ts";
import { networkKey } from "../domain/mid-insights.ts";
import { recordTransactionSeen } from "../store/mid-insights.ts";
import { recordQualifiedTransaction } from "../store/offer-activations.ts";
import { enqueueEvent } from "../store/outbox.ts";
import { newId } from "../store/ids.ts";
import { toTransaction, type TransactionRow } from "../store/transactions.ts";
import type { Offer } from "../store/offers.ts";
import type { LocationRow as StoredLocation } from "../store/locations.ts";
import type { OfferIndex } from "./offer-index.ts";
import type { NetworkTransaction } from "./normalise/types.ts";

export type Outcome =
  | { kind: "recorded"; transactionId: string; events: string[] }
  | { kind: "duplicate" }
  | { kind: "dropped"; reason: string };

export interface ProcessDeps {
  db: Db;
  clock: Clock;
  offers: OfferIndex;
}

interface CardRow {
  id: string;
  account_id: string;
  live: boolean;
  program_id: string;
  first_numbers: string;
  last_numbers: string;
  scheme: string;
  metadata: Record<string, unknown> | null;
}

/** A location with its brand's name and logo, as the transaction record shows them. */
interface LocationRow extends StoredLocation {
  brand_name: string;
  brand_logo_url: string | null;
}

/** The MID fields a location's record must contain for the message's merchant to be that location. */
function midProbe(tx: NetworkTransaction): Record<string, string> | null {
  const m = tx.merchant;
  switch (tx.scheme) {
    case "visa":
      return m.vmid ? { vmid: m.vmid, ...(m.vsid ? { vsid: m.vsid } : {}) } : m.visaAcquiringMid ? { visaAcquiringMid: m.visaAcquiringMid } : null;
    case "mastercard":
      return m.mcLocationId ? { mcLocationId: m.mcLocationId } : m.mcAcquiringMid ? { mcAcquiringMid: m.mcAcquiringMid } : null;
    case "amex":
      return m.seNumber ? { seNumber: m.seNumber } : null;
  }
}

async function findLocation(db: Db, programId: string, tx: NetworkTransaction): Promise<LocationRow | undefined> {
  const probe = midProbe(tx);
  if (!probe) return undefined;
  const [row] = await db.query<LocationRow>(
    `select l.*, b.name as brand_name, b.logo_url as brand_logo_url
     from location_networks n join locations l on l.id = n.location_id join brands b on b.id = l.brand_id
     where l.program_id = $1 and n.scheme = $2 and n.status = 'Active' and n.mids @> $3::jsonb
     order by l.created limit 1`,
    [programId, tx.scheme, JSON.stringify([probe])],
  );
  return row;
}

const STAGE_EVENT = { auth: "transaction.auth", clearing: "transaction.clearing", refund: "transaction.refund" } as const;

export async function processTransaction(deps: ProcessDeps, tx: NetworkTransaction): Promise<Outcome> {
  const now = deps.clock.now();
  return deps.db.tx(async (db) => {
    const [seen] = await db.query("select 1 from transaction_messages where scheme = $1 and message_id = $2", [tx.scheme, tx.messageId]);
    if (seen) return { kind: "duplicate" } as const;

    const [card] = await db.query<CardRow>("select * from cards where id = $1", [tx.cardId]);
    if (!card) return { kind: "dropped", reason: "card not enrolled" } as const;

    if (tx.stage === "void") return applyVoid(db, tx, now);
    if (tx.stage === "refund") return applyRefund(db, tx, card, now);

    const kind = "purchase";
    const id = transactionIdFor(tx.scheme, kind, tx.purchaseKey);
    const [existing] = await db.query<TransactionRow>("select * from transactions where id = $1 for update", [id]);
    if (existing) return applyLaterStage(db, tx, existing, now);

    const location = await findLocation(db, card.program_id, tx);
    if (!location) return { kind: "dropped", reason: "no onboarded location of the card's program has this MID" } as const;
    await touchMidInsight(db, card.program_id, tx, id, now);

    const candidates = (await deps.offers.forLocation(db, location.id, now)).filter((o) => o.live === card.live);
    const activation = await activationStates(db, card.id, candidates);
    // Rule 5: in live, a location whose offers all need activation receives only activated cards'
    // transactions. In test every transaction is visible.
    if (card.live && candidates.length > 0 && candidates.every((o) => o.activation.enabled) && !candidates.some((o) => activation(o.id) === "activated")) {
      return { kind: "dropped", reason: "live activation offer not activated on this card" } as const;
    }
    const result = decide(
      candidates,
      {
        amount: tx.amount,
        currency: tx.currency,
        localDateTime: tx.localDateTime,
        scheme: tx.scheme,
        targetingTag: tx.targetingTag,
        created: now.toISOString(),
      },
      activation,
      now.toISOString(),
    );
    const row = await insertTransaction(db, {
      id,
      kind,
      tx,
      card,
      location,
      result,
      originalId: null,
      qualificationDue: result.qualified ? null : result.qualificationDate,
      now,
    });
    if (result.qualified && result.id) await countActivation(db, candidates, result.id, card.id, now);
    const events = await emitStage(db, row, tx.stage, now);
    await markMessage(db, tx, id, now);
    return { kind: "recorded", transactionId: id, events } as const;
  });
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

async function touchMidInsight(db: Db, programId: string, tx: NetworkTransaction, transactionId: string, now: Date) {
  if (tx.stage !== "auth" && tx.stage !== "clearing") return;
  const [mid] = await db.query<{ id: string }>("select id from mids where program_id = $1 and scheme = $2 and network_key = $3", [
    programId,
    tx.scheme,
    networkKey(tx.scheme, tx.merchant),
  ]);
  if (!mid) return;
  await recordTransactionSeen(
    db,
    { programId, midId: mid.id, transactionId, stage: tx.stage, at: new Date(`${tx.localDateTime}Z`) },
    now,
  );
}

interface InsertInput {
  id: string;
  kind: "purchase" | "refund";
  tx: NetworkTransaction;
  card: CardRow;
  location: LocationRow | null;
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
async function emitStage(db: Db, row: TransactionRow, stage: "auth" | "clearing" | "refund", now: Date): Promise<string[]> {
  const base = STAGE_EVENT[stage];
  const names = stage !== "refund" && row.offer.qualified ? [base, `${base}.qualified`] : [base];
  return emitEvents(db, row, names, now);
}

export async function emitEvents(db: Db, row: TransactionRow, names: string[], now: Date): Promise<string[]> {
  const emitted: string[] = [];
  for (const event of names) {
    const [claimed] = await db.query<{ event_id: string }>(
      `insert into transaction_stages (transaction_id, event, event_id, created) values ($1, $2, $3, $4)
       on conflict do nothing returning event_id`,
      [row.id, event, newId(), now],
    );
    if (!claimed) continue;
    await enqueueEvent(
      db,
      { id: claimed.event_id, accountId: row.account_id, live: row.live, programId: row.program_id, event, data: toTransaction(row) },
      now,
    );
    emitted.push(event);
  }
  return emitted;
}

async function markMessage(db: Db, tx: NetworkTransaction, transactionId: string, now: Date) {
  await db.query(
    "insert into transaction_messages (scheme, message_id, transaction_id, stage, received) values ($1, $2, $3, $4, $5)",
    [tx.scheme, tx.messageId, transactionId, tx.stage, now],
  );
}

/** The purchase's other stage: auth after a clearing that came first, or the clearing after the auth. */
async function applyLaterStage(db: Db, tx: NetworkTransaction, existing: TransactionRow, now: Date): Promise<Outcome> {
  const stage = tx.stage as "auth" | "clearing";
  const column = stage === "auth" ? "auth" : "cleared";
  const [row] = await db.query<TransactionRow>(`update transactions set ${column} = true, updated = $2 where id = $1 returning *`, [existing.id, now]);
  await touchMidInsight(db, existing.program_id, tx, existing.id, now);
  const events = await emitStage(db, row!, stage, now);
  await markMessage(db, tx, existing.id, now);
  return { kind: "recorded", transactionId: existing.id, events };
}

async function applyVoid(db: Db, tx: NetworkTransaction, now: Date): Promise<Outcome> {
  const id = transactionIdFor(tx.scheme, "purchase", tx.purchaseKey);
  const [row] = await db.query<{ id: string }>("update transactions set voided = true, updated = $2 where id = $1 returning id", [id, now]);
  if (!row) return { kind: "dropped", reason: "void of a purchase Cardlink did not record" };
  await markMessage(db, tx, id, now);
  return { kind: "recorded", transactionId: id, events: [] };
}

async function applyRefund(db: Db, tx: NetworkTransaction, card: CardRow, now: Date): Promise<Outcome> {
  const [original] = tx.originalKey
    ? await db.query<TransactionRow>("select * from transactions where id = $1", [transactionIdFor(tx.scheme, "purchase", tx.originalKey)])
    : [];
  const [locationRow] = original?.location_id
    ? await db.query<LocationRow>(
        `select l.*, b.name as brand_name, b.logo_url as brand_logo_url from locations l join brands b on b.id = l.brand_id where l.id = $1`,
        [original.location_id],
      )
    : [await findLocation(db, card.program_id, tx)];
  if (!original && !locationRow) return { kind: "dropped", reason: "refund at no onboarded location of the card's program" };
  const result: OfferResult = original
    ? refundResult(original.offer, original.amount, tx.amount, tx.currency)
    : { id: null, cashback: 0, performanceFee: 0, qualified: false, qualificationDate: null, message: ["The refund matches no purchase Cardlink recorded."] };
  const id = transactionIdFor(tx.scheme, "refund", tx.purchaseKey);
  const row = await insertTransaction(db, {
    id,
    kind: "refund",
    tx,
    card,
    location: locationRow ?? null,
    result,
    originalId: original?.id ?? null,
    qualificationDue: null,
    now,
  });
  const events = await emitStage(db, row, "refund", now);
  await markMessage(db, tx, id, now);
  return { kind: "recorded", transactionId: id, events };
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
    const [card] = await db.query<CardRow>("select * from cards where id = $1 and account_id = $2 and live = $3", [
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
