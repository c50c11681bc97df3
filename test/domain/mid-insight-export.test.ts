import { describe, expect, it } from "vitest";
import { EXPORT_COLUMNS, exportEnd, exportPiece, type ExportRecord } from "../../src/domain/mid-insight-export.ts";

const record = (id: string, name: string | null): ExportRecord =>
  ({ ...Object.fromEntries(EXPORT_COLUMNS.map((c) => [c, null])), id, cardNetworkMerchantName: name }) as ExportRecord;

describe("MID insight export files", () => {
  it("writes CSV with one header row and RFC 4180 quoting, across batches", () => {
    const file =
      exportPiece("csv", [record("a", 'JOE\'S "BEST", LEEDS')], true) +
      exportPiece("csv", [record("b", "LINE\nBREAK"), record("c", null)], false) +
      exportEnd("csv", false);
    const lines = file.split("\r\n");
    expect(lines[0]).toBe(EXPORT_COLUMNS.join(","));
    expect(file.match(/^id,/gm)).toHaveLength(1);
    expect(lines[1]).toContain('"JOE\'S ""BEST"", LEEDS"');
    expect(file).toContain('"LINE\nBREAK"');
    // An absent value is an empty field: every row has all columns.
    expect(lines.at(-2)!.split(",")).toHaveLength(EXPORT_COLUMNS.length);
    expect(file.endsWith("\r\n")).toBe(true);
  });

  it("writes one JSON array across batches, and [] for nothing", () => {
    const file = exportPiece("json", [record("a", "X")], true) + exportPiece("json", [record("b", null), record("c", "Z")], false) + exportEnd("json", false);
    expect((JSON.parse(file) as ExportRecord[]).map((r) => r.id)).toEqual(["a", "b", "c"]);
    expect(JSON.parse(exportEnd("json", true))).toEqual([]);
    expect(exportEnd("csv", true)).toBe(EXPORT_COLUMNS.join(",") + "\r\n");
  });
});
