// Offer activation on a card: the spec's state machine (not activated -> activated -> deactivated),
// with the automatic deactivation once qualified transactions reach qualifiedTransactionsLimit; and
// rule 4: activation and non-activation offers of one brand never run together.
import type { Problem } from "./offer.ts";
import type { ActivationState } from "./qualification.ts";

export type { ActivationState };

export type ActivationEvent = "activate" | "deactivate" | "qualify";

/** Why an activation ended: the publisher deactivated it, or the card used up its qualified transactions. */
export type DeactivationReason = "publisher" | "limit";

export interface ActivationFacts {
  state: ActivationState;
  qualifiedTransactions: number;
}

export type ActivationStep =
  | { ok: true; changed: boolean; state: ActivationState; qualifiedTransactions: number; reason: DeactivationReason | null }
  | { ok: false; error: string };

/**
 * The next state for `event`. Activating an active card changes nothing; a deactivated activation is
 * final (the spec has no way back, and re-activating would reset a used-up limit). Only activated
 * cards count qualified transactions, and the one that reaches `limit` deactivates the offer.
 */
export function nextActivation(current: ActivationFacts, event: ActivationEvent, limit: number): ActivationStep {
  const { state, qualifiedTransactions } = current;
  switch (event) {
    case "activate":
      if (state === "deactivated") return { ok: false, error: "the offer was deactivated on this card; a deactivation is final" };
      return { ok: true, changed: state === "not activated", state: "activated", qualifiedTransactions, reason: null };
    case "deactivate":
      if (state === "not activated") return { ok: false, error: "the offer is not activated on this card" };
      if (state === "deactivated") return { ok: false, error: "the offer is already deactivated on this card" };
      return { ok: true, changed: true, state: "deactivated", qualifiedTransactions, reason: "publisher" };
    case "qualify": {
      if (state !== "activated") return { ok: false, error: `the offer is ${state} on this card; nothing to count` };
      const count = qualifiedTransactions + 1;
      return count >= limit
        ? { ok: true, changed: true, state: "deactivated", qualifiedTransactions: count, reason: "limit" }
        : { ok: true, changed: true, state: "activated", qualifiedTransactions: count, reason: null };
    }
  }
}

/** One offer of a brand as rule 4 sees it: its kind and when it runs. */
export interface BrandOfferRun {
  id: string;
  activationEnabled: boolean;
  startAt: Date;
  endAt: Date | null;
}

/**
 * Rule 4: an activation offer and a non-activation offer cannot run together for one brand. Returns
 * the first offer of the other kind whose run overlaps the candidate's and has not ended by `now`.
 */
export function activationConflict(candidate: BrandOfferRun, others: BrandOfferRun[], now: Date): BrandOfferRun | null {
  const ends = (r: BrandOfferRun) => (r.endAt === null ? Infinity : r.endAt.getTime());
  if (ends(candidate) < now.getTime()) return null;
  return (
    others.find(
      (o) =>
        o.id !== candidate.id &&
        o.activationEnabled !== candidate.activationEnabled &&
        ends(o) >= now.getTime() &&
        o.startAt.getTime() <= ends(candidate) &&
        candidate.startAt.getTime() <= ends(o),
    ) ?? null
  );
}

export const activationConflictProblem = (other: BrandOfferRun): Problem => ({
  field: "activation.enabled",
  rule:
    `an activation offer and a non-activation offer cannot run together for one brand; offer ${other.id} ` +
    `(activation ${other.activationEnabled ? "enabled" : "disabled"}) runs at the same time, so this one must also have ` +
    `activation.enabled ${other.activationEnabled}`,
  conflict: true,
});
