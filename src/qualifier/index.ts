// The qualifier role: consumes the three schemes' transaction topics as one consumer group and applies
// each message (src/qualifier/process.ts). A malformed message goes to the dead-letter topic with its
// reason and the consumer goes on; a database failure throws, so the offset is not committed and the
// bus delivers the message again.
import type { Logger } from "pino";
import type { Bus, Subscription } from "../bus/bus.ts";
import { deadLetter } from "../bus/dead-letter.ts";
import type { Scheme } from "../bus/messages.ts";
import { transactionTopic } from "../bus/topics.ts";
import type { Clock } from "../clock/index.ts";
import type { Db } from "../store/db.ts";
import { normalise } from "./normalise/index.ts";
import { createOfferIndex } from "./offer-index.ts";
import { processTransaction, type Outcome } from "./process.ts";

const QUALIFIER_GROUP = "qualifier";
const SCHEMES: Scheme[] = ["visa", "mastercard", "amex"];

export interface QualifierDeps {
  db: Db;
  bus: Bus;
  clock: Clock;
  log: Logger;
  /** Called after each message is applied (tests and metrics). */
  onOutcome?: (outcome: Outcome) => void;
}

export async function startQualifier({ db, bus, clock, log, onOutcome }: QualifierDeps): Promise<Subscription> {
  const offers = createOfferIndex();
  const schemeOf = new Map(SCHEMES.map((s) => [transactionTopic(s), s]));
  return bus.subscribe({
    groupId: QUALIFIER_GROUP,
    topics: [...schemeOf.keys()],
    handler: async (message) => {
      const scheme = schemeOf.get(message.topic)!;
      const parsed = normalise(scheme, message.value);
      if (!parsed.ok) {
        log.warn({ topic: message.topic, offset: message.offset, reason: parsed.reason }, "dead-lettering a malformed transaction");
        await deadLetter(bus, { message, payload: message.value, reason: parsed.reason, groupId: QUALIFIER_GROUP, at: clock.now() });
        return;
      }
      const outcome = await processTransaction({ db, clock, offers }, parsed.value);
      if (outcome.kind === "dropped") log.debug({ messageId: parsed.value.messageId, reason: outcome.reason }, "transaction not received");
      onOutcome?.(outcome);
    },
  });
}
