// The outbox: webhook events written in the same database transaction as the change they report,
// so an event exists exactly when its change does. The webhook dispatcher delivers them.
import type { Db } from "./db.ts";
import { newId } from "./ids.ts";

export interface OutboxEvent {
  accountId: string;
  live: boolean;
  /** The program whose hooks receive it; null for the publisher's hooks on every program. */
  programId: string | null;
  event: string;
  data: unknown;
  /** A chosen id, when the caller must know it before writing (the qualifier's stage claims). */
  id?: string;
}

/** Writes one event; pass the open transaction's handle so it commits with the change. Returns its id. */
export async function enqueueEvent(db: Db, event: OutboxEvent, now: Date): Promise<string> {
  const id = event.id ?? newId();
  await db.query(
    `insert into outbox (id, account_id, live, program_id, event, data, created)
     values ($1, $2, $3, $4, $5, $6::jsonb, $7)`,
    [id, event.accountId, event.live, event.programId, event.event, JSON.stringify(event.data), now],
  );
  return id;
}
