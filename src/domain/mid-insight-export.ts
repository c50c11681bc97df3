// The file formats of a MID insight export: CSV (RFC 4180, a header row) and JSON (an array), written a
// batch at a time so an export of any size is built in pieces. No I/O.

/** The columns, in the spec's field order, then the fields this service adds. */
export const EXPORT_COLUMNS = [
  "id",
  "brandId",
  "locationId",
  "midId",
  "programId",
  "scheme",
  "status",
  "created",
  "cardNetworkMerchantName",
  "mcAcquiringMid",
  "mcLocationId",
  "seNumber",
  "visaAcquiringMid",
  "visaBin",
  "vmid",
  "vsid",
  "midRequestId",
  "origin",
  "sourcedAt",
  "onboardedAt",
  "offboardedAt",
  "lastSeenTransactionDate",
  "lastSeenTransactionId",
  "firstTransactionClearingId",
  "firstTransactionAuthId",
  "offboardRequestedAt",
  "eventTs",
  "updated",
] as const;

export type ExportRecord = { [K in (typeof EXPORT_COLUMNS)[number]]: string | null };
export type ExportFormat = "csv" | "json";

/**
 * A cell a spreadsheet would run as a formula (starting with =, +, -, @, a tab or a carriage return) is
 * prefixed with an apostrophe, as OWASP advises: a merchant name is data, never a formula.
 */
export const neutraliseFormula = (v: string) => (/^[=+\-@\t\r]/.test(v) ? `'${v}` : v);
const csvField = (raw: string | null) => {
  if (raw === null) return "";
  const v = neutraliseFormula(raw);
  return /[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
};
const csvLine = (values: (string | null)[]) => values.map(csvField).join(",") + "\r\n";

export const contentType = (format: ExportFormat) =>
  format === "csv" ? "text/csv; charset=utf-8" : "application/json; charset=utf-8";

/** The piece of the file for one batch; `first` says whether it opens the file. */
export function exportPiece(format: ExportFormat, records: ExportRecord[], first: boolean): string {
  if (format === "csv") {
    const header = first ? csvLine([...EXPORT_COLUMNS]) : "";
    return header + records.map((r) => csvLine(EXPORT_COLUMNS.map((c) => r[c]))).join("");
  }
  const body = records.map((r) => JSON.stringify(r)).join(",\n");
  return (first ? "[\n" : ",\n") + body;
}

/** What closes the file after the last batch; `empty` when no batch was written. */
export function exportEnd(format: ExportFormat, empty: boolean): string {
  if (format === "csv") return empty ? csvLine([...EXPORT_COLUMNS]) : "";
  return empty ? "[]\n" : "\n]\n";
}

/** The file's name, as downloaded and as attached to the export's e-mail. */
export const exportFileName = (id: string, format: ExportFormat) => `mid-insights-${id}.${format}`;

export interface ExportMailFacts {
  exportId: string;
  programId: string;
  programName: string;
  format: ExportFormat;
  count: number;
  size: number;
  filters: Record<string, string>;
  sort: string;
  order: "asc" | "desc";
  /** When the export was requested, in its environment's time. */
  created: string;
}

/** The subject and text of an export's e-mail: what was exported, how, and where else to get the file. */
export function exportMail(f: ExportMailFacts): { subject: string; text: string } {
  const filters = Object.entries(f.filters).map(([k, v]) => `${k}=${v}`);
  return {
    subject: `MID insights export: ${f.count} insight${f.count === 1 ? "" : "s"} of ${f.programName} (${f.format.toUpperCase()})`,
    text: [
      `Your export of MID insights is attached (${exportFileName(f.exportId, f.format)}, ${f.size} bytes).`,
      "",
      `Program: ${f.programName} (${f.programId})`,
      `Insights: ${f.count}`,
      `Filters: ${filters.length ? filters.join(", ") : "none"}`,
      `Sorted by: ${f.sort}, ${f.order === "asc" ? "ascending" : "descending"}`,
      `Requested: ${f.created}`,
      "",
      `The file can also be downloaded with GET /v1/programs/${f.programId}/mid-insights/exports/${f.exportId}/file.`,
      "",
    ].join("\r\n"),
  };
}
