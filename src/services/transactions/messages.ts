// Network messages the qualifier has applied, by scheme and the network's message id: what makes a
// redelivered message a duplicate. Written in the same database transaction as the change it caused.
import type { Db } from "../../platform/db.ts";

export interface MessageKey {
  scheme: string;
  messageId: string;
}

export interface MessageMark extends MessageKey {
  transactionId: string;
  stage: string;
}

export const messageKey = (m: MessageKey) => `${m.scheme}\u0000${m.messageId}`;

/** Which of `keys` are already recorded, by `messageKey`. */
export async function recordedMessages(db: Db, keys: MessageKey[]): Promise<Set<string>> {
  const rows = await db.query<{ scheme: string; message_id: string }>(
    `select m.scheme, m.message_id from transaction_messages m
     join unnest($1::text[], $2::text[]) as b(scheme, message_id) on m.scheme = b.scheme and m.message_id = b.message_id`,
    [keys.map((k) => k.scheme), keys.map((k) => k.messageId)],
  );
  return new Set(rows.map((r) => messageKey({ scheme: r.scheme, messageId: r.message_id })));
}

export async function markMessages(db: Db, marks: MessageMark[], now: Date): Promise<void> {
  if (marks.length === 0) return;
  await db.query(
    `insert into transaction_messages (scheme, message_id, transaction_id, stage, received)
     select scheme, message_id, transaction_id, stage, $5 from unnest($1::text[], $2::text[], $3::uuid[], $4::text[])
       as m(scheme, message_id, transaction_id, stage)`,
    [marks.map((m) => m.scheme), marks.map((m) => m.messageId), marks.map((m) => m.transactionId), marks.map((m) => m.stage), now],
  );
}
