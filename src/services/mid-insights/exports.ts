// MID insight exports: the file is written when the export is requested, in chunks, and kept with
// the request; a message to each recipient, with the file attached, is queued with it (export-mail.ts).
import type { Ctx } from "../../platform/context.ts";
import { invalid, notFound } from "../../domain/errors.ts";
import { newId } from "../../platform/ids.ts";
import { getProgram } from "../catalog/index.ts";
import { allMidInsights, type MidInsightFilters } from "./list.ts";
import { exportEnd, exportPiece, type ExportFormat } from "../../domain/mid-insight-export.ts";
import type { SortField, SortOrder } from "../../domain/mid-insights.ts";
import { isEmailAddress } from "../../domain/email-address.ts";
import type { Db } from "../../platform/db.ts";
import { exportMailStates, queueExportMail, type ExportMailState } from "./export-mail.ts";
import { exportChunks } from "./export-chunks.ts";

/** Insights per chunk of the stored file (a chunk is a few hundred kilobytes). */
const CHUNK_ROWS = 1000;

export interface MidInsightExport {
  id: string;
  programId: string;
  format: ExportFormat;
  recipients: string[];
  filters: Record<string, string>;
  sort: SortField;
  order: SortOrder;
  count: number;
  size: number;
  created: string;
  fileUrl: string;
  /** Its message to each recipient: sent, or why not yet. */
  mail: ExportMailState[];
}

interface ExportRow {
  id: string;
  program_id: string;
  format: ExportFormat;
  recipients: string[];
  filters: Record<string, string>;
  sort: SortField;
  sort_order: SortOrder;
  row_count: number;
  byte_size: number;
  created: Date;
}

const toExport = (r: ExportRow, mail: ExportMailState[]): MidInsightExport => ({
  id: r.id,
  programId: r.program_id,
  format: r.format,
  recipients: r.recipients,
  filters: r.filters,
  sort: r.sort,
  order: r.sort_order,
  count: r.row_count,
  size: r.byte_size,
  created: r.created.toISOString(),
  fileUrl: `/v1/programs/${r.program_id}/mid-insights/exports/${r.id}/file`,
  mail,
});

/** The export with where its messages stand. */
const withMail = async (db: Pick<Db, "query">, r: ExportRow) => toExport(r, (await exportMailStates(db, [r.id])).get(r.id) ?? []);

export interface ExportRequest {
  format: ExportFormat;
  recipients?: string[];
  /** The caller's account's e-mail address, where the export goes when no recipients are given. */
  accountEmail: string | null;
  /** The filters as given, recorded with the export. */
  given: Record<string, string>;
  filters: MidInsightFilters;
  sort: SortField;
  order: SortOrder;
}

export async function createMidInsightExport(ctx: Ctx, programId: string, req: ExportRequest): Promise<MidInsightExport> {
  await getProgram(ctx, programId);
  let recipients = req.recipients;
  if (!recipients) {
    if (!req.accountEmail) throw invalid("recipients", "required: the account has no e-mail address to send the export to");
    recipients = [req.accountEmail];
  }
  // Recipients are a tenant's input: nothing is addressed to what is not an e-mail address (the API's 400 comes first).
  const bad = recipients.find((r) => !isEmailAddress(r));
  if (bad !== undefined) throw invalid("recipients", `must be e-mail addresses; ${JSON.stringify(bad)} is not`);
  const id = newId();
  const encoder = new TextEncoder();
  const to = recipients;
  return ctx.db.tx(async (db) => {
    await db.query(
      `insert into mid_insight_exports (id, account_id, live, program_id, format, recipients, filters, sort, sort_order,
         row_count, byte_size, created)
       values ($1, $2, $3, $4, $5, $6::jsonb, $7::jsonb, $8, $9, 0, 0, $10)`,
      [id, ctx.accountId, ctx.live, programId, req.format, JSON.stringify(to), JSON.stringify(req.given), req.sort, req.order, ctx.clock.now()],
    );
    await queueExportMail(db, { exportId: id, accountId: ctx.accountId, live: ctx.live, recipients: to, created: ctx.clock.now() });
    let seq = 0;
    let count = 0;
    let size = 0;
    const write = async (content: string) => {
      await db.query("insert into mid_insight_export_chunks (export_id, seq, content) values ($1, $2, $3)", [id, seq++, content]);
      size += encoder.encode(content).length;
    };
    const batches = allMidInsights({ ...ctx, db }, programId, req.filters, { sort: req.sort, order: req.order, batch: CHUNK_ROWS });
    for await (const items of batches) {
      await write(exportPiece(req.format, items, count === 0));
      count += items.length;
    }
    await write(exportEnd(req.format, count === 0));
    const [row] = await db.query<ExportRow>(
      "update mid_insight_exports set row_count = $2, byte_size = $3 where id = $1 returning *",
      [id, count, size],
    );
    return withMail(db, row!);
  });
}

async function findExport(ctx: Ctx, programId: string, exportId: string): Promise<ExportRow> {
  const [row] = await ctx.db.query<ExportRow>(
    "select * from mid_insight_exports where id = $1 and program_id = $2 and account_id = $3 and live = $4",
    [exportId, programId, ctx.accountId, ctx.live],
  );
  if (!row) throw notFound("MID insight export", exportId);
  return row;
}

export async function getMidInsightExport(ctx: Ctx, programId: string, exportId: string): Promise<MidInsightExport> {
  await getProgram(ctx, programId);
  return withMail(ctx.db, await findExport(ctx, programId, exportId));
}

/** The export and its file as a stream of chunks, read one at a time. */
export async function openMidInsightExportFile(
  ctx: Ctx,
  programId: string,
  exportId: string,
): Promise<{ export: MidInsightExport; file: ReadableStream<Uint8Array> }> {
  await getProgram(ctx, programId);
  const row = await findExport(ctx, programId, exportId);
  const encoder = new TextEncoder();
  const chunks = exportChunks(ctx.db, row.id);
  const file = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await chunks.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(next.value));
    },
  });
  return { export: await withMail(ctx.db, row), file };
}
