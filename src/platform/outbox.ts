// The outbox: webhook events written in the same database transaction as the change they report,
// so an event exists exactly when its change does. The webhook dispatcher delivers them. Transaction
// events go through stage claims (transaction_stages): each (transaction, event) is claimed at most once,
// whatever is redelivered, and the claim that wins writes its event in the same statement. Every
// transaction webhook event (the qualifier's, publisher-submitted transactions', the return period's) is
// written here. Events are written to `outbox_events`; a transaction event refers to its transaction and
// keeps only the stage's view of it, and readers of payloads read `outbox`, the view that assembles each
// event's payload (migration 036).
import type { Db } from "./db.ts";
import { newId } from "./ids.ts";
import { writeTogether, type WritePart } from "./write-together.ts";

/** Notified when outbox events are written (a trigger, migration 012), once the writing transaction commits. */
export const OUTBOX_WRITTEN = "cardlink_outbox";

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

/**
 * Events not yet fanned out to their hooks' deliveries (the dispatcher's backlog of the stream), counted up to
 * `atMost`: one statement over the undispatched rows' partial index, however large the backlog.
 */
export async function outboxBacklog(db: Db, atMost: number): Promise<number> {
  const [row] = await db.query<{ n: number }>("select count(*)::int as n from (select 1 from outbox_events where dispatched is null limit $1) b", [atMost]);
  return row?.n ?? 0;
}

/** Writes one event; pass the open transaction's handle so it commits with the change. Returns its id. */
export async function enqueueEvent(db: Db, event: OutboxEvent, now: Date): Promise<string> {
  const id = event.id ?? newId();
  await db.query(
    `insert into outbox_events (id, account_id, live, program_id, event, data, created)
     values ($1, $2, $3, $4, $5, $6::jsonb, $7)`,
    [id, event.accountId, event.live, event.programId, event.event, JSON.stringify(event.data), now],
  );
  return id;
}

/**
 * Writes many events in one statement (nothing when there are none); pass the open transaction's handle.
 * Each is created at its own `created` (an environment's time), else at `now`.
 */
export async function enqueueEvents(db: Db, events: (OutboxEvent & { created?: Date })[], now?: Date): Promise<void> {
  if (events.length === 0) return;
  await db.query(
    `insert into outbox_events (id, account_id, live, program_id, event, data, created)
     select id, account_id, live, program_id, event, data, coalesce(created, $2)
     from jsonb_to_recordset($1::jsonb) as e(id uuid, account_id uuid, live boolean, program_id uuid, event text, data jsonb, created timestamptz)`,
    [
      JSON.stringify(
        events.map((e) => ({ id: e.id ?? newId(), account_id: e.accountId, live: e.live, program_id: e.programId, event: e.event, data: e.data, created: e.created })),
      ),
      now ?? null,
    ],
  );
}

export interface StageClaim {
  transactionId: string;
  event: string;
  /** The event's id, chosen by the caller; the outbox row gets it when the claim wins. */
  eventId: string;
  accountId: string;
  live: boolean;
  programId: string;
  /**
   * What a later stage may change in the record, as of this stage (the transactions service's
   * `stageViewOf`): the event's payload is the transaction's row with it laid over.
   */
  stage: Record<string, unknown>;
  /** When it happened in its environment's time (a sandbox's clock), else the statement's `now`. */
  created?: Date;
}

export const stageKey = (transactionId: string, event: string) => `${transactionId}\u0000${event}`;

/**
 * A batch of claims as a part of a statement (write-together.ts): the claims that win write their events; it
 * answers the claims won (`claimsWon` reads them).
 */
export function stageClaimsPart(claims: StageClaim[], now: Date): WritePart | undefined {
  if (claims.length === 0) return undefined;
  return {
    ctes: [
      `stage_claims as (
         select * from jsonb_to_recordset($1::jsonb)
           as c(transaction_id uuid, event text, event_id uuid, account_id uuid, live boolean, program_id uuid, data jsonb, created timestamptz)
       )`,
      `stage_claims_won as (
         insert into transaction_stages (transaction_id, event, event_id, created)
         select transaction_id, event, event_id, $2 from stage_claims
         on conflict do nothing returning transaction_id, event, event_id
       )`,
      `stage_events_written as (
         insert into outbox_events (id, account_id, live, program_id, event, transaction_id, data, created)
         select c.event_id, c.account_id, c.live, c.program_id, c.event, c.transaction_id, c.data, coalesce(c.created, $2)
         from stage_claims c join stage_claims_won won on won.event_id = c.event_id
       )`,
    ],
    params: [
      JSON.stringify(
        claims.map((c) => ({
          transaction_id: c.transactionId,
          event: c.event,
          event_id: c.eventId,
          account_id: c.accountId,
          live: c.live,
          program_id: c.programId,
          data: c.stage,
          created: c.created,
        })),
      ),
      now,
    ],
    returns: "stage_claims_won",
  };
}

/** The claims won, by `stageKey`, from what `stageClaimsPart` answered. */
export const claimsWon = (rows: Record<string, unknown>[]): Set<string> => new Set(rows.map((w) => stageKey(String(w.transaction_id), String(w.event))));

/** Claims a batch in a statement of its own; returns the claims won, by `stageKey`. */
export async function claimStages(db: Db, claims: StageClaim[], now: Date): Promise<Set<string>> {
  const [won] = await writeTogether(db, [stageClaimsPart(claims, now)]);
  return claimsWon(won!);
}

/**
 * The statement that marks the oldest events not yet fanned out to hooks as dispatched at `$now` (at most
 * `$limit`, skipping those another dispatcher holds) and returns them as `e`: its caller writes their
 * deliveries in the same statement, so a round of fan-out is one statement, not a transaction of several.
 * Their `data` is as stored (a transaction event's is the stage's view only): the fan-out matches hooks by
 * the event, and reads the data of `hook.disabled` events alone, which keep their whole payload.
 */
export const dispatchEvents = ({ limit, now }: { limit: string; now: string }) =>
  `update outbox_events e set dispatched = ${now}
   where e.id = any(array(select id from outbox_events where dispatched is null order by queued, id limit ${limit} for update skip locked))
   returning e.id, e.account_id, e.live, e.event, e.program_id, e.data`;
