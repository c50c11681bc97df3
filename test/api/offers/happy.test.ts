// The offer routes' happy paths: creation and its defaults, status on the service clock, listing and its
// filters, updates and their events, deletion, location links, activation on cards, the OpenAPI document.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHarness, expectError, expectStatus, type Harness } from "../../support/harness.ts";
import { countryByAlpha3 } from "../../../src/domain/countries.ts";
import { addDays, addMonths } from "../../../src/domain/local-dates.ts";
import { recordQualifiedTransaction } from "../../../src/services/offers/activations.ts";
import { advanceDays, expect400, localIn, outboxOf, world, type Offer } from "../../support/offers-world.ts";

let h: Harness;
beforeAll(async () => {
  h = await createHarness(); // service clock frozen at 2026-01-05T12:00:00Z; tests below move it forward
});
afterAll(() => h.close());

type Page<T> = { items: T[]; count: number; last?: string };

describe("POST /offers", () => {
  it("creates an offer with the spec's defaults and derivations", async () => {
    const w = await world(h);
    const startDate = localIn(h, 3);
    const offer = await w.offer({ startDate, type: { name: "amount", value: 5 } });
    expect(Object.keys(offer).sort()).toEqual(
      [
        "id", "accepted", "activation", "additionalTerms", "brandId", "brandName", "brandLogoURL", "countryCode", "created",
        "currency", "daysOfWeek", "endDate", "feeSplit", "fees", "funded", "live", "locationsTotal", "maxTransactionAmount",
        "minTransactionAmount", "metadata", "name", "origin", "priority", "publisherId", "returnPeriod", "schemes",
        "startDate", "status", "supplier", "targeting", "type", "transactionSource", "updated", "marketplace",
      ].sort(),
    );
    expect(offer).toMatchObject({
      accepted: true,
      activation: { enabled: false },
      additionalTerms: null,
      brandId: w.brandId,
      brandName: "Coffee House",
      brandLogoURL: null,
      countryCode: "GBR",
      created: h.services.clock.now().toISOString(),
      currency: "GBP",
      daysOfWeek: [0, 1, 2, 3, 4, 5, 6],
      startDate,
      endDate: addMonths(startDate, 12),
      feeSplit: 0,
      fees: null,
      funded: { id: w.acct.id, type: "card-linking" },
      live: false,
      locationsTotal: 0,
      maxTransactionAmount: null,
      minTransactionAmount: 0,
      metadata: null,
      name: "10% off coffee",
      origin: { id: w.acct.id, type: "card-linking" },
      priority: 1,
      publisherId: w.acct.id,
      returnPeriod: 0,
      schemes: ["visa", "mastercard", "amex"],
      status: "requests",
      supplier: null,
      targeting: null,
      type: { name: "amount", value: 5, maxRewardAmount: null },
      transactionSource: null,
      marketplace: null,
    });
    expect(await expectStatus<Offer>(await w.client.get(`/v1/offers/${offer.id}`), 200)).toEqual(offer);
  });

  it("keeps every field of the creation input", async () => {
    const w = await world(h);
    const input = {
      startDate: "2026-03-01T08:30:00",
      endDate: "2026-09-30T22:00:00",
      type: { name: "discount", value: 12.5, maxRewardAmount: 20 },
      activation: { enabled: true, qualifiedTransactionsLimit: 3 },
      daysOfWeek: [1, 3, 5],
      schemes: ["visa", "amex"],
      minTransactionAmount: 10,
      maxTransactionAmount: 500,
      returnPeriod: 14,
      feeSplit: 2.5,
      metadata: { campaign: "spring" },
      additionalTerms: "One per customer.",
      brandLogoURL: "https://example.com/coffee.png",
      name: "Spring coffee",
    };
    const offer = await w.offer(input);
    expect(offer).toMatchObject({ ...input, status: "requests" });
  });

  it("derives the currency from the country", async () => {
    const w = await world(h);
    for (const [countryCode, currency] of [["JPN", "JPY"], ["USA", "USD"], ["IRL", "EUR"], ["CHE", "CHF"], ["NZL", "NZD"]] as const) {
      const offer = await w.offer({ countryCode, type: { name: "discount", value: 5 } });
      expect(offer.currency).toBe(currency);
    }
  });

  it("defaults the activation limit to 1 when activation is enabled", async () => {
    const w = await world(h);
    const offer = await w.offer({ activation: { enabled: true } });
    expect(offer.activation).toEqual({ enabled: true, qualifiedTransactionsLimit: 1 });
  });

  it("funds test offers by the caller as card-linking; live offers take the funding given", async () => {
    const t = await world(h);
    expect((await t.offer({ funded: { id: "merchant-7", type: "merchant" } })).funded).toEqual({ id: t.acct.id, type: "card-linking" });
    const l = await world(h, "live");
    expect((await l.offer({ funded: { id: "merchant-7", type: "merchant" } })).funded).toEqual({ id: "merchant-7", type: "merchant" });
    expect((await l.offer({ name: "default funding", activation: { enabled: false } })).funded).toEqual({ id: l.acct.id, type: "card-linking" });
    expect((await l.offer()).live).toBe(true);
    await expect400(await l.createOffer({ funded: { type: "merchant" } }), "funded.id: required when funded.type is merchant");
  });

  it("makes the targeting variant with fees and targeting, and oaas offers with locationsTotal -1", async () => {
    const w = await world(h);
    const targeted = await w.offer({ fees: { publisherFee: 1, serviceFee: 0.5 }, targeting: { name: "lapsed", from: 90, to: 365 } });
    expect(targeted).toMatchObject({ feeSplit: null, fees: { publisherFee: 1, serviceFee: 0.5 }, targeting: { name: "lapsed", from: 90, to: 365 }, priority: null });
    const oaas = await w.offer({ transactionSource: "oaas", startDate: localIn(h, -1) });
    expect(oaas).toMatchObject({ transactionSource: "oaas", locationsTotal: -1, fees: { publisherFee: 0, serviceFee: 0 }, feeSplit: null });
    // It needs no location to run, and takes none.
    expect(oaas.status).toBe("live");
    await expect400(await w.client.post(`/v1/offers/${oaas.id}/locations/${w.locationId}`), "transactionSource oaas");
    await expect400(await w.client.post(`/v1/offers/${oaas.id}/programs/${w.programId}/locations`), "transactionSource oaas");
    // Created with a future startDate it starts in requests (there is no location to make it upcoming)
    // and is live from startDate on; the status filter agrees.
    const later = await w.offer({ transactionSource: "oaas", startDate: localIn(h, 2) });
    expect(later).toMatchObject({ status: "requests", priority: null });
    const requests = await expectStatus<{ items: { id: string }[] }>(await w.client.get("/v1/offers?status=requests"), 200);
    expect(requests.items.map((o) => o.id)).toContain(later.id);
    await advanceDays(h, 3);
    expect((await expectStatus<Offer>(await w.client.get(`/v1/offers/${later.id}`), 200)).status).toBe("live");
    const live = await expectStatus<{ items: { id: string }[] }>(await w.client.get("/v1/offers?status=live"), 200);
    expect(live.items.map((o) => o.id)).toContain(later.id);
  });
});

describe("offer status", () => {
  it("goes requests -> upcoming (location linked) -> live (startDate) -> expired (endDate) on the service clock", async () => {
    const w = await world(h);
    const offer = await w.offer({ startDate: localIn(h, 2), endDate: localIn(h, 5) });
    expect(offer.status).toBe("requests");
    const linked = await expectStatus<Offer>(await w.client.post(`/v1/offers/${offer.id}/locations/${w.locationId}`), 201);
    expect(linked).toMatchObject({ status: "upcoming", locationsTotal: 1 });
    await advanceDays(h, 2);
    expect((await expectStatus<Offer>(await w.client.get(`/v1/offers/${offer.id}`), 200)).status).toBe("live");
    await advanceDays(h, 3.01);
    expect((await expectStatus<Offer>(await w.client.get(`/v1/offers/${offer.id}`), 200)).status).toBe("expired");
  });

  it("is live at once with a past startDate and a linked location; requests without a location", async () => {
    const w = await world(h);
    const offer = await w.offer({ startDate: "2025-06-01T00:00:00" });
    expect(offer.status).toBe("requests");
    const linked = await expectStatus<Offer>(await w.client.post(`/v1/offers/${offer.id}/locations/${w.locationId}`), 201);
    expect(linked.status).toBe("live");
    await expectStatus(await w.client.delete(`/v1/offers/${offer.id}/locations/${w.locationId}`), 204);
    expect((await expectStatus<Offer>(await w.client.get(`/v1/offers/${offer.id}`), 200)).status).toBe("requests");
  });

  it("reads the dates in the main time zone of the offer's country", async () => {
    const w = await world(h);
    const zone = countryByAlpha3("USA")!.mainTimezone!;
    const usLocation = await w.location(w.brandId, "USA");
    // One hour ahead on New York's wall clock: upcoming there, though that wall time has passed in London.
    const startDate = localIn(h, 1 / 24, zone);
    const offer = await w.offer({ countryCode: "USA", startDate });
    expect(startDate < localIn(h, 0)).toBe(true);
    const linked = await expectStatus<Offer>(await w.client.post(`/v1/offers/${offer.id}/locations/${usLocation}`), 201);
    expect(linked.status).toBe("upcoming");
    await expectStatus(await h.admin("POST", "/admin/clock/advance", { hours: 1 }), 200);
    expect((await expectStatus<Offer>(await w.client.get(`/v1/offers/${offer.id}`), 200)).status).toBe("live");
  });
});

describe("GET /offers", () => {
  it("filters by status computed from the same rule as each record, with pages that agree", async () => {
    const w = await world(h);
    const make = async (startDays: number, endDays: number, link: boolean, countryCode = "GBR") => {
      const zone = countryByAlpha3(countryCode)!.mainTimezone!;
      const offer = await w.offer({ countryCode, startDate: localIn(h, startDays, zone), endDate: localIn(h, endDays, zone) });
      if (link) {
        const location = countryCode === "GBR" ? w.locationId : await w.location(w.brandId, countryCode);
        await expectStatus(await w.client.post(`/v1/offers/${offer.id}/locations/${location}`), 201);
      }
      return offer.id;
    };
    await make(-10, 10, true); // live
    await make(-10, 10, false); // requests
    await make(2, 10, true); // upcoming
    await make(2, 10, false); // requests
    await make(-30, -1, true); // expired
    await make(-30, -1, false); // expired
    await make(0, 0.5, true); // live, starts exactly now
    await make(-1 / 24, 1, true, "USA"); // live in New York
    await make(1 / 24, 1, true, "JPN"); // upcoming in Tokyo
    await w.offer({ transactionSource: "oaas", startDate: localIn(h, -1) }); // live with no location
    const all = await expectStatus<Page<Offer>>(await w.client.get("/v1/offers"), 200);
    expect(all.count).toBe(10);
    const expected = (status: string) => all.items.filter((o) => o.status === status).map((o) => o.id).sort();
    expect([expected("requests"), expected("upcoming"), expected("live"), expected("expired")].map((ids) => ids.length)).toEqual([2, 2, 4, 2]);
    for (const status of ["requests", "upcoming", "live", "expired"]) {
      const seen: string[] = [];
      let path = `/v1/offers?status=${status}&limit=1`;
      for (;;) {
        const page = await expectStatus<Page<Offer>>(await w.client.get(path), 200);
        expect(page.count).toBe(expected(status).length);
        expect(page.items.every((o) => o.status === status)).toBe(true);
        seen.push(...page.items.map((o) => o.id));
        if (!page.last) break;
        path = `/v1/offers?status=${status}&limit=1&start=${page.last}`;
      }
      expect(seen.sort()).toEqual(expected(status));
    }
  });

  it("filters by brand, country and 'expiring soon' (30 days by default)", async () => {
    const w = await world(h);
    const otherBrand = await w.brand("Bakery");
    const otherLocation = await w.location(otherBrand);
    const link = async (id: string, location = w.locationId) => expectStatus(await w.client.post(`/v1/offers/${id}/locations/${location}`), 201);
    const soon = await w.offer({ startDate: localIn(h, -1), endDate: localIn(h, 10) });
    await link(soon.id);
    const later = await w.offer({ startDate: localIn(h, -1), endDate: localIn(h, 40) });
    await link(later.id);
    const notLive = await w.offer({ startDate: localIn(h, -1), endDate: localIn(h, 5) });
    const bakery = await w.offer({ brandId: otherBrand, startDate: localIn(h, -1), endDate: localIn(h, 20) });
    await link(bakery.id, otherLocation);
    const french = await w.offer({ countryCode: "FRA" });
    const ids = async (query: string) => (await expectStatus<Page<Offer>>(await w.client.get(`/v1/offers?${query}`), 200)).items.map((o) => o.id).sort();
    expect(await ids(`brandId=${otherBrand}`)).toEqual([bakery.id]);
    expect(await ids("countryCode=FRA")).toEqual([french.id]);
    expect(await ids("expiringSoon=true")).toEqual([soon.id, bakery.id].sort());
    expect(await ids("expiresWithin=15")).toEqual([soon.id]);
    expect(await ids("expiresWithin=45")).toEqual([soon.id, later.id, bakery.id].sort());
    expect(await ids(`expiresWithin=45&brandId=${w.brandId}`)).toEqual([soon.id, later.id].sort());
    expect(notLive.status).toBe("requests");
    await expect400(await w.client.get("/v1/offers?status=running"), "status: must be requests, upcoming, live or expired");
    await expect400(await w.client.get("/v1/offers?expiresWithin=0"), "expiresWithin: must be between 1 and 365");
    await expect400(await w.client.get("/v1/offers?expiringSoon=yes"), "expiringSoon: must be true or false");
  });

  it("filters by program (offers linked to its locations) and lists the locations an offer is linked to", async () => {
    const w = await world(h);
    const other = (await expectStatus<{ id: string }>(await w.client.post("/v1/programs", { name: "Other" }), 201)).id;
    const otherLocation = await w.location(w.brandId, "GBR", other);
    const here = await w.offer({ startDate: localIn(h, -1) });
    await expectStatus(await w.client.post(`/v1/offers/${here.id}/locations/${w.locationId}`), 201);
    const both = await w.offer({ startDate: localIn(h, -1) });
    await expectStatus(await w.client.post(`/v1/offers/${both.id}/locations/${w.locationId}`), 201);
    await expectStatus(await w.client.post(`/v1/offers/${both.id}/locations/${otherLocation}`), 201);
    const there = await w.offer({ startDate: localIn(h, -1) });
    await expectStatus(await w.client.post(`/v1/offers/${there.id}/locations/${otherLocation}`), 201);
    await w.offer({}); // linked nowhere: no program's
    const ids = async (query: string) => (await expectStatus<Page<Offer>>(await w.client.get(`/v1/offers?${query}`), 200)).items.map((o) => o.id).sort();
    expect(await ids(`programId=${w.programId}`)).toEqual([here.id, both.id].sort());
    expect(await ids(`programId=${other}&status=live`)).toEqual([both.id, there.id].sort());
    await expectError(await w.client.get(`/v1/offers?programId=${crypto.randomUUID()}`), 404, "resource_not_found");
    await expect400(await w.client.get("/v1/offers?programId=nope"), "programId: must be a UUID");

    const linked = async (program: string, offer: string) =>
      (await expectStatus<Page<{ id: string }>>(await w.client.get(`/v1/programs/${program}/locations?offerId=${offer}`), 200)).items.map((l) => l.id);
    expect(await linked(w.programId, here.id)).toEqual([w.locationId]);
    expect(await linked(other, here.id)).toEqual([]);
    expect(await linked(other, both.id)).toEqual([otherLocation]);
  });
});

describe("PATCH /offers/{offerId}", () => {
  it("extends the endDate by up to 12 months and emits offer.extended", async () => {
    const w = await world(h);
    const offer = await w.offer({ startDate: localIn(h, -1) });
    const latest = addMonths(offer.endDate, 12);
    const extended = await expectStatus<Offer>(await w.client.patch(`/v1/offers/${offer.id}`, { endDate: latest }), 200);
    expect(extended.endDate).toBe(latest);
    const events = await outboxOf(h, w.acct.id);
    expect(events.map((e) => e.event)).toEqual(["offer.extended"]);
    expect(events[0]).toMatchObject({ program_id: null, live: false, data: { id: offer.id, endDate: latest } });
    await expect400(
      await w.client.patch(`/v1/offers/${offer.id}`, { endDate: addDays(addMonths(latest, 12), 1) }),
      "endDate: an extension is at most 12 months at a time",
    );
  });

  it("revives an expired offer by extending it past the current date", async () => {
    const w = await world(h);
    const offer = await w.offer({ startDate: localIn(h, -20), endDate: localIn(h, -1) });
    await expectStatus(await w.client.post(`/v1/offers/${offer.id}/locations/${w.locationId}`), 201);
    expect((await expectStatus<Offer>(await w.client.get(`/v1/offers/${offer.id}`), 200)).status).toBe("expired");
    const revived = await expectStatus<Offer>(await w.client.patch(`/v1/offers/${offer.id}`, { endDate: localIn(h, 30) }), 200);
    expect(revived.status).toBe("live");
    expect((await outboxOf(h, w.acct.id)).map((e) => e.event)).toEqual(["offer.extended"]);
  });

  it("updates targeting and emits offer.targeting.updated only when the offer is live", async () => {
    const w = await world(h);
    const upcoming = await w.offer({ startDate: localIn(h, 5), targeting: { name: "new" } });
    await expectStatus(await w.client.post(`/v1/offers/${upcoming.id}/locations/${w.locationId}`), 201);
    const changed = await expectStatus<Offer>(await w.client.patch(`/v1/offers/${upcoming.id}`, { targeting: { name: "existing", from: 0, to: 30 } }), 200);
    expect(changed.targeting).toEqual({ name: "existing", from: 0, to: 30 });
    expect(await outboxOf(h, w.acct.id)).toEqual([]);
    const live = await w.offer({ startDate: localIn(h, -5), targeting: { name: "new" } });
    await expectStatus(await w.client.post(`/v1/offers/${live.id}/locations/${w.locationId}`), 201);
    const retargeted = await expectStatus<Offer>(
      await w.client.patch(`/v1/offers/${live.id}`, { targeting: { name: "lapsed", from: 60, to: 365 } }),
      200,
    );
    expect(retargeted).toMatchObject({ status: "live", targeting: { name: "lapsed", from: 60, to: 365 } });
    const events = await outboxOf(h, w.acct.id);
    expect(events.map((e) => [e.event, e.data.id])).toEqual([["offer.targeting.updated", live.id]]);
    expect(events[0]!.data.targeting).toEqual({ name: "lapsed", from: 60, to: 365 });
    await expect400(await w.client.patch(`/v1/offers/${live.id}`, { targeting: { name: "lapsed" } }), "targeting.from: required for lapsed targeting");
    const standard = await w.offer();
    await expect400(await w.client.patch(`/v1/offers/${standard.id}`, { targeting: { name: "new" } }), "targeting: only in the targeting variant");
  });

  it("changes terms before the offer is live and refuses them once it is (409 naming the field)", async () => {
    const w = await world(h);
    const offer = await w.offer({ startDate: localIn(h, -1) });
    const edited = await expectStatus<Offer>(
      await w.client.patch(`/v1/offers/${offer.id}`, { type: { name: "amount", value: 3 }, daysOfWeek: [6], minTransactionAmount: 4, name: "Weekend", metadata: { a: 1 } }),
      200,
    );
    expect(edited).toMatchObject({ type: { name: "amount", value: 3, maxRewardAmount: null }, daysOfWeek: [6], minTransactionAmount: 4, name: "Weekend", metadata: { a: 1 } });
    await expectStatus(await w.client.post(`/v1/offers/${offer.id}/locations/${w.locationId}`), 201);
    expect(await expectError(await w.client.patch(`/v1/offers/${offer.id}`, { type: { name: "amount", value: 4 } }), 409, "conflict")).toMatch(
      /^type: cannot change once the offer is live/,
    );
    const renamed = await expectStatus<Offer>(await w.client.patch(`/v1/offers/${offer.id}`, { name: "Still editable", additionalTerms: "T&Cs", brandLogoURL: null }), 200);
    expect(renamed).toMatchObject({ name: "Still editable", additionalTerms: "T&Cs", brandLogoURL: null, status: "live" });
    expect(renamed.updated).toBe(h.services.clock.now().toISOString());
  });

  it("turns activation off on a live offer (rule 5) and refuses turning it on or changing the limit", async () => {
    const w = await world(h);
    const offer = await w.offer({ activation: { enabled: true, qualifiedTransactionsLimit: 2 }, startDate: localIn(h, -1) });
    await expectStatus(await w.client.post(`/v1/offers/${offer.id}/locations/${w.locationId}`), 201);
    await expectStatus(await w.client.post(`/v1/offers/${offer.id}/cards/${w.cardId}`), 201);
    expect(
      await expectError(await w.client.patch(`/v1/offers/${offer.id}`, { activation: { enabled: true, qualifiedTransactionsLimit: 3 } }), 409, "conflict"),
    ).toMatch(/^activation: cannot change once the offer is live; .* activation can be disabled/);
    const off = await expectStatus<Offer>(await w.client.patch(`/v1/offers/${offer.id}`, { activation: { enabled: false } }), 200);
    expect(off).toMatchObject({ status: "live", activation: { enabled: false } });
    // The activation stays on record but decides nothing; cards can no longer be activated or deactivated.
    const cards = await expectStatus<{ items: Record<string, unknown>[] }>(await w.client.get(`/v1/offers/${offer.id}/cards`), 200);
    expect(cards.items).toEqual([expect.objectContaining({ cardId: w.cardId, state: "activated", qualifiedTransactionsLimit: null })]);
    expect(await expectError(await w.client.delete(`/v1/offers/${offer.id}/cards/${w.cardId}`), 409, "conflict")).toMatch(/^activation\.enabled:/);
    expect(await expectError(await w.client.post(`/v1/offers/${offer.id}/cards/${w.cardId}`), 409, "conflict")).toMatch(/^activation\.enabled:/);
    expect(await expectError(await w.client.patch(`/v1/offers/${offer.id}`, { activation: { enabled: true } }), 409, "conflict")).toMatch(
      /^activation: cannot change once the offer is live/,
    );
  });
});

describe("DELETE /offers/{offerId}", () => {
  it("deletes a self-sourced offer with its links", async () => {
    const w = await world(h);
    const offer = await w.offer();
    await expectStatus(await w.client.post(`/v1/offers/${offer.id}/locations/${w.locationId}`), 201);
    await expectStatus(await w.client.delete(`/v1/offers/${offer.id}`), 204);
    await expectError(await w.client.get(`/v1/offers/${offer.id}`), 404, "resource_not_found");
    await expectError(await w.client.delete(`/v1/offers/${offer.id}`), 404, "resource_not_found");
  });
});

describe("linking locations", () => {
  it("links one location (201, then 200 when already linked) and keeps locationsTotal right", async () => {
    const w = await world(h);
    const offer = await w.offer();
    const second = await w.location(w.brandId);
    expect((await expectStatus<Offer>(await w.client.post(`/v1/offers/${offer.id}/locations/${w.locationId}`), 201)).locationsTotal).toBe(1);
    expect((await expectStatus<Offer>(await w.client.post(`/v1/offers/${offer.id}/locations/${w.locationId}`), 200)).locationsTotal).toBe(1);
    expect((await expectStatus<Offer>(await w.client.post(`/v1/offers/${offer.id}/locations/${second}`), 201)).locationsTotal).toBe(2);
    await expectStatus(await w.client.delete(`/v1/offers/${offer.id}/locations/${w.locationId}`), 204);
    expect((await expectStatus<Offer>(await w.client.get(`/v1/offers/${offer.id}`), 200)).locationsTotal).toBe(1);
    await expectError(await w.client.delete(`/v1/offers/${offer.id}/locations/${w.locationId}`), 404, "resource_not_found");
    // Deleting a location unlinks it.
    await expectStatus(await w.client.delete(`/v1/locations/${second}`), 204);
    expect((await expectStatus<Offer>(await w.client.get(`/v1/offers/${offer.id}`), 200)).locationsTotal).toBe(0);
  });

  it("links every location of the brand in a program, and no others", async () => {
    const w = await world(h);
    const offer = await w.offer({ startDate: localIn(h, -1) });
    const second = await w.location(w.brandId);
    await w.location(await w.brand("Bakery"));
    await w.location(w.brandId, "FRA");
    const otherProgram = (await expectStatus<{ id: string }>(await w.client.post("/v1/programs", { name: "Other" }), 201)).id;
    await w.location(w.brandId, "GBR", otherProgram);
    const linked = await expectStatus<Offer>(await w.client.post(`/v1/offers/${offer.id}/programs/${w.programId}/locations`), 200);
    expect(linked).toMatchObject({ locationsTotal: 2, status: "live" });
    const again = await expectStatus<Offer>(await w.client.post(`/v1/offers/${offer.id}/programs/${w.programId}/locations`), 200);
    expect(again.locationsTotal).toBe(2);
    await expectStatus(await w.client.delete(`/v1/offers/${offer.id}/locations/${second}`), 204);
    const other = await world(h);
    await expectError(await w.client.post(`/v1/offers/${offer.id}/programs/${other.programId}/locations`), 404, "resource_not_found");
  });
});

describe("rule 4: activation and non-activation offers of one brand", () => {
  it("allows the other kind once the first has ended, and checks updates too", async () => {
    const w = await world(h);
    const first = await w.offer({ activation: { enabled: false }, startDate: localIn(h, -10), endDate: localIn(h, 2) });
    await expectError(await w.createOffer({ activation: { enabled: true }, startDate: localIn(h, 1) }), 409, "conflict");
    const later = await w.offer({ activation: { enabled: true }, startDate: localIn(h, 3), endDate: localIn(h, 20) });
    // Extending the first into the second's run would make them run together.
    expect(await expectError(await w.client.patch(`/v1/offers/${first.id}`, { endDate: localIn(h, 10) }), 409, "conflict")).toMatch(
      new RegExp(`offer ${later.id}`),
    );
    // Switching the later one's kind is checked the same way: to the first's kind and back are both fine.
    expect((await expectStatus<Offer>(await w.client.patch(`/v1/offers/${later.id}`, { activation: { enabled: false } }), 200)).activation).toEqual({ enabled: false });
    await expectStatus(await w.client.patch(`/v1/offers/${later.id}`, { activation: { enabled: true } }), 200);
    await advanceDays(h, 2.5);
    await w.offer({ activation: { enabled: true }, startDate: localIn(h, 0.1) });
  });
});

describe("activation on cards", () => {
  it("activates, lists, deactivates; a deactivation is final", async () => {
    const w = await world(h);
    const offer = await w.offer({ activation: { enabled: true, qualifiedTransactionsLimit: 2 } });
    const activated = await expectStatus<Record<string, unknown>>(await w.client.post(`/v1/offers/${offer.id}/cards/${w.cardId}`), 201);
    expect(activated).toEqual({
      offerId: offer.id,
      cardId: w.cardId,
      state: "activated",
      qualifiedTransactions: 0,
      qualifiedTransactionsLimit: 2,
      activated: h.services.clock.now().toISOString(),
      deactivated: null,
      deactivationReason: null,
    });
    expect(await expectStatus(await w.client.post(`/v1/offers/${offer.id}/cards/${w.cardId}`), 200)).toEqual(activated);
    const other = await w.card("5555000000005007");
    const list = await expectStatus<Page<Record<string, unknown>>>(await w.client.get(`/v1/offers/${offer.id}/cards`), 200);
    expect(list).toEqual({ items: [activated], count: 1 });
    const none = await expectStatus<Page<Record<string, unknown>>>(await w.client.get(`/v1/offers/${offer.id}/cards?cardId=${other}`), 200);
    expect(none.items).toEqual([
      { offerId: offer.id, cardId: other, state: "not activated", qualifiedTransactions: 0, qualifiedTransactionsLimit: 2, activated: null, deactivated: null, deactivationReason: null },
    ]);
    await expectError(await w.client.delete(`/v1/offers/${offer.id}/cards/${other}`), 404, "resource_not_found");
    await expectStatus(await w.client.delete(`/v1/offers/${offer.id}/cards/${w.cardId}`), 204);
    const after = await expectStatus<Page<Record<string, unknown>>>(await w.client.get(`/v1/offers/${offer.id}/cards?state=deactivated`), 200);
    expect(after.items).toEqual([{ ...activated, state: "deactivated", deactivated: h.services.clock.now().toISOString(), deactivationReason: "publisher" }]);
    expect((await expectStatus<Page<unknown>>(await w.client.get(`/v1/offers/${offer.id}/cards?state=activated`), 200)).count).toBe(0);
    expect(await expectError(await w.client.delete(`/v1/offers/${offer.id}/cards/${w.cardId}`), 409, "conflict")).toMatch(/already deactivated/);
    expect(await expectError(await w.client.post(`/v1/offers/${offer.id}/cards/${w.cardId}`), 409, "conflict")).toMatch(/final/);
  });

  it("counts qualified transactions and deactivates at qualifiedTransactionsLimit (recordQualifiedTransaction)", async () => {
    const w = await world(h);
    const offer = await w.offer({ activation: { enabled: true, qualifiedTransactionsLimit: 2 } });
    const now = h.services.clock.now();
    expect(await recordQualifiedTransaction(h.services.db, offer.id, w.cardId, now)).toEqual({ counted: false, activation: null });
    await expectStatus(await w.client.post(`/v1/offers/${offer.id}/cards/${w.cardId}`), 201);
    const first = await recordQualifiedTransaction(h.services.db, offer.id, w.cardId, now);
    expect(first).toMatchObject({ counted: true, activation: { state: "activated", qualifiedTransactions: 1 } });
    const second = await recordQualifiedTransaction(h.services.db, offer.id, w.cardId, now);
    expect(second).toMatchObject({ counted: true, activation: { state: "deactivated", qualifiedTransactions: 2, deactivationReason: "limit" } });
    const third = await recordQualifiedTransaction(h.services.db, offer.id, w.cardId, now);
    expect(third).toMatchObject({ counted: false, activation: { state: "deactivated", qualifiedTransactions: 2 } });
    const listed = await expectStatus<Page<Record<string, unknown>>>(await w.client.get(`/v1/offers/${offer.id}/cards?cardId=${w.cardId}`), 200);
    expect(listed.items[0]).toMatchObject({ state: "deactivated", qualifiedTransactions: 2, deactivationReason: "limit" });
  });
});

describe("OpenAPI", () => {
  it("documents every offer route with examples and marks maxTransactionAmount deprecated", async () => {
    type Schema = { example?: unknown; properties?: Record<string, Schema & { deprecated?: boolean }>; $ref?: string };
    const doc = await expectStatus<{
      paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: Schema }> }; responses: Record<string, { content?: Record<string, { schema: Schema }> }> }>>;
      components: { schemas: Record<string, Schema> };
    }>(await h.request("GET", "/v1/openapi.json"), 200);
    const resolve = (s: Schema): Schema => (s.$ref ? doc.components.schemas[s.$ref.split("/").pop()!]! : s);
    expect(doc.components.schemas.Offer!.properties!.maxTransactionAmount!.deprecated).toBe(true);
    expect(doc.components.schemas.OfferCreate!.properties!.maxTransactionAmount!.deprecated).toBe(true);
    const routes = Object.entries(doc.paths).filter(([path]) => /^\/(v1|admin)\/(offers|marketplace-offers)/.test(path));
    expect(routes.length).toBe(12);
    for (const [path, ops] of routes) {
      for (const [method, op] of Object.entries(ops)) {
        const body = op.requestBody?.content["application/json"]?.schema;
        if (body) expect(resolve(body).example, `${method} ${path} request example`).toBeDefined();
        for (const [status, response] of Object.entries(op.responses)) {
          const schema = response.content?.["application/json"]?.schema;
          if (!schema || Number(status) >= 400) continue;
          const resolved = resolve(schema);
          const item = resolved.properties?.items as (Schema & { items?: Schema }) | undefined;
          const example = resolved.example ?? (item?.items ? resolve(item.items).example : undefined);
          expect(example, `${method} ${path} ${status} example`).toBeDefined();
        }
      }
    }
  });
});
