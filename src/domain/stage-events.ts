// Which webhook events a transaction's stage sends: the stage's own event and, when the offer result
// qualifies, its `.qualified` event (a refund has none: its result is never qualified).
export type EventStage = "auth" | "clearing" | "refund";

const STAGE_EVENT = { auth: "transaction.auth", clearing: "transaction.clearing", refund: "transaction.refund" } as const;

export function stageEvents(stage: EventStage, qualified: boolean): string[] {
  const base = STAGE_EVENT[stage];
  return stage !== "refund" && qualified ? [base, `${base}.qualified`] : [base];
}
