// Dead letters: a message that cannot be processed goes, with the reason, to `<topic>.dead-letter`,
// and its consumer goes on. Handlers call deadLetter(); the Kafka bus uses it for undecodable bytes.
import type { Bus, BusMessage } from "./bus.ts";
import type { DeadLetter } from "./messages.ts";

export const deadLetterTopic = (topic: string) => `${topic}.dead-letter`;

export interface DeadLetterInput {
  message: Pick<BusMessage, "topic" | "partition" | "offset" | "key">;
  /** What was received: the decoded value, or the raw bytes when they could not be decoded. */
  payload: unknown;
  reason: string;
  groupId: string;
  at: Date;
}

function deadLetterOf({ message, payload, reason, groupId, at }: DeadLetterInput): DeadLetter {
  return {
    topic: message.topic,
    partition: message.partition,
    offset: message.offset,
    key: message.key,
    reason,
    payload: Buffer.isBuffer(payload) ? `base64:${payload.toString("base64")}` : JSON.stringify(payload ?? null),
    failedBy: groupId,
    failedAt: at.toISOString(),
  };
}

/** Publishes the dead letter on the topic's dead-letter topic, keyed like the original message. */
export async function deadLetter(bus: Bus, input: DeadLetterInput): Promise<void> {
  await bus.publish(deadLetterTopic(input.message.topic), input.message.key, deadLetterOf(input));
}
