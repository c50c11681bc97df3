// Rule: a CSV export never hands a spreadsheet a formula: a cell that starts with =, +, -, @ or a tab is
// written with a leading apostrophe, so it opens as text.
import { describe, expect, it } from "vitest";
import { EXPORT_COLUMNS, exportPiece, type ExportRecord } from "../../src/domain/mid-insight-export.ts";

describe("CSV exports", () => {
  const record = (name: string): ExportRecord =>
    ({ ...Object.fromEntries(EXPORT_COLUMNS.map((c) => [c, null])), id: "a", cardNetworkMerchantName: name }) as ExportRecord;
  const cellOf = (name: string) => exportPiece("csv", [record(name)], false).split(",")[EXPORT_COLUMNS.indexOf("cardNetworkMerchantName")];

  it("escape cells a spreadsheet would run as a formula", () => {
    expect(cellOf("=HYPERLINK(\"http://evil.example\";\"x\")")).toBe("\"'=HYPERLINK(\"\"http://evil.example\"\";\"\"x\"\")\"");
    expect(cellOf("+1+cmd|' /C calc'!A0")).toBe("'+1+cmd|' /C calc'!A0");
    expect(cellOf("-2+3")).toBe("'-2+3");
    expect(cellOf("@SUM(A1)")).toBe("'@SUM(A1)");
    expect(cellOf("\t=1")).toBe("'\t=1");
    expect(cellOf("JOE'S COFFEE")).toBe("JOE'S COFFEE");
  });
});
