// The qualifier role: consumes the three schemes' transaction topics as one consumer group, a batch at a
// time (the batches its partitions bring together, each partition's messages in order), and applies each
// batch in one database transaction
// (src/qualifier/batch.ts). A malformed message goes to the dead-letter topic with its reason and the
// rest of its batch goes on; a database failure throws, so the batch's offsets are not committed and
// the bus delivers the batch again. Each batch's time in each step goes to the step histogram
// (cardlink_qualifier_step_seconds) and to a debug log line.
//
// A publisher's submission for an oaas offer goes through the same steps (processSubmission), called by
// the API in its request.
import type { Logger } from "pino";
import type { Bus, Subscription } from "../platform/bus/bus.ts";
import { deadLetter } from "../platform/bus/dead-letter.ts";
import { SCHEMES } from "../domain/scheme.ts";
import { transactionTopic } from "../platform/bus/topics.ts";
import type { Clock } from "../platform/clock/index.ts";
import type { Db } from "../platform/db.ts";
import type { Metrics } from "../platform/metrics/index.ts";
import { createOfferIndex } from "./offer-index.ts";
import { createLocationIndex } from "./location-index.ts";
import { processBatch, STEPS } from "./batch.ts";
import type { Outcome } from "./item.ts";

export { processSubmission, STEPS, type StepName, type StepTimings } from "./batch.ts";
export type { Outcome } from "./item.ts";

const QUALIFIER_GROUP = "qualifier";

/** Messages the qualifiers have still to handle, over every scheme's transaction topic (a few offset reads). */
export const qualifierLag = (bus: Bus): Promise<number> => bus.lag(QUALIFIER_GROUP, SCHEMES.map(transactionTopic));

export interface QualifierDeps {
  db: Db;
  bus: Bus;
  clock: Clock;
  log: Logger;
  /** Where each batch's time in each step is observed (the process's registry). */
  metrics?: Pick<Metrics, "qualifierStep">;
  /** Called after each message is applied, once its batch committed (tests and metrics). */
  onOutcome?: (outcome: Outcome) => void;
  /** The most messages per batch (the bus's default otherwise). */
  maxBatchSize?: number;
}

export async function startQualifier({ db, bus, clock, log, metrics, onOutcome, maxBatchSize }: QualifierDeps): Promise<Subscription> {
  const offers = createOfferIndex();
  const locations = createLocationIndex();
  const schemeOf = new Map(SCHEMES.map((s) => [transactionTopic(s), s]));
  return bus.subscribe({
    groupId: QUALIFIER_GROUP,
    topics: [...schemeOf.keys()],
    ...(maxBatchSize ? { maxBatchSize } : {}),
    batchHandler: async (batch) => {
      const { results, timings } = await processBatch(
        { db, clock, offers, locations },
        batch.map((m) => ({ scheme: schemeOf.get(m.topic)!, value: m.value })),
      );
      const ran = STEPS.flatMap((step) => (timings[step] === undefined ? [] : [[step, timings[step]] as const]));
      if (metrics) for (const [step, ms] of ran) metrics.qualifierStep(step, ms / 1000);
      if (log.isLevelEnabled("debug")) {
        log.debug({ messages: batch.length, stepsMs: Object.fromEntries(ran.map(([step, ms]) => [step, Math.round(ms * 100) / 100])) }, "qualifier batch");
      }
      await Promise.all(
        results.map((result, i) => {
          if (result.kind !== "dead-letter") return;
          const message = batch[i]!;
          log.warn({ topic: message.topic, offset: message.offset, reason: result.reason }, "dead-lettering a malformed transaction");
          return deadLetter(bus, { message, payload: message.value, reason: result.reason, groupId: QUALIFIER_GROUP, at: clock.now() });
        }),
      );
      for (const result of results) {
        if (result.kind === "dead-letter") continue;
        if (result.kind === "dropped") log.debug({ reason: result.reason }, "transaction not received");
        onOutcome?.(result);
      }
    },
  });
}
