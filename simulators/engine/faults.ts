// Faults an operator injects into one simulated network, and the draws that apply them. Every message
// the simulator publishes passes through `deliver`: latency, then drop or send, then maybe a duplicate.
// zod through @hono/zod-openapi, so the /admin routes can name these schemas in the OpenAPI document.
import { z } from "@hono/zod-openapi";
import { LOOKUP_ERROR_CODES } from "../../src/platform/bus/messages.ts";
import { hashSeed, seededRandom } from "./random.ts";
import type { Scheme } from "./types.ts";

const rate = (what: string) =>
  z.number().min(0, "must be between 0 and 1").max(1, "must be between 0 and 1").describe(`Share (0 to 1) of ${what}.`);

export const faultsShape = {
  latencyMs: z
    .number()
    .int("must be a whole number")
    .min(0, "must be between 0 and 60000")
    .max(60_000, "must be between 0 and 60000")
    .describe("Milliseconds (real time) added before every message the network publishes."),
  dropRate: rate("messages lost: never published, still in the network's history for look-ups"),
  duplicateRate: rate("messages published twice, with the same message id"),
  clearingBeforeAuthRate: rate("purchases whose clearing is published at once, before their auth"),
  onboardingFailureRate: rate("onboarding requests answered Not found"),
  lookupErrorRate: rate("missing-transaction look-ups answered with `lookupErrorCode`"),
  lookupErrorCode: z
    .enum(LOOKUP_ERROR_CODES, { message: `must be one of ${LOOKUP_ERROR_CODES.join(", ")}` })
    .describe("The error a failing look-up answers with."),
};

export const faultsSchema = z.strictObject(faultsShape);
export type Faults = z.infer<typeof faultsSchema>;

export const NO_FAULTS: Faults = {
  latencyMs: 0,
  dropRate: 0,
  duplicateRate: 0,
  clearingBeforeAuthRate: 0,
  onboardingFailureRate: 0,
  lookupErrorRate: 0,
  lookupErrorCode: "network-request-failed",
};

export interface Delivery {
  delivery: "sent" | "dropped";
  copies: number;
}

/**
 * The draws behind the faults. Seeded from SIMULATOR_SEED and the scheme, so a run with the same seed,
 * faults and inputs drops and duplicates the same messages.
 */
export class FaultDice {
  private random: () => number;
  constructor(seed: number, scheme: Scheme) {
    this.random = seededRandom(hashSeed(seed, scheme, "faults"));
  }

  /** Whether an event with probability `p` happens; draws nothing when p is 0, so the stream stays aligned. */
  roll(p: number): boolean {
    if (p <= 0) return false;
    if (p >= 1) return true;
    return this.random() < p;
  }

  /**
   * Applies latency, drop and duplicate to one message; `send` publishes it once. The draws happen at
   * the call, before any wait, and a duplicate is sent together with its original: messages a batch
   * hands over one after another (not awaiting each) keep their draws and their order on the bus.
   */
  async deliver(faults: Faults, send: () => Promise<unknown>): Promise<Delivery> {
    const dropped = this.roll(faults.dropRate);
    const copies = dropped ? 0 : this.roll(faults.duplicateRate) ? 2 : 1;
    if (faults.latencyMs > 0) await new Promise((r) => setTimeout(r, faults.latencyMs));
    if (dropped) return { delivery: "dropped", copies: 0 };
    const sends = Array.from({ length: copies }, () => send());
    await Promise.all(sends);
    return { delivery: "sent", copies };
  }
}
