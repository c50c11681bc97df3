import { describe, expect, it } from "vitest";
import { nextActivation, type ActivationEvent, type ActivationFacts } from "../../src/domain/offer-activation.ts";

const facts = (state: ActivationFacts["state"], qualifiedTransactions = 0): ActivationFacts => ({ state, qualifiedTransactions });

describe("offer activation on a card", () => {
  it.each<[string, ActivationFacts, ActivationEvent, number, object]>([
    ["activate a card never activated", facts("not activated"), "activate", 1, { ok: true, changed: true, state: "activated", reason: null }],
    ["activate again: no change", facts("activated", 1), "activate", 3, { ok: true, changed: false, state: "activated", qualifiedTransactions: 1 }],
    ["activate after deactivation: refused", facts("deactivated", 1), "activate", 1, { ok: false }],
    ["deactivate before the limit", facts("activated", 0), "deactivate", 2, { ok: true, state: "deactivated", reason: "publisher" }],
    ["deactivate a card never activated: refused", facts("not activated"), "deactivate", 1, { ok: false }],
    ["deactivate twice: refused", facts("deactivated"), "deactivate", 1, { ok: false }],
    ["qualify below the limit counts", facts("activated", 0), "qualify", 3, { ok: true, state: "activated", qualifiedTransactions: 1, reason: null }],
    ["qualify reaching the limit deactivates", facts("activated", 2), "qualify", 3, { ok: true, state: "deactivated", qualifiedTransactions: 3, reason: "limit" }],
    ["default limit 1: the first qualified transaction deactivates", facts("activated", 0), "qualify", 1, { ok: true, state: "deactivated", qualifiedTransactions: 1, reason: "limit" }],
    ["qualify when not activated: not counted", facts("not activated"), "qualify", 1, { ok: false }],
    ["qualify after deactivation: not counted", facts("deactivated", 1), "qualify", 1, { ok: false }],
  ])("%s", (_name, current, event, limit, expected) => {
    expect(nextActivation(current, event, limit)).toMatchObject(expected);
  });

  it("explains refusals", () => {
    const step = nextActivation(facts("deactivated"), "activate", 1);
    expect(step.ok ? "" : step.error).toMatch(/final/);
  });
});
