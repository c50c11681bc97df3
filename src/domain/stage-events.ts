// Which webhook events a transaction's stage sends: the stage's own event and, when the offer result
// qualifies, its `.qualified` event. A refund's result is qualified when the purchase it refunds had
// earned cashback (refundResult keeps the purchase's `qualified`, with negative cashback and fee): its
// `transaction.refund.qualified` tells that the award is reversed. An authorisation's expiry sends
// `transaction.auth.expired` alone: it tells of cashback withdrawn, never of cashback earned.
export type EventStage = "auth" | "clearing" | "refund" | "expiry";

const STAGE_EVENT = { auth: "transaction.auth", clearing: "transaction.clearing", refund: "transaction.refund", expiry: "transaction.auth.expired" } as const;

export function stageEvents(stage: EventStage, qualified: boolean): string[] {
  const base = STAGE_EVENT[stage];
  return stage !== "expiry" && qualified ? [base, `${base}.qualified`] : [base];
}
