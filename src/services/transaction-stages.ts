// Transaction stages: each (transaction, event) is claimed at most once, whatever is redelivered, and the
// claim that wins writes the event to the outbox in the same statement. Every transaction webhook event
// (the qualifier's, the publisher-submitted transactions', the return period's) is written here.
import type { Db } from "./db.ts";

export interface StageClaim {
  transactionId: string;
  event: string;
  /** The event's id, chosen by the caller; the outbox row gets it when the claim wins. */
  eventId: string;
  accountId: string;
  live: boolean;
  programId: string;
  /** The record as of this stage: the event's data. */
  data: unknown;
}

export const stageKey = (transactionId: string, event: string) => `${transactionId}\u0000${event}`;

/** Claims a batch in one statement; returns the claims won, by `stageKey`. */
export async function claimStages(db: Db, claims: StageClaim[], now: Date): Promise<Set<string>> {
  if (claims.length === 0) return new Set();
  const won = await db.query<{ transaction_id: string; event: string }>(
    `with c as (
       select * from jsonb_to_recordset($1::jsonb)
         as c(transaction_id uuid, event text, event_id uuid, account_id uuid, live boolean, program_id uuid, data jsonb)
     ),
     won as (
       insert into transaction_stages (transaction_id, event, event_id, created)
       select transaction_id, event, event_id, $2 from c
       on conflict do nothing returning transaction_id, event, event_id
     ),
     written as (
       insert into outbox (id, account_id, live, program_id, event, data, created)
       select c.event_id, c.account_id, c.live, c.program_id, c.event, c.data, $2 from c join won on won.event_id = c.event_id
     )
     select transaction_id, event from won`,
    [
      JSON.stringify(
        claims.map((c) => ({
          transaction_id: c.transactionId,
          event: c.event,
          event_id: c.eventId,
          account_id: c.accountId,
          live: c.live,
          program_id: c.programId,
          data: c.data,
        })),
      ),
      now,
    ],
  );
  return new Set(won.map((w) => stageKey(w.transaction_id, w.event)));
}
