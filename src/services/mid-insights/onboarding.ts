// A network's answer to an onboarding request, in one transaction: the location's state at the network
// (catalog's location sync) and, for each MID a live network onboarded, its MID record and insight.
import type { OnboardingReply } from "../../platform/bus/messages.ts";
import type { Db } from "../../platform/db.ts";
import { applyOnboardingReply, type ReplyOutcome } from "../catalog/index.ts";
import { recordOnboardingReply } from "./writers.ts";

export async function answerOnboarding(db: Db, reply: OnboardingReply, now: Date): Promise<ReplyOutcome> {
  return db.tx(async (tx) => {
    const { outcome, onboarded } = await applyOnboardingReply(tx, reply, now);
    for (const mid of onboarded) await recordOnboardingReply(tx, mid, now);
    return outcome;
  });
}
