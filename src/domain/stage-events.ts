// Which webhook events a transaction's stage sends: the stage's own event and, when the offer result
// qualifies, its `.qualified` event (a refund has none: its result is never qualified). An authorisation's
// expiry sends `transaction.auth.expired` alone: it tells of cashback withdrawn, never of cashback earned.
export type EventStage = "auth" | "clearing" | "refund" | "expiry";

const STAGE_EVENT = { auth: "transaction.auth", clearing: "transaction.clearing", refund: "transaction.refund", expiry: "transaction.auth.expired" } as const;

export function stageEvents(stage: EventStage, qualified: boolean): string[] {
  const base = STAGE_EVENT[stage];
  return (stage === "auth" || stage === "clearing") && qualified ? [base, `${base}.qualified`] : [base];
}
