// GET /v1/programs/{programId}/mid-insights, happy paths: fields, filters, sort, keyset pages, count, the
// OpenAPI document — on PGlite, and on PostgreSQL when DATABASE_URL is set (the two engines bind parameters
// differently).
import { describe, expect, it } from "vitest";
import { ENGINES, expectStatus, type Harness } from "../../support/harness.ts";
import { allPages, seededProgram, useSeededListing, type Page, type SeededProgram } from "../../support/mid-insights.ts";
import { ORIGINS, SORT_FIELDS, type SortField } from "../../../src/domain/mid-insights.ts";
import type { MidInsight } from "../../../src/services/mid-insights/mid-insights.ts";
import { recordOnboardingReply } from "../../../src/services/mid-insights/writers.ts";

/** The spec's order: absent values after all others ascending, before them descending; ties by id. */
function sortedBy(items: MidInsight[], sort: SortField, order: "asc" | "desc"): string[] {
  const dir = order === "asc" ? 1 : -1;
  return [...items]
    .sort((a, b) => {
      const [x, y] = [a[sort], b[sort]];
      if (x !== y) {
        if (x === null) return dir;
        if (y === null) return -dir;
        return (x < y ? -1 : 1) * dir;
      }
      return (a.id < b.id ? -1 : 1) * dir;
    })
    .map((i) => i.id);
}

const ids = (items: MidInsight[]) => items.map((i) => i.id);
const sortIds = (list: string[]) => [...list].sort();

describe.each(ENGINES)("listing MID insights on %s", (engine) => {
  let h: Harness;
  let p: SeededProgram;
  let all: MidInsight[];

  useSeededListing(engine, (w) => ({ h, p, all } = w));

  it("returns every field of the spec's MID insight, in each network's formats", () => {
    expect(all).toHaveLength(240);
    const fields = [
      "id", "brandId", "locationId", "midId", "programId", "scheme", "status", "created", "cardNetworkMerchantName",
      "mcAcquiringMid", "mcLocationId", "seNumber", "visaAcquiringMid", "visaBin", "vmid", "vsid", "midRequestId",
      "origin", "sourcedAt", "onboardedAt", "offboardedAt", "lastSeenTransactionDate", "lastSeenTransactionId",
      "firstTransactionClearingId", "firstTransactionAuthId",
    ];
    for (const item of all) {
      for (const f of fields) expect(item, f).toHaveProperty(f);
      expect(item.programId).toBe(p.programId);
      expect(["onboarded", "offboarded", "sourced"]).toContain(item.status);
      expect(ORIGINS).toContain(item.origin);
      if (item.scheme === "amex") expect(item.seNumber).toMatch(/^\d{10}$/);
      if (item.scheme === "visa") {
        expect(item.vmid).toMatch(/^\d{6,8}$/);
        expect(item.vsid && item.visaAcquiringMid && item.visaBin).toBeTruthy();
      }
      if (item.scheme === "mastercard") expect(item.mcLocationId && item.mcAcquiringMid).toBeTruthy();
    }
    expect(new Set(all.map((i) => i.status))).toEqual(new Set(["onboarded", "offboarded", "sourced"]));
  });

  it("counts the total and pages through every insight once with limit and start", async () => {
    const { items, pages } = await allPages(p.client, p.path, "limit=7");
    expect(pages).toHaveLength(Math.ceil(240 / 7));
    expect(pages.every((page) => page.count === 240)).toBe(true);
    expect(pages.slice(0, -1).every((page) => page.items.length === 7 && page.last)).toBe(true);
    expect(pages.at(-1)!.last).toBeUndefined();
    expect(ids(items)).toEqual(sortedBy(all, "created", "desc")); // the default: created, newest first
  });

  it("sorts by each of the ten fields in both orders, absent values last ascending and first descending", async () => {
    for (const sort of SORT_FIELDS) {
      for (const order of ["asc", "desc"] as const) {
        const { items } = await allPages(p.client, p.path, `sort=${sort}&order=${order}&limit=100`);
        expect(ids(items), `${sort} ${order}`).toEqual(sortedBy(all, sort, order));
      }
    }
    const withNulls = all.filter((i) => i.offboardedAt === null).length;
    expect(withNulls).toBeGreaterThan(0);
    const desc = await expectStatus<Page>(await p.client.get(`${p.path}?sort=offboardedAt&order=desc&limit=1`), 200);
    expect(desc.items[0]!.offboardedAt).toBeNull();
  });

  it("filters by each exact filter, and count is the number matching", async () => {
    const sample = (pred: (i: MidInsight) => boolean) => all.find(pred)!;
    const visa = sample((i) => i.scheme === "visa");
    const mc = sample((i) => i.scheme === "mastercard");
    const amex = sample((i) => i.scheme === "amex");
    const cases: [string, string, (i: MidInsight) => boolean][] = [
      ["brandId", visa.brandId, (i) => i.brandId === visa.brandId],
      ["id", mc.id, (i) => i.id === mc.id],
      ["locationId", amex.locationId, (i) => i.locationId === amex.locationId],
      ["midId", visa.midId, (i) => i.midId === visa.midId],
      ["seNumber", amex.seNumber!, (i) => i.seNumber === amex.seNumber],
      ["vmid", visa.vmid!, (i) => i.vmid === visa.vmid],
      ["vsid", visa.vsid!, (i) => i.vsid === visa.vsid],
      ["visaAcquiringMid", visa.visaAcquiringMid!, (i) => i.visaAcquiringMid === visa.visaAcquiringMid],
      ["visaBin", visa.visaBin!, (i) => i.visaBin === visa.visaBin],
      ["mcLocationId", mc.mcLocationId!, (i) => i.mcLocationId === mc.mcLocationId],
      ["mcAcquiringMid", mc.mcAcquiringMid!, (i) => i.mcAcquiringMid === mc.mcAcquiringMid],
      ["status", "onboarded", (i) => i.status === "onboarded"],
      ["status", "offboarded", (i) => i.status === "offboarded"],
      ...ORIGINS.map((o): [string, string, (i: MidInsight) => boolean] => ["origin", o, (i) => i.origin === o]),
    ];
    for (const [name, value, pred] of cases) {
      const expected = all.filter(pred);
      const query = `${name}=${encodeURIComponent(value)}`;
      const { items, pages } = await allPages(p.client, p.path, `${query}&limit=100`);
      expect(sortIds(ids(items)), query).toEqual(sortIds(ids(expected)));
      expect(pages[0]!.count, query).toBe(expected.length);
      const counted = await expectStatus<{ count: number }>(await p.client.get(`${p.path}?select=count&${query}`), 200);
      expect(counted.count, `select=count&${query}`).toBe(expected.length);
    }
  });

  it("combines filters (all must hold)", async () => {
    const visa = all.find((i) => i.scheme === "visa" && i.status === "onboarded")!;
    const query = `status=onboarded&origin=${visa.origin}&vmid=${visa.vmid}&visaBin=${visa.visaBin}`;
    const expected = all.filter(
      (i) => i.status === "onboarded" && i.origin === visa.origin && i.vmid === visa.vmid && i.visaBin === visa.visaBin,
    );
    const page = await expectStatus<Page>(await p.client.get(`${p.path}?${query}`), 200);
    expect(sortIds(ids(page.items))).toEqual(sortIds(ids(expected)));
    expect(page.count).toBe(expected.length);
    const none = await expectStatus<Page>(await p.client.get(`${p.path}?seNumber=0000000000`), 200);
    expect(none).toEqual({ items: [], count: 0 });
  });

  it("answers select=count with the total only", async () => {
    const body = await expectStatus<Record<string, unknown>>(await p.client.get(`${p.path}?select=count`), 200);
    expect(body).toEqual({ count: 240 });
    const filtered = await expectStatus<Record<string, unknown>>(await p.client.get(`${p.path}?select=count&status=offboarded&limit=1`), 200);
    expect(filtered).toEqual({ count: all.filter((i) => i.status === "offboarded").length });
  });

  it("takes lastSeenTransactionDateFrom/To as dates or date-times, both inclusive", async () => {
    const seen = all.filter((i) => i.lastSeenTransactionDate).sort((a, b) => (a.lastSeenTransactionDate! < b.lastSeenTransactionDate! ? -1 : 1));
    const t = seen[Math.floor(seen.length / 2)]!.lastSeenTransactionDate!;
    const day = t.slice(0, 10);
    const shift = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();
    const nextDay = shift(`${day}T00:00:00.000Z`, 86_400_000).slice(0, 10);
    const match = (from?: string, to?: string) =>
      all.filter(
        (i) =>
          i.lastSeenTransactionDate !== null &&
          (!from || Date.parse(i.lastSeenTransactionDate) >= Date.parse(from)) &&
          (!to || Date.parse(i.lastSeenTransactionDate) <= Date.parse(to)),
      );
    const cases: [string, MidInsight[]][] = [
      [`lastSeenTransactionDateFrom=${t}`, match(t)],
      [`lastSeenTransactionDateFrom=${shift(t, 1)}`, match(shift(t, 1))],
      [`lastSeenTransactionDateTo=${t}`, match(undefined, t)],
      [`lastSeenTransactionDateTo=${shift(t, -1)}`, match(undefined, shift(t, -1))],
      [`lastSeenTransactionDateFrom=${day}&lastSeenTransactionDateTo=${day}`, match(`${day}T00:00:00.000Z`, `${day}T23:59:59.999Z`)],
      [`lastSeenTransactionDateFrom=${nextDay}`, match(`${nextDay}T00:00:00.000Z`)],
      // A date-time with an offset, and one without a zone (UTC).
      [`lastSeenTransactionDateTo=${encodeURIComponent(`${day}T23:30:00+02:00`)}`, match(undefined, `${day}T21:30:00.000Z`)],
      [`lastSeenTransactionDateFrom=${day}T06:00:00`, match(`${day}T06:00:00.000Z`)],
    ];
    expect(cases[0]![1].some((i) => i.lastSeenTransactionDate === t)).toBe(true);
    expect(cases[1]![1].some((i) => i.lastSeenTransactionDate === t)).toBe(false);
    for (const [query, expected] of cases) {
      const { items, pages } = await allPages(p.client, p.path, `${query}&limit=100`);
      expect(sortIds(ids(items)), query).toEqual(sortIds(ids(expected)));
      expect(pages[0]!.count, query).toBe(expected.length);
    }
  });

  it("counts date ranges exactly: whole days, partial days at the edges, with status and origin", async () => {
    const seen = all.filter((i) => i.lastSeenTransactionDate).map((i) => i.lastSeenTransactionDate!).sort();
    const [lo, hi] = [seen[Math.floor(seen.length / 4)]!, seen[Math.floor((3 * seen.length) / 4)]!];
    const origin = all.find((i) => i.lastSeenTransactionDate && i.status === "onboarded")!.origin;
    const queries: [string, (i: MidInsight) => boolean][] = [
      [`lastSeenTransactionDateFrom=${lo}&lastSeenTransactionDateTo=${hi}`, () => true],
      [`lastSeenTransactionDateFrom=${lo.slice(0, 10)}&lastSeenTransactionDateTo=${hi}`, () => true],
      [`lastSeenTransactionDateFrom=${lo}&status=onboarded`, (i) => i.status === "onboarded"],
      [`lastSeenTransactionDateTo=${hi}&status=offboarded&origin=${origin}`, (i) => i.status === "offboarded" && i.origin === origin],
      [`lastSeenTransactionDateFrom=${lo.slice(0, 10)}&origin=${origin}`, (i) => i.origin === origin],
    ];
    for (const [query, pred] of queries) {
      const params = new URLSearchParams(query);
      const from = params.get("lastSeenTransactionDateFrom");
      const to = params.get("lastSeenTransactionDateTo");
      const fromMs = from ? Date.parse(from.length === 10 ? `${from}T00:00:00Z` : from) : -Infinity;
      const toMs = to ? Date.parse(to) : Infinity;
      const expected = all.filter(
        (i) => pred(i) && i.lastSeenTransactionDate && Date.parse(i.lastSeenTransactionDate) >= fromMs && Date.parse(i.lastSeenTransactionDate) <= toMs,
      ).length;
      const body = await expectStatus<{ count: number }>(await p.client.get(`${p.path}?select=count&${query}`), 200);
      expect(body.count, query).toBe(expected);
    }
  });

  it("gives the same rows whether a narrowed list is read in small or in large pages", { timeout: 120_000 }, async () => {
    const seen = all.filter((i) => i.lastSeenTransactionDate).map((i) => i.lastSeenTransactionDate!).sort();
    const from = seen[Math.floor(seen.length / 5)]!;
    const counts = new Map<string, number>();
    for (const i of all) counts.set(i.brandId, (counts.get(i.brandId) ?? 0) + 1);
    const [bigBrand] = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]!;
    const queries = [
      ...(["created", "onboardedAt", "origin", "lastSeenTransactionDate"] as const).map(
        (sort) => `lastSeenTransactionDateFrom=${from}&sort=${sort}&order=asc`,
      ),
      `brandId=${bigBrand}&sort=eventTs&order=desc`,
      `brandId=${bigBrand}&lastSeenTransactionDateFrom=${from}&sort=scheme&order=asc`,
    ];
    for (const query of queries) {
      const small = await allPages(p.client, p.path, `${query}&limit=5`);
      const large = await allPages(p.client, p.path, `${query}&limit=100`);
      expect(ids(small.items), query).toEqual(ids(large.items));
      expect(small.items.length, query).toBeGreaterThan(50);
    }
  });

  it("keeps pages stable while insights are added: nothing repeats, nothing is skipped", async () => {
    const q = await seededProgram(h, 45, 11);
    const { db, clock } = h.services;
    const location = (await expectStatus<Page>(await q.client.get(`${q.path}?limit=1`), 200)).items[0]!.locationId;
    let se = 9_000_000_000;
    const addInsight = async () => {
      await clock.advance(60_000);
      const now = clock.now();
      return recordOnboardingReply(
        db,
        { locationId: location, scheme: "amex", identifiers: { seNumber: String(se++) }, origin: "customer-provided-mid", at: now },
        now,
      );
    };
    for (const [order, newRowsShow] of [["desc", false], ["asc", true]] as const) {
      const before = (await allPages(q.client, q.path, `sort=created&order=${order}&limit=100`)).items;
      const seen: string[] = [];
      const added: string[] = [];
      let start: string | undefined;
      do {
        const page = await expectStatus<Page>(
          await q.client.get(`${q.path}?sort=created&order=${order}&limit=10${start ? `&start=${encodeURIComponent(start)}` : ""}`),
          200,
        );
        seen.push(...ids(page.items));
        start = page.last;
        added.push((await addInsight()).id); // newest of all: before the cursor descending, after it ascending
      } while (start);
      expect(new Set(seen).size, order).toBe(seen.length);
      expect(seen.filter((id) => !added.includes(id)), order).toEqual(ids(before));
      expect(seen.some((id) => added.includes(id)), order).toBe(newRowsShow);
    }
  });

  it("documents the route in OpenAPI: every parameter, the Bearer scheme and the version header", async () => {
    const doc = await expectStatus<{
      paths: Record<string, Record<string, { parameters: { $ref?: string; name?: string; in?: string; description?: string }[]; security: unknown }>>;
      components: { parameters: Record<string, { name: string; in: string; required: boolean; schema: { enum: string[] } }> };
    }>(await h.request("GET", "/v1/openapi.json"), 200);
    const op = doc.paths["/v1/programs/{programId}/mid-insights"]!.get!;
    expect(op.security).toEqual([{ LiveBearer: [] }]);
    const query = op.parameters.filter((x) => x.in === "query");
    expect(query.map((x) => x.name).sort()).toEqual(
      [
        "brandId", "id", "locationId", "midId", "limit", "lastSeenTransactionDateFrom", "lastSeenTransactionDateTo",
        "origin", "status", "seNumber", "mcAcquiringMid", "mcLocationId", "visaAcquiringMid", "visaBin", "vsid",
        "vmid", "select", "sort", "order", "start",
      ].sort(),
    );
    for (const param of query) expect(param.description, param.name).toBeTruthy();
    expect(op.parameters).toContainEqual({ $ref: "#/components/parameters/Version" });
    expect(doc.components.parameters.Version).toMatchObject({
      name: "Cardlink-Version",
      in: "header",
      required: true,
      schema: { enum: ["2024-11-25"] },
    });
    for (const [path, ops] of Object.entries(doc.paths).filter(([path]) => path.startsWith("/v1/") && path.includes("mid-insights"))) {
      for (const operation of Object.values(ops)) expect(operation.security, path).toEqual([{ LiveBearer: [] }]);
    }
  });
});
