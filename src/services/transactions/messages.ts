// Network messages the qualifier has applied, by scheme and the network's message id: what makes a
// redelivered message a duplicate. Written in the same database transaction as the change it caused.
import type { Db } from "../../platform/db.ts";
import type { WritePart } from "../../platform/write-together.ts";

export interface MessageKey {
  scheme: string;
  messageId: string;
}

export interface MessageMark extends MessageKey {
  transactionId: string;
  stage: string;
}

export const messageKey = (m: MessageKey) => `${m.scheme}\u0000${m.messageId}`;

/** Which of the keys ($1: their schemes, $2: their message ids) are recorded, as rows of (scheme, message_id). */
export const RECORDED_MESSAGES = `select m.scheme, m.message_id from transaction_messages m
  join unnest($1::text[], $2::text[]) as b(scheme, message_id) on m.scheme = b.scheme and m.message_id = b.message_id`;

export const recordedParams = (keys: MessageKey[]) => [keys.map((k) => k.scheme), keys.map((k) => k.messageId)];

/** The recorded rows, by `messageKey`. */
export const recordedKeys = (rows: { scheme: string; message_id: string }[]) => new Set(rows.map((r) => messageKey({ scheme: r.scheme, messageId: r.message_id })));

/** Which of `keys` are already recorded, by `messageKey`. */
export async function recordedMessages(db: Db, keys: MessageKey[]): Promise<Set<string>> {
  return recordedKeys(await db.query<{ scheme: string; message_id: string }>(RECORDED_MESSAGES, recordedParams(keys)));
}

/** The messages applied, marked as a part of a statement (write-together.ts). */
export function messageMarksPart(marks: MessageMark[], now: Date): WritePart | undefined {
  if (marks.length === 0) return undefined;
  return {
    ctes: [
      `messages_marked as (
         insert into transaction_messages (scheme, message_id, transaction_id, stage, received)
         select scheme, message_id, transaction_id, stage, $5 from unnest($1::text[], $2::text[], $3::uuid[], $4::text[])
           as m(scheme, message_id, transaction_id, stage)
       )`,
    ],
    params: [marks.map((m) => m.scheme), marks.map((m) => m.messageId), marks.map((m) => m.transactionId), marks.map((m) => m.stage), now],
  };
}
