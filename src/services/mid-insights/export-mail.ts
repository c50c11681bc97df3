// The e-mail of MID insight exports, one message per recipient: queued with the export, sent by the
// workers (sendDueExportMail) with the file attached, tried again with backoff while sending fails, and
// final on a refusal that cannot change. Owns mid_insight_export_mails; whatever happens to a mail, its
// export and file stay as they are.
import { Readable } from "node:stream";
import type { Ctx } from "../../platform/context.ts";
import type { Db } from "../../platform/db.ts";
import type { Clock } from "../../platform/clock/index.ts";
import type { Mailer, MailFailure } from "../../platform/mail.ts";
import { envNowSql } from "../../platform/clock/environment.ts";
import { newId } from "../../platform/ids.ts";
import { Filters, pageByCreated, type Page, type PageQuery } from "../../platform/page.ts";
import { notFound } from "../../domain/errors.ts";
import { isFinalRefusal, mailRetryDelaySeconds } from "../../domain/mail-delivery.ts";
import { contentType, exportFileName, exportMail, type ExportFormat } from "../../domain/mid-insight-export.ts";
import { exportChunks } from "./export-chunks.ts";
import { programNameSql } from "../catalog/index.ts";

/**
 * `pending`: not tried yet. `retrying`: a try failed (`lastError` says why) and another is scheduled.
 * `sent`: the SMTP server took it, or it was kept in DATA_DIR/mail. `failed`: refused for good (a 5xx
 * answer to the recipient or the message), or every retry of about five days spent.
 */
export const EXPORT_MAIL_STATUSES = ["pending", "retrying", "sent", "failed"] as const;
export type ExportMailStatus = (typeof EXPORT_MAIL_STATUSES)[number];

/** Where an export's message to one recipient stands, as the export shows it. */
export interface ExportMailState {
  recipient: string;
  status: ExportMailStatus;
  attempts: number;
  lastError: string | null;
  sent: string | null;
}

/** One message, as the dashboard's mail page lists and opens it. */
export interface ExportMail extends ExportMailState {
  id: string;
  exportId: string;
  programId: string;
  format: ExportFormat;
  subject: string;
  /** `smtp`: handed to SMTP_URL's server; `local`: kept in DATA_DIR/mail. Null until sent. */
  transport: "smtp" | "local" | null;
  messageId: string | null;
  /** Seconds until the next try while retrying. */
  nextAttemptInSeconds: number | null;
  created: string;
}

interface MailRow {
  id: string;
  export_id: string;
  account_id: string;
  recipient: string;
  status: ExportMailStatus;
  attempts: number;
  last_error: string | null;
  transport: "smtp" | "local" | null;
  message_id: string | null;
  sent: Date | null;
  created: Date;
  next_in: number | null;
  program_id: string;
  program_name: string;
  format: ExportFormat;
  filters: Record<string, string>;
  sort: string;
  sort_order: "asc" | "desc";
  row_count: string | number;
  byte_size: string | number;
  export_created: Date;
}

const toState = (r: Pick<MailRow, "recipient" | "status" | "attempts" | "last_error" | "sent">): ExportMailState => ({
  recipient: r.recipient,
  status: r.status,
  attempts: r.attempts,
  lastError: r.last_error,
  sent: r.sent?.toISOString() ?? null,
});

const mailFacts = (r: MailRow) => ({
  exportId: r.export_id,
  programId: r.program_id,
  programName: r.program_name,
  format: r.format,
  count: Number(r.row_count),
  size: Number(r.byte_size),
  filters: r.filters,
  sort: r.sort,
  order: r.sort_order,
  created: r.export_created.toISOString(),
});

const toMail = (r: MailRow): ExportMail => ({
  id: r.id,
  exportId: r.export_id,
  programId: r.program_id,
  format: r.format,
  subject: exportMail(mailFacts(r)).subject,
  ...toState(r),
  transport: r.transport,
  messageId: r.message_id,
  nextAttemptInSeconds: r.status === "retrying" && r.next_in !== null ? Math.max(0, Math.ceil(r.next_in)) : null,
  created: r.created.toISOString(),
});

/** The messages with what their export says, as a table to filter and page. */
const MAIL_VIEW = `(select m.*, extract(epoch from m.next_attempt - now())::float8 as next_in, e.program_id, ${programNameSql("e.program_id")} as program_name,
    e.format, e.filters, e.sort, e.sort_order, e.row_count, e.byte_size, e.created as export_created
  from mid_insight_export_mails m join mid_insight_exports e on e.id = m.export_id) mails`;

/** Queues the export's messages, one per recipient, due at once; in the export's transaction. */
export async function queueExportMail(db: Db, x: { exportId: string; accountId: string; live: boolean; recipients: readonly string[]; created: Date }): Promise<void> {
  await db.query(
    `insert into mid_insight_export_mails (id, export_id, account_id, live, recipient, next_attempt, created)
     select id, $2, $3, $4, recipient, now(), $5 from unnest($1::uuid[], $6::text[]) as r(id, recipient)`,
    [x.recipients.map(() => newId()), x.exportId, x.accountId, x.live, x.created, x.recipients],
  );
}

/** The messages of the given exports, in recipient order, by export. */
export async function exportMailStates(db: Pick<Db, "query">, exportIds: readonly string[]): Promise<Map<string, ExportMailState[]>> {
  const rows = await db.query<MailRow>(
    "select * from mid_insight_export_mails where export_id = any($1::uuid[]) order by export_id, created, recipient",
    [exportIds],
  );
  const states = new Map<string, ExportMailState[]>();
  for (const r of rows) states.set(r.export_id, [...(states.get(r.export_id) ?? []), toState(r)]);
  return states;
}

/** The environment's export messages, newest first. */
export async function listExportMail(ctx: Ctx, page: PageQuery): Promise<Page<ExportMail>> {
  const f = new Filters().add("account_id = ?", ctx.accountId).add("live = ?", ctx.live);
  return pageByCreated(ctx.db, MAIL_VIEW, f, page, toMail);
}

/** One of the environment's messages, or 404: never another account's or environment's. */
export async function getExportMail(ctx: Ctx, id: string): Promise<ExportMail> {
  const [row] = await ctx.db.query<MailRow>(`select * from ${MAIL_VIEW} where id = $1 and account_id = $2 and live = $3`, [id, ctx.accountId, ctx.live]);
  if (!row) throw notFound("message", id);
  return toMail(row);
}

/** How long a claimed message is left to its worker before another may take it (a worker that died). */
const CLAIM_SECONDS = 120;

interface Outcome {
  id: string;
  ok: boolean;
  final: boolean;
  retry_in: number | null;
  error: string | null;
  message_id: string | null;
}

/**
 * Sends up to `limit` messages that are due, in every environment: claims them in one statement (so
 * workers in several processes share them), sends each with the export's file attached, and records every
 * outcome in one statement — sent, to be tried again after the schedule's wait with the reason, or failed.
 * Answers how many were tried.
 */
export async function sendDueExportMail(db: Db, clock: Pick<Clock, "now" | "offsetMs">, mailer: Mailer, limit = 20): Promise<number> {
  const claimed = await db.query<MailRow>(
    `with due as (
       select id from mid_insight_export_mails
        where status in ('pending', 'retrying') and next_attempt <= now() and (claimed_until is null or claimed_until < now())
        order by next_attempt limit $1 for update skip locked
     ),
     taken as (
       update mid_insight_export_mails m set claimed_until = now() + make_interval(secs => $2) from due where m.id = due.id returning m.id
     )
     select * from ${MAIL_VIEW} where id in (select id from taken) order by created, id`,
    [limit, CLAIM_SECONDS],
  );
  if (claimed.length === 0) return 0;
  const outcomes: Outcome[] = [];
  for (const r of claimed) {
    const { subject, text } = exportMail(mailFacts(r));
    try {
      const { messageId } = await mailer.send({
        id: r.id,
        to: r.recipient,
        subject,
        text,
        date: r.export_created,
        attachment: { filename: exportFileName(r.export_id, r.format), contentType: contentType(r.format), content: Readable.from(exportChunks(db, r.export_id)) },
      });
      outcomes.push({ id: r.id, ok: true, final: true, retry_in: null, error: null, message_id: messageId });
    } catch (err) {
      const failure = err as MailFailure;
      const retryIn = isFinalRefusal(failure) ? null : mailRetryDelaySeconds(r.attempts + 1);
      const reason = failure.reason ?? String(err);
      outcomes.push({ id: r.id, ok: false, final: retryIn === null, retry_in: retryIn, error: reason, message_id: null });
    }
  }
  await db.query(
    `update mid_insight_export_mails m set
       status = case when o.ok then 'sent' when o.final then 'failed' else 'retrying' end,
       attempts = m.attempts + 1,
       last_error = o.error,
       next_attempt = case when o.retry_in is null then null else now() + make_interval(secs => o.retry_in) end,
       claimed_until = null,
       transport = case when o.ok then $2 else m.transport end,
       message_id = coalesce(o.message_id, m.message_id),
       sent = case when o.ok then ${envNowSql("m.account_id", 3)} end
     from jsonb_to_recordset($1::jsonb) as o(id uuid, ok boolean, final boolean, retry_in int, error text, message_id text)
     where m.id = o.id`,
    [JSON.stringify(outcomes), mailer.kind, clock.now(), clock.offsetMs],
  );
  return outcomes.length;
}
