// GET /v1/programs/{programId}/mid-insights, refusals: 400 naming the parameter and its rule for each
// invalid value — on PGlite, and on PostgreSQL when DATABASE_URL is set.
import { describe, expect, it } from "vitest";
import { ENGINES, expectError } from "../../support/harness.ts";
import { useSeededListing, type SeededProgram } from "../../support/mid-insights.ts";
import { encodeCursor } from "../../../src/domain/mid-insights.ts";
import type { MidInsight } from "../../../src/services/mid-insights/mid-insights.ts";

describe.each(ENGINES)("listing MID insights on %s", (engine) => {
  let p: SeededProgram;
  let all: MidInsight[];

  useSeededListing(engine, (w) => ({ p, all } = w));

  it("answers 400 naming the parameter and its rule for each invalid value", async () => {
    const created = encodeCursor({ sort: "created", order: "desc", value: all[0]!.created, id: all[0]!.id });
    const cases: [string, RegExp][] = [
      ["brandId=abc", /^brandId: must be a UUID$/],
      ["id=123", /^id: must be a UUID$/],
      ["locationId=x", /^locationId: must be a UUID$/],
      ["midId=3f2b9c1e", /^midId: must be a UUID$/],
      ["limit=0", /^limit: must be between 1 and 100$/],
      ["limit=101", /^limit: must be between 1 and 100$/],
      ["limit=ten", /^limit: must be digits/],
      ["limit=-5", /^limit: must be digits/],
      ["limit=2.5", /^limit: must be digits/],
      ["lastSeenTransactionDateFrom=yesterday", /^lastSeenTransactionDateFrom: must be an ISO 8601 date \(YYYY-MM-DD\) or date-time/],
      ["lastSeenTransactionDateTo=2025-02-30", /^lastSeenTransactionDateTo: must be an ISO 8601 date/],
      ["lastSeenTransactionDateFrom=2025-12-02&lastSeenTransactionDateTo=2025-12-01", /^lastSeenTransactionDateFrom: must not be after lastSeenTransactionDateTo$/],
      ["origin=manual", /^origin: must be one of address-match, brand-provided-mid, .*third-party-provided-mid$/],
      ["status=sourced", /^status: must be onboarded or offboarded$/],
      ["seNumber=123456789", /^seNumber: must be exactly 10 digits$/],
      ["seNumber=12345678901", /^seNumber: must be exactly 10 digits$/],
      ["seNumber=12345abcde", /^seNumber: must be exactly 10 digits$/],
      ["vmid=12345", /^vmid: must be 6 to 8 digits$/],
      ["vmid=123456789", /^vmid: must be 6 to 8 digits$/],
      ["vmid=1234x6", /^vmid: must be 6 to 8 digits$/],
      ["vsid=", /^vsid: must not be empty$/],
      [`mcLocationId=${"1".repeat(65)}`, /^mcLocationId: must be at most 64 characters$/],
      ["mcAcquiringMid=", /^mcAcquiringMid: must not be empty$/],
      ["visaAcquiringMid=", /^visaAcquiringMid: must not be empty$/],
      ["visaBin=", /^visaBin: must not be empty$/],
      ["select=items", /^select: the only value is count$/],
      ["sort=name", /^sort: must be one of created, onboardedAt, offboardedAt, lastSeenTransactionDate, sourcedAt, eventTs, updated, origin, status, scheme$/],
      ["order=up", /^order: must be asc or desc$/],
      ["start=", /^start: must not be empty$/],
      ["start=bm90IGEgY3Vyc29y", /^start: not a cursor from the `last` field of an earlier response$/],
      [`start=${created}&sort=updated`, /^start: this cursor continues a list sorted by created desc; send the same sort and order$/],
      [`start=${created}&order=asc`, /^start: this cursor continues a list sorted by created desc/],
      ["colour=red", /^colour: unknown field$/],
    ];
    for (const [query, message] of cases) {
      expect(await expectError(await p.client.get(`${p.path}?${query}`), 400, "invalid_request"), query).toMatch(message);
    }
    expect(await expectError(await p.client.get("/v1/programs/not-a-uuid/mid-insights"), 400, "invalid_request")).toMatch(
      /^programId: must be a UUID$/,
    );
  });
});
