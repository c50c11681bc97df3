// Marketplace offers, happy paths: a content provider's offers (made, seeded), the listing with its filters
// and sort, adopting one into a program, and the provider's later changes reaching every adopted copy.
import { dueTime } from "../../../src/platform/clock/environment.ts";
import { describe, expect, it } from "vitest";
import { expectError, expectStatus, type Harness } from "../../support/harness.ts";
import { generateMarketplaceOffers } from "../../../src/services/offers/marketplace-seed.ts";
import { runMarketplaceDue } from "../../../src/services/offers/marketplace-due.ts";
import { advanceDays, expect400, localIn, outboxOf, world, type Offer } from "../../support/offers-world.ts";
import { marketplaceTerms } from "../../../src/domain/offer-marketplace.ts";
import { nextNumber, provide, useMarketplaceHarness, type MarketplaceOffer, type Page } from "./provide.ts";

let h: Harness;
useMarketplaceHarness((opened) => (h = opened));

describe("marketplace offers (admin)", () => {
  it("creates a content provider's offer with the offer rules and marketplace defaults", async () => {
    const m = await provide({ targeting: { name: "existing", from: 0, to: 90 } });
    expect(m).toMatchObject({
      currency: "GBP",
      channels: ["in-store"],
      endDate: expect.any(String),
      activation: { enabled: false },
      daysOfWeek: [0, 1, 2, 3, 4, 5, 6],
      schemes: ["visa", "mastercard", "amex"],
      fees: { publisherFee: 1, serviceFee: 0.5 },
      targeting: { name: "existing", from: 0, to: 90 },
      transactionSource: null,
      supplier: { id: "cp_brightside", type: "affiliate", name: "Brightside Rewards" },
      brandDecision: { decision: "accept", afterHours: 48 },
    });
    expect(m.endDate > localIn(h, 360)).toBe(true);
  });

  it("seeds the simulated marketplace reproducibly from a seed", async () => {
    const now = h.services.clock.now();
    expect(generateMarketplaceOffers(42, 5, now)).toEqual(generateMarketplaceOffers(42, 5, now));
    expect(generateMarketplaceOffers(42, 5, now)).not.toEqual(generateMarketplaceOffers(43, 5, now));
    const seeded = await expectStatus<{ created: number; items: MarketplaceOffer[] }>(
      await h.admin("POST", "/admin/marketplace-offers/seed", { count: 12, seed: 42 }),
      201,
    );
    expect(seeded.created).toBe(12);
    expect(seeded.items.map((m) => m.brandName)).toEqual(generateMarketplaceOffers(42, 12, now).map((m) => m.brandName));
    // A discount offer's name states its percentage.
    for (const m of seeded.items as (MarketplaceOffer & { name: string; type: { name: string; value: number } })[]) {
      if (m.type.name === "discount") expect(m.name).toMatch(new RegExp(`^${m.type.value}% off`));
    }
    await expect400(await h.admin("POST", "/admin/marketplace-offers/seed", { count: 101 }), "count: must be 1 to 100");
  });

  it("seeds offers its own rules accept, whole yen in Japan included (count 20, seed 7 made JPY fees of 0.5)", async () => {
    const seeded = await expectStatus<{ created: number; items: { countryCode: string; type: { name: string }; fees: { publisherFee: number; serviceFee: number } }[] }>(
      await h.admin("POST", "/admin/marketplace-offers/seed", { count: 20, seed: 7 }),
      201,
    );
    expect(seeded.created).toBe(20);
    const yenAmountOffers = seeded.items.filter((m) => m.countryCode === "JPN" && m.type.name === "amount");
    expect(yenAmountOffers.length).toBeGreaterThan(0);
    for (const m of yenAmountOffers) {
      expect(Number.isInteger(m.fees.publisherFee) && Number.isInteger(m.fees.serviceFee)).toBe(true);
    }
    // Every seed's offers pass the offer rules, not only the seed of the report.
    const now = h.services.clock.now();
    for (let seed = 0; seed < 50; seed++) {
      for (const offer of generateMarketplaceOffers(seed, 20, now)) {
        const result = marketplaceTerms(offer);
        expect(result.ok ? [] : result.problems, `seed ${seed}`).toEqual([]);
      }
    }
  });
});

describe("GET /marketplace-offers", () => {
  it("lists available offers by default, with brand, channel, country and network filters", async () => {
    const online = await provide({ channels: ["online"], schemes: ["visa"], countryCode: "FRA" });
    const store = await provide({ brandName: online.brandName, channels: ["in-store", "online"], schemes: ["amex"] });
    const ended = await provide({ brandName: online.brandName, startDate: localIn(h, -30), endDate: localIn(h, -1) });
    const w = await world(h);
    const ids = async (query: string) =>
      (await expectStatus<Page<MarketplaceOffer>>(await w.client.get(`/v1/marketplace-offers?brandName=${encodeURIComponent(online.brandName)}&${query}`), 200)).items
        .map((m) => m.id)
        .sort();
    expect(await ids("")).toEqual([online.id, store.id].sort());
    expect(await ids("availability=all")).toEqual([online.id, store.id, ended.id].sort());
    expect(await ids("channel=in-store")).toEqual([store.id]);
    expect(await ids("channel=online")).toEqual([online.id, store.id].sort());
    expect(await ids("countryCode=FRA")).toEqual([online.id]);
    expect(await ids("scheme=amex")).toEqual([store.id]);
    expect(await ids("scheme=mastercard")).toEqual([]);
    const lower = await expectStatus<Page<MarketplaceOffer>>(await w.client.get(`/v1/marketplace-offers?brandName=${encodeURIComponent(online.brandName.toLowerCase())}`), 200);
    expect(lower.count).toBe(2);
    expect(lower.items.every((m) => m.available && m.addedAs === null)).toBe(true);
    await expect400(await w.client.get("/v1/marketplace-offers?channel=mail"), "channel: must be online or in-store");
    await expect400(await w.client.get("/v1/marketplace-offers?order=up"), "order: must be asc or desc");
    await expect400(await w.client.get("/v1/marketplace-offers?scheme=discover"), "scheme: must be visa, mastercard or amex");
  });

  it("sorts asc or desc by created, startDate or endDate, and pages without repeats", async () => {
    const brandName = `Sorted brand ${nextNumber()}`;
    const made: MarketplaceOffer[] = [];
    for (const [start, end] of [[-3, 50], [-1, 10], [-2, 30], [-5, 20]] as const) {
      made.push(await provide({ brandName, startDate: localIn(h, start), endDate: localIn(h, end) }));
      await expectStatus(await h.admin("POST", "/admin/clock/advance", { seconds: 1 }), 200);
    }
    const w = await world(h);
    const walk = async (query: string) => {
      const seen: string[] = [];
      let path = `/v1/marketplace-offers?brandName=${encodeURIComponent(brandName)}&limit=1&${query}`;
      for (;;) {
        const page = await expectStatus<Page<MarketplaceOffer>>(await w.client.get(path), 200);
        expect(page.count).toBe(4);
        seen.push(...page.items.map((m) => m.id));
        if (!page.last) return seen;
        path = `/v1/marketplace-offers?brandName=${encodeURIComponent(brandName)}&limit=1&${query}&start=${page.last}`;
      }
    };
    const [a, b, c, d] = made.map((m) => m.id);
    expect(await walk("")).toEqual([d, c, b, a]);
    expect(await walk("order=asc")).toEqual([a, b, c, d]);
    expect(await walk("sort=startDate&order=asc")).toEqual([d, a, c, b]);
    expect(await walk("sort=endDate&order=desc")).toEqual([a, c, d, b]);
  });
});

describe("adopting a marketplace offer", () => {
  it("adds it to the program as the caller's offer, reusing or adding the brand and linking its locations", async () => {
    const w = await world(h);
    const m = await provide({ brandName: "Coffee House", activation: { enabled: false } });
    const offer = await expectStatus<Offer>(await w.client.post(`/v1/marketplace-offers/${m.id}/programs/${w.programId}`), 201);
    expect(offer).toMatchObject({
      brandId: w.brandId,
      brandName: "Coffee House",
      publisherId: w.acct.id,
      origin: { id: "cp_brightside", type: "affiliate" },
      supplier: { id: "cp_brightside", type: "affiliate" },
      funded: { id: w.acct.id, type: "card-linking" },
      fees: { publisherFee: 1, serviceFee: 0.5 },
      feeSplit: null,
      locationsTotal: 1,
      // Test environment: the simulated brand answers at once.
      accepted: true,
      status: "live",
      marketplace: { offerId: m.id, programId: w.programId, approval: "accepted" },
    });
    const listed = await expectStatus<Page<MarketplaceOffer>>(await w.client.get(`/v1/marketplace-offers?brandName=Coffee%20House&availability=all`), 200);
    expect(listed.items.find((x) => x.id === m.id)).toMatchObject({ available: false, addedAs: offer.id });
    expect((await expectStatus<Page<MarketplaceOffer>>(await w.client.get(`/v1/marketplace-offers?brandName=Coffee%20House`), 200)).items.map((x) => x.id)).not.toContain(m.id);
    expect(await expectError(await w.client.post(`/v1/marketplace-offers/${m.id}/programs/${w.programId}`), 409, "conflict")).toMatch(offer.id);

    const fresh = await provide();
    const adopted = await expectStatus<Offer>(await w.client.post(`/v1/marketplace-offers/${fresh.id}/programs/${w.programId}`), 201);
    expect(adopted).toMatchObject({ brandName: fresh.brandName, locationsTotal: 0, status: "requests" });
    const brands = await expectStatus<Page<{ id: string; name: string }>>(await w.client.get("/v1/brands"), 200);
    expect(brands.items.map((b) => b.name)).toContain(fresh.brandName);
  });

  it("waits for the brand's approval in live, accepted or declined on the service clock", async () => {
    const w = await world(h, "live");
    const accepted = await provide({ brandName: "Coffee House", brandDecision: { decision: "accept", afterHours: 24 } });
    const offer = await expectStatus<Offer>(await w.client.post(`/v1/marketplace-offers/${accepted.id}/programs/${w.programId}`), 201);
    expect(offer).toMatchObject({ accepted: false, status: "requests", live: true, locationsTotal: 1, marketplace: { approval: "pending" } });
    expect(offer.funded).toEqual({ id: "cp_brightside", type: "affiliate" });
    const bakery = await w.brand("Bakery");
    await w.location(bakery);
    const declined = await provide({ brandName: "Bakery", brandDecision: { decision: "decline", afterHours: 12 } });
    const refused = await expectStatus<Offer>(await w.client.post(`/v1/marketplace-offers/${declined.id}/programs/${w.programId}`), 201);
    const byStatus = async (status: string) =>
      (await expectStatus<Page<Offer>>(await w.client.get(`/v1/offers?status=${status}`), 200)).items.map((o) => o.id).sort();
    expect(await byStatus("requests")).toEqual([offer.id, refused.id].sort());
    await expectStatus(await h.admin("POST", "/admin/clock/advance", { hours: 13 }), 200);
    expect(await expectStatus<Offer>(await w.client.get(`/v1/offers/${refused.id}`), 200)).toMatchObject({
      accepted: false,
      status: "requests",
      marketplace: { approval: "declined" },
    });
    expect((await expectStatus<Offer>(await w.client.get(`/v1/offers/${offer.id}`), 200)).marketplace!.approval).toBe("pending");
    await expectStatus(await h.admin("POST", "/admin/clock/advance", { hours: 12 }), 200);
    expect(await expectStatus<Offer>(await w.client.get(`/v1/offers/${offer.id}`), 200)).toMatchObject({
      accepted: true,
      status: "live",
      marketplace: { approval: "accepted" },
    });
    expect(await byStatus("live")).toEqual([offer.id]);
    expect(await byStatus("requests")).toEqual([refused.id]);
    expect(await runMarketplaceDue(h.services.db, await dueTime(h.services.db, h.services.clock))).toBe(0);
  });
});

/** An account's marketplace.* events: which, for which offer, with its status then. */
const marketplaceEvents = async (accountId: string) =>
  (
    await h.services.db.query<{ event: string; program_id: string | null; data: Offer }>(
      "select event, program_id, data from outbox where account_id = $1 and event like 'marketplace.%' order by created, id",
      [accountId],
    )
  ).map((e) => [e.event, e.program_id, e.data.id, e.data.status]);

describe("content provider changes", () => {
  it("tells each publisher once when the offer they added goes live, and each change of it by its provider", async () => {
    const m = await provide({ brandName: "Coffee House", startDate: localIn(h, -1), endDate: localIn(h, 30), brandDecision: { decision: "accept", afterHours: 24 } });
    const first = await world(h);
    const second = await world(h, "live");
    // Test: the brand answers at once and a location of the brand is linked: live, told at once.
    const a = await expectStatus<Offer>(await first.client.post(`/v1/marketplace-offers/${m.id}/programs/${first.programId}`), 201);
    expect(a.status).toBe("live");
    expect(await marketplaceEvents(first.acct.id)).toEqual([["marketplace.offer.live", first.programId, a.id, "live"]]);
    // Live: waiting for the brand, not live yet.
    const b = await expectStatus<Offer>(await second.client.post(`/v1/marketplace-offers/${m.id}/programs/${second.programId}`), 201);
    expect(await marketplaceEvents(second.acct.id)).toEqual([]);
    const endDate = localIn(h, 60);
    await expectStatus(await h.admin("PATCH", `/admin/marketplace-offers/${m.id}`, { endDate }), 200);
    // A change that changes nothing is told to nobody.
    await expectStatus(await h.admin("PATCH", `/admin/marketplace-offers/${m.id}`, { endDate }), 200);
    expect((await marketplaceEvents(first.acct.id)).sort()).toEqual(
      [
        ["marketplace.offer.live", first.programId, a.id, "live"],
        ["marketplace.offer.updated", first.programId, a.id, "live"],
      ].sort(),
    );
    expect(await marketplaceEvents(second.acct.id)).toEqual([["marketplace.offer.updated", second.programId, b.id, "requests"]]);
    // The brand accepts a day later (due work): live then, told once however often the due work runs.
    await expectStatus(await h.admin("POST", "/admin/clock/advance", { hours: 25 }), 200);
    await expectStatus(await h.admin("POST", "/admin/clock/advance", { hours: 1 }), 200);
    expect(await marketplaceEvents(second.acct.id)).toEqual([
      ["marketplace.offer.updated", second.programId, b.id, "requests"],
      ["marketplace.offer.live", second.programId, b.id, "live"],
    ]);
  });


  it("extends every adopted copy and notifies each publisher with offer.extended", async () => {
    const m = await provide({ brandName: "Coffee House", startDate: localIn(h, -1), endDate: localIn(h, 30) });
    const first = await world(h);
    const second = await world(h, "live");
    const a = await expectStatus<Offer>(await first.client.post(`/v1/marketplace-offers/${m.id}/programs/${first.programId}`), 201);
    const b = await expectStatus<Offer>(await second.client.post(`/v1/marketplace-offers/${m.id}/programs/${second.programId}`), 201);
    // The marketplace variant has no 12-month cap on an extension.
    const endDate = localIn(h, 800);
    const updated = await expectStatus<MarketplaceOffer>(await h.admin("PATCH", `/admin/marketplace-offers/${m.id}`, { endDate }), 200);
    expect(updated.endDate).toBe(endDate);
    expect((await expectStatus<Offer>(await first.client.get(`/v1/offers/${a.id}`), 200)).endDate).toBe(endDate);
    expect((await expectStatus<Offer>(await second.client.get(`/v1/offers/${b.id}`), 200)).endDate).toBe(endDate);
    for (const [w, offer] of [[first, a], [second, b]] as const) {
      const events = await outboxOf(h, w.acct.id);
      expect(events.map((e) => [e.event, e.program_id, e.live, e.data.id, e.data.endDate])).toEqual([
        ["offer.extended", w.programId, w.env === "live", offer.id, endDate],
      ]);
    }
    await expect400(await h.admin("PATCH", `/admin/marketplace-offers/${m.id}`, { endDate: localIn(h, -1) }), "endDate: must be later than the current date");
    await expectError(await h.admin("PATCH", `/admin/marketplace-offers/${first.brandId}`, { endDate }), 404, "resource_not_found");
  });

  it("retargets adopted copies and notifies publishers whose copy is live", async () => {
    const m = await provide({ startDate: localIn(h, -1), targeting: { name: "new" } });
    const w = await world(h);
    const offer = await expectStatus<Offer>(await w.client.post(`/v1/marketplace-offers/${m.id}/programs/${w.programId}`), 201);
    await expectStatus(await h.admin("PATCH", `/admin/marketplace-offers/${m.id}`, { targeting: { name: "lapsed", from: 30, to: 180 } }), 200);
    // No location of the brand: the copy is not live, so no event, but it follows the provider.
    expect((await expectStatus<Offer>(await w.client.get(`/v1/offers/${offer.id}`), 200)).targeting).toEqual({ name: "lapsed", from: 30, to: 180 });
    expect(await outboxOf(h, w.acct.id)).toEqual([]);
    await expectStatus(await w.client.post(`/v1/offers/${offer.id}/locations/${await w.location(offer.brandId as string)}`), 201);
    await expectStatus(await h.admin("PATCH", `/admin/marketplace-offers/${m.id}`, { targeting: { name: "existing", from: 0, to: 30 } }), 200);
    const events = await outboxOf(h, w.acct.id);
    expect(events.map((e) => [e.event, e.program_id, e.data.id])).toEqual([["offer.targeting.updated", w.programId, offer.id]]);
    expect(events[0]!.data.targeting).toEqual({ name: "existing", from: 0, to: 30 });
  });

  it("is no longer available once it has ended on the service clock", async () => {
    const m = await provide({ startDate: localIn(h, -1), endDate: localIn(h, 1) });
    const w = await world(h);
    await advanceDays(h, 2);
    const listed = await expectStatus<Page<MarketplaceOffer>>(await w.client.get(`/v1/marketplace-offers?brandName=${encodeURIComponent(m.brandName)}&availability=all`), 200);
    expect(listed.items).toEqual([expect.objectContaining({ id: m.id, available: false, addedAs: null })]);
  });
});
