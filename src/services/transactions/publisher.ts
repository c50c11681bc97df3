// Transactions a publisher submits itself (oaas offers), turned into what the qualifier's steps take: the
// purchase as a clearing of the card's scheme, the one offer it is decided against and the place it is
// recorded at (the offer's brand, no location). The qualifier decides and writes a submission with the
// same steps and statements as a batch of network messages (src/qualifier/batch.ts).
import type { Db } from "../../platform/db.ts";
import { transactionIdFor } from "../../domain/transaction-id.ts";
import { findCardRow } from "../catalog/index.ts";
import type { Offer } from "../offers/index.ts";
import type { NetworkTransaction } from "./network-transaction.ts";
import type { TransactionPlace } from "./transactions.ts";

export interface PublisherTransactionInput {
  cardId: string;
  amount: number;
  /** Local date-time of the purchase, YYYY-MM-DDThh:mm:ss. */
  datetime: string;
  targetingTag: "new" | "lapsed" | "existing" | null;
  /** The publisher's own id for the purchase: submitting it again returns the same transaction. */
  reference: string;
}

/** A publisher's purchase as the qualifier's steps take it. */
export interface Submission {
  /** The purchase, a clearing whose message id is its purchase key (`oaas:<offer>:<reference>`). */
  tx: NetworkTransaction;
  /** The transaction's id: a second submission of the reference finds it. */
  transactionId: string;
  /** The one offer the purchase is decided against (an oaas offer links no location). */
  offer: Offer;
  place: TransactionPlace;
}

/**
 * The submission of a purchase for `offer`, in the caller's database transaction; undefined when the card
 * is not one of the offer's publisher's in the offer's environment. Two submissions of one reference at
 * once: the second waits here until the first's transaction ends, then finds its row.
 */
export async function publisherSubmission(db: Db, offer: Offer, input: PublisherTransactionInput): Promise<Submission | undefined> {
  const card = await findCardRow(db, { accountId: offer.publisherId, live: offer.live }, input.cardId);
  if (!card) return undefined;
  const purchaseKey = `oaas:${offer.id}:${input.reference}`;
  const scheme = card.scheme as NetworkTransaction["scheme"];
  const transactionId = transactionIdFor(scheme, "purchase", purchaseKey);
  await db.query("select pg_advisory_xact_lock(hashtext($1))", [transactionId]);
  return {
    transactionId,
    offer,
    place: { location_id: null, brand_id: offer.brandId, brand: { id: offer.brandId, name: offer.brandName, logoUrl: offer.brandLogoURL }, location: null },
    tx: {
      scheme,
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
    },
  };
}
