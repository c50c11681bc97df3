// MID insight exports: POST .../mid-insights/exports, GET .../exports/{exportId} and its file.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHarness, expectError, expectStatus, type Harness } from "../../support/harness.ts";
import { allPages, insightsClient, seededProgram, type SeededProgram } from "../../support/mid-insights.ts";
import { EXPORT_COLUMNS } from "../../../src/domain/mid-insight-export.ts";
import type { MidInsight } from "../../../src/services/mid-insights/mid-insights.ts";
import type { MidInsightExport } from "../../../src/services/mid-insights/exports.ts";

let h: Harness;
let p: SeededProgram;
beforeAll(async () => {
  h = await createHarness();
  p = await seededProgram(h, 90);
});
afterAll(() => h.close());

/** Parses the CSV the export writes (RFC 4180: quoted fields may hold commas, quotes and line breaks). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  const endField = () => {
    row.push(field);
    field = "";
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") endField();
    else if (c === "\r" && text[i + 1] === "\n") {
      endField();
      rows.push(row);
      row = [];
      i++;
    } else field += c;
  }
  return rows;
}

describe("exporting MID insights", () => {
  it("exports the filtered list as JSON, in the list's sort, with the recipients recorded", async () => {
    const query = "status=onboarded&sort=lastSeenTransactionDate&order=asc";
    const listed = (await allPages(p.client, p.path, `${query}&limit=100`)).items;
    const recipients = ["finance@example.com", "ops@example.com"];
    const created = await expectStatus<MidInsightExport>(
      await p.client.post(`${p.path}/exports`, {
        format: "json",
        recipients,
        filters: { status: "onboarded" },
        sort: "lastSeenTransactionDate",
        order: "asc",
      }),
      201,
    );
    expect(created).toMatchObject({
      programId: p.programId,
      format: "json",
      recipients,
      filters: { status: "onboarded" },
      sort: "lastSeenTransactionDate",
      order: "asc",
      count: listed.length,
      created: h.services.clock.now().toISOString(),
      fileUrl: `${p.path}/exports/${created.id}/file`,
    });
    expect(await expectStatus<MidInsightExport>(await p.client.get(`${p.path}/exports/${created.id}`), 200)).toEqual(created);

    const file = await p.client.get(created.fileUrl);
    expect(file.status).toBe(200);
    expect(file.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(file.headers.get("content-disposition")).toBe(`attachment; filename="mid-insights-${created.id}.json"`);
    const text = await file.text();
    expect(new TextEncoder().encode(text).length).toBe(created.size);
    expect(JSON.parse(text) as MidInsight[]).toEqual(listed);
  });

  it("exports CSV with a header row and one row per insight, every field in the spec's order", async () => {
    const listed = (await allPages(p.client, p.path, "limit=100")).items;
    const created = await expectStatus<MidInsightExport>(await p.client.post(`${p.path}/exports`, { format: "csv", recipients: ["a@example.com"] }), 201);
    expect(created).toMatchObject({ filters: {}, sort: "created", order: "desc", count: 90 });
    const file = await p.client.get(created.fileUrl);
    expect(file.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    const rows = parseCsv(await file.text());
    expect(rows[0]).toEqual([...EXPORT_COLUMNS]);
    expect(rows[0]!.slice(0, 25)).toEqual([
      "id", "brandId", "locationId", "midId", "programId", "scheme", "status", "created", "cardNetworkMerchantName",
      "mcAcquiringMid", "mcLocationId", "seNumber", "visaAcquiringMid", "visaBin", "vmid", "vsid", "midRequestId",
      "origin", "sourcedAt", "onboardedAt", "offboardedAt", "lastSeenTransactionDate", "lastSeenTransactionId",
      "firstTransactionClearingId", "firstTransactionAuthId",
    ]);
    expect(rows.slice(1)).toEqual(listed.map((i) => EXPORT_COLUMNS.map((c) => i[c] ?? "")));
  });

  it("applies every list filter, with the list's rules", async () => {
    const listed = (await allPages(p.client, p.path, "limit=100")).items;
    const visa = listed.find((i) => i.scheme === "visa" && i.lastSeenTransactionDate)!;
    const filters = { vmid: visa.vmid!, lastSeenTransactionDateTo: visa.lastSeenTransactionDate! };
    const expected = listed.filter((i) => i.vmid === visa.vmid && i.lastSeenTransactionDate && i.lastSeenTransactionDate <= visa.lastSeenTransactionDate!);
    const created = await expectStatus<MidInsightExport>(await p.client.post(`${p.path}/exports`, { format: "json", recipients: ["a@example.com"], filters }), 201);
    expect(created.filters).toEqual(filters);
    const exported = (await (await p.client.get(created.fileUrl)).json()) as MidInsight[];
    expect(exported.map((i) => i.id).sort()).toEqual(expected.map((i) => i.id).sort());

    const empty = await expectStatus<MidInsightExport>(
      await p.client.post(`${p.path}/exports`, { format: "json", recipients: ["a@example.com"], filters: { seNumber: "0000000000" } }),
      201,
    );
    expect(empty.count).toBe(0);
    expect(await (await p.client.get(empty.fileUrl)).json()).toEqual([]);
  });

  it("sends to the account's address when no recipients are given, and needs one when the account has none", async () => {
    const account = await expectStatus<{ id: string; keys: { live: string } }>(
      await h.admin("POST", "/admin/accounts", { name: "Mailed", tier: "premium", email: "reports@publisher.example" }),
      201,
    );
    const client = insightsClient(h, account.keys.live);
    const program = await expectStatus<{ id: string }>(
      await h.request("POST", "/v1/programs", { headers: { "Cardlink-Key": account.keys.live }, body: { name: "M" } }),
      201,
    );
    const created = await expectStatus<MidInsightExport>(await client.post(`/v1/programs/${program.id}/mid-insights/exports`, { format: "csv" }), 201);
    expect(created.recipients).toEqual(["reports@publisher.example"]);
    expect(created.count).toBe(0);
    expect(await (await client.get(created.fileUrl)).text()).toBe(EXPORT_COLUMNS.join(",") + "\r\n");

    expect(await expectError(await p.client.post(`${p.path}/exports`, { format: "csv" }), 400, "invalid_request")).toBe(
      "recipients: required: the account has no e-mail address to send the export to",
    );
  });

  it("answers 400 naming the field and its rule: more than five recipients, bad addresses, bad filters", async () => {
    const six = ["a", "b", "c", "d", "e", "f"].map((x) => `${x}@example.com`);
    const cases: [unknown, RegExp][] = [
      [{ format: "csv", recipients: six }, /^recipients: must list at most 5 e-mail addresses$/],
      [{ format: "csv", recipients: [] }, /^recipients: must list 1 to 5 e-mail addresses$/],
      [{ format: "csv", recipients: ["a@example.com", "not-an-address"] }, /^recipients\.1: must be an e-mail address$/],
      [{ format: "csv", recipients: ["a@example.com", "A@example.com"] }, /^recipients: must not repeat an address$/],
      [{ recipients: ["a@example.com"] }, /^format: required$/],
      [{ format: "xml", recipients: ["a@example.com"] }, /^format: must be csv or json$/],
      [{ format: "csv", recipients: ["a@example.com"], filters: { vmid: "12345" } }, /^filters\.vmid: must be 6 to 8 digits$/],
      [{ format: "csv", recipients: ["a@example.com"], filters: { status: "sourced" } }, /^filters\.status: must be onboarded or offboarded$/],
      [{ format: "csv", recipients: ["a@example.com"], filters: { limit: "5" } }, /^filters\.limit: unknown field$/],
      [
        { format: "csv", recipients: ["a@example.com"], filters: { lastSeenTransactionDateFrom: "2025-12-02", lastSeenTransactionDateTo: "2025-12-01" } },
        /^filters\.lastSeenTransactionDateFrom: must not be after lastSeenTransactionDateTo$/,
      ],
      [{ format: "csv", recipients: ["a@example.com"], sort: "name" }, /^sort: must be one of created, /],
      [{ format: "csv", recipients: ["a@example.com"], mailTo: "x" }, /^mailTo: unknown field$/],
      // RFC 5321's lengths, as the document's `format: email` and pattern state them.
      [{ format: "csv", recipients: [`${"a".repeat(65)}@example.com`] }, /^recipients\.0: must be an e-mail address \(at most 64 characters before the @/],
      [{ format: "csv", recipients: [`a@${"b".repeat(64)}.com`] }, /^recipients\.0: must be an e-mail address \(at most 64 characters before the @/],
    ];
    for (const [body, message] of cases) {
      expect(await expectError(await p.client.post(`${p.path}/exports`, body), 400, "invalid_request"), JSON.stringify(body)).toMatch(message);
    }
    // Five is the limit, not more.
    expect((await expectStatus<MidInsightExport>(await p.client.post(`${p.path}/exports`, { format: "csv", recipients: six.slice(0, 5) }), 201)).recipients).toEqual(six.slice(0, 5));
  });

  it("answers 404 for an export that does not exist or is another program's", async () => {
    const missing = "0e5d1c2b-3a4f-4b6c-8d7e-9f0a1b2c3d4e";
    expect(await expectError(await p.client.get(`${p.path}/exports/${missing}`), 404, "resource_not_found")).toBe(`No MID insight export with id ${missing}.`);
    await expectError(await p.client.get(`${p.path}/exports/${missing}/file`), 404, "resource_not_found");
    expect(await expectError(await p.client.get(`${p.path}/exports/nope`), 400, "invalid_request")).toBe("exportId: must be a UUID");
  });
});
