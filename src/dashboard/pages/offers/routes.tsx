// Offers: the groups (requests, upcoming, live, expiring soon, expired, and the marketplace), the
// creation form, an offer's page and its actions (link, activate and deactivate on a card, extend,
// delete), and adding a marketplace offer to a program.
import type { Hono } from "hono";
import { DEFAULT_EXPIRING_DAYS } from "../../../domain/offer-status.ts";
import { callApi, must, qs, type ApiResult, type DashContext, type DashEnv, type List, type RouteContext } from "../../context.ts";
import { afterAction } from "../../actions.ts";
import { compact, localDateTime, readForm, text, type FormValues } from "../../form.ts";
import { programsOf } from "../../programs.tsx";
import type { Card, Location, Program } from "../../../services/catalog/index.ts";
import type { MarketplaceOfferView, Offer, OfferActivation } from "../../../services/offers/index.ts";
import { GROUPS, type Group, type Scope } from "./groups.tsx";
import { MarketplacePage, OffersPage, type MarketplaceFilters, type OfferFilters } from "./offers-page.tsx";
import { OfferPage } from "./offer-page.tsx";
import { createOfferPage, offerInput } from "./offer-form.tsx";

export function mountOffers(dash: Hono<DashEnv>) {
  dash.get("/offers", listOffers);
  dash.get("/offers/new", async (c) => c.html(await createOfferPage(c, {})));
  dash.post("/offers", createOffer);
  dash.post("/marketplace-offers/:id/adopt", adoptMarketplaceOffer);
  dash.get("/offers/:id", showOffer);
  offerAction(dash, "link", (c, id, f) => callApi(c, "POST", `/v1/offers/${id}/locations/${encodeURIComponent(text(f, "locationId") ?? "")}`, {}), "Location linked.");
  offerAction(dash, "link-program", (c, id, f) => callApi(c, "POST", `/v1/offers/${id}/programs/${encodeURIComponent(text(f, "program") ?? "")}/locations`, {}), "The program's locations of the brand are linked.");
  offerAction(dash, "activate", (c, id, f) => callApi(c, "POST", `/v1/offers/${id}/cards/${encodeURIComponent(text(f, "cardId") ?? "")}`, {}), "Activated on the card.");
  offerAction(dash, "deactivate", (c, id, f) => callApi(c, "DELETE", `/v1/offers/${id}/cards/${encodeURIComponent(text(f, "cardId") ?? "")}`), "Deactivated on the card.");
  offerAction(dash, "extend", (c, id, f) => callApi(c, "PATCH", `/v1/offers/${id}`, compact({ endDate: localDateTime(f, "endDate") })), "Offer extended.");
  offerAction(dash, "delete", (c, id) => callApi(c, "DELETE", `/v1/offers/${id}`), "Offer deleted.", "list");
}

async function listOffers(c: DashContext) {
  const { programs, program } = await programsOf(c);
  const group = (GROUPS.find(([g]) => g === c.req.query("group"))?.[0] ?? "live") as Group;
  const start = c.req.query("start");
  if (group === "marketplace") return listMarketplace(c, programs, program, start);
  const expiresWithin = c.req.query("expiresWithin") ?? String(DEFAULT_EXPIRING_DAYS);
  const scope: Scope = program && c.req.query("scope") !== "account" ? "program" : "account";
  const filters: OfferFilters = {
    brandId: c.req.query("brandId"),
    countryCode: c.req.query("countryCode"),
    ...(group === "expiring" ? { expiresWithin } : { status: group }),
  };
  const ofProgram = scope === "program" ? program?.id : undefined;
  const result = await callApi<List<Offer>>(c, "GET", `/v1/offers${qs({ ...filters, programId: ofProgram, start, limit: 25 })}`);
  const page = { c, programs, program, group, scope, filters, expiresWithin, result };
  return c.html(<OffersPage {...page} />);
}

async function listMarketplace(c: DashContext, programs: Program[], program: Program | undefined, start: string | undefined) {
  const filters: MarketplaceFilters = {
    brandName: c.req.query("brandName"),
    countryCode: c.req.query("countryCode"),
    scheme: c.req.query("scheme"),
    channel: c.req.query("channel"),
    availability: c.req.query("availability"),
    sort: c.req.query("sort"),
    order: c.req.query("order"),
  };
  const list = must(await callApi<List<MarketplaceOfferView>>(c, "GET", `/v1/marketplace-offers${qs({ ...filters, start, limit: 25 })}`));
  return c.html(<MarketplacePage c={c} programs={programs} program={program} filters={filters} list={list} />);
}

async function createOffer(c: DashContext) {
  const f = await readForm(c);
  const result = await callApi<Offer>(c, "POST", "/v1/offers", offerInput(f));
  // A refused offer shows the form again with what was typed and the API's message.
  if (!result.ok) return c.html(await createOfferPage(c, f, result.error.message), result.status as 400);
  return afterAction(c, result, `Offer ${result.data.name} created (requests until a location is linked).`, `/dashboard/offers/${result.data.id}${qs({ program: c.req.query("program") })}`);
}

async function adoptMarketplaceOffer(c: RouteContext<"/marketplace-offers/:id/adopt">) {
  const f = await readForm(c);
  const program = text(f, "program") ?? "";
  const result = await callApi<Offer>(c, "POST", `/v1/marketplace-offers/${encodeURIComponent(c.req.param("id"))}/programs/${encodeURIComponent(program)}`, {});
  const back = result.ok ? `/dashboard/offers/${result.data.id}${qs({ program })}` : `/dashboard/offers${qs({ group: "marketplace", program })}`;
  return afterAction(c, result, "Added to the program; the brand's locations in it are linked.", back);
}

async function showOffer(c: RouteContext<"/offers/:id">) {
  const { programs, program } = await programsOf(c);
  const id = encodeURIComponent(c.req.param("id"));
  const o = must(await callApi<Offer>(c, "GET", `/v1/offers/${id}`));
  const [cards, locations, activations] = await Promise.all([
    program ? callApi<List<Card>>(c, "GET", `/v1/programs/${program.id}/cards?limit=100`) : undefined,
    program ? callApi<List<Location>>(c, "GET", `/v1/programs/${program.id}/locations${qs({ brandId: o.brandId, limit: 100 })}`) : undefined,
    callApi<List<OfferActivation>>(c, "GET", `/v1/offers/${id}/cards?limit=100`),
  ]);
  return c.html(<OfferPage c={c} programs={programs} program={program} o={o} cards={cards} locations={locations} activations={activations} />);
}

/** An action on an offer, from its page: back to the page with the API's answer (to the list once the offer is deleted). */
function offerAction(
  dash: Hono<DashEnv>,
  name: string,
  call: (c: DashContext, id: string, f: FormValues) => Promise<ApiResult<unknown>>,
  done: string,
  after?: "list",
) {
  dash.post(`/offers/:id/${name}`, async (c) => {
    const id = encodeURIComponent(c.req.param("id"));
    const f = await readForm(c);
    const result = await call(c, id, f);
    const program = text(f, "program");
    const back = after === "list" && result.ok ? `/dashboard/offers${qs({ program })}` : `/dashboard/offers/${id}${qs({ program })}`;
    return afterAction(c, result, done, back);
  });
}
