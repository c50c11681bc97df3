// Offers: the groups (requests, upcoming, live, expiring soon, expired, and the marketplace), the
// creation form with every field of the API's input and its defaults shown, and an offer's page:
// link one location or all of a program's, activate and deactivate on a card, extend, delete.
import type { Hono } from "hono";
import { SCHEMES } from "../../domain/card-number.ts";
import { CHANNELS } from "../../domain/offer-marketplace.ts";
import { FUNDING_TYPES, TARGETING_NAMES } from "../../domain/offer.ts";
import { DEFAULT_EXPIRING_DAYS } from "../../domain/offer-status.ts";
import { callApi, must, qs, type DashContext, type DashEnv, type List } from "../context.ts";
import { afterAction } from "../actions.ts";
import { all, checked, compact, json, localDateTime, num, readForm, text, type FormValues } from "../form.ts";
import { ActionButton, Field, Layout, Pager, Select, Table } from "../layout.tsx";
import { StatusBadge } from "../statuses.tsx";
import { programsOf } from "../programs.tsx";
import type { Offer } from "../../services/offers/index.ts";
import type { OfferActivation } from "../../services/offers/index.ts";
import type { MarketplaceOfferView } from "../../services/offers/index.ts";
import type { Brand } from "../../services/catalog/index.ts";
import type { Card } from "../../services/catalog/index.ts";
import type { Location } from "../../services/catalog/index.ts";

const GROUPS = [
  ["requests", "Requests"],
  ["upcoming", "Upcoming"],
  ["live", "Live"],
  ["expiring", "Expiring soon"],
  ["expired", "Expired"],
  ["marketplace", "Marketplace"],
] as const;
type Group = (typeof GROUPS)[number][0];

const DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

const reward = (o: Pick<Offer, "type" | "currency">) =>
  o.type.name === "discount"
    ? `${o.type.value}%${o.type.maxRewardAmount ? ` up to ${o.type.maxRewardAmount} ${o.currency}` : ""}`
    : `${o.type.value} ${o.currency}`;

/**
 * Whose offers a group lists: the program's (linked to one of its locations, or added to it from the
 * marketplace; the API's `programId` filter), or the whole account's, which includes offers linked to no
 * location yet. The program's is the default: the switcher above names a program.
 */
type Scope = "program" | "account";

function GroupNav({ group, program, scope }: { group: Group | undefined; program: string | undefined; scope?: Scope | undefined }) {
  return (
    <nav aria-label="Offer groups" class="tabs">
      <ul>
        {GROUPS.map(([g, label]) => (
          <li>
            <a href={`/dashboard/offers${qs({ group: g, program, scope: scope === "account" ? scope : undefined })}`} aria-current={g === group ? "page" : undefined}>
              {label}
            </a>
          </li>
        ))}
        <li>
          <a href={`/dashboard/offers/new${qs({ program })}`} aria-current={group === undefined ? "page" : undefined}>
            Create an offer
          </a>
        </li>
      </ul>
    </nav>
  );
}

/** The offer creation input from the form: every field of POST /v1/offers. */
function offerInput(f: FormValues) {
  const days = all(f, "daysOfWeek").map(Number);
  const schemes = all(f, "schemes");
  const activation = checked(f, "activation.enabled");
  return compact({
    brandId: text(f, "brandId"),
    countryCode: text(f, "countryCode"),
    name: text(f, "name"),
    publisherId: text(f, "publisherId"),
    startDate: localDateTime(f, "startDate"),
    endDate: localDateTime(f, "endDate"),
    type: { name: text(f, "type.name"), value: num(f, "type.value"), maxRewardAmount: num(f, "type.maxRewardAmount") },
    activation: activation ? { enabled: true, qualifiedTransactionsLimit: num(f, "activation.qualifiedTransactionsLimit") } : undefined,
    daysOfWeek: days.length ? days : [],
    schemes: schemes.length ? schemes : [],
    funded: { id: text(f, "funded.id"), type: text(f, "funded.type") },
    minTransactionAmount: num(f, "minTransactionAmount"),
    maxTransactionAmount: num(f, "maxTransactionAmount"),
    returnPeriod: num(f, "returnPeriod"),
    feeSplit: num(f, "feeSplit"),
    fees: { publisherFee: num(f, "fees.publisherFee"), serviceFee: num(f, "fees.serviceFee") },
    targeting: { name: text(f, "targeting.name"), from: num(f, "targeting.from"), to: num(f, "targeting.to") },
    transactionSource: checked(f, "transactionSource") ? "oaas" : undefined,
    metadata: json(f, "metadata"),
    additionalTerms: text(f, "additionalTerms"),
    brandLogoURL: text(f, "brandLogoURL"),
  });
}

async function createForm(c: DashContext, values: FormValues, error?: string) {
  const { programs, program } = await programsOf(c);
  const brands = must(await callApi<List<Brand>>(c, "GET", "/v1/brands?limit=100"));
  const account = must(await callApi<{ id: string }>(c, "GET", "/v1/account"));
  const v = (name: string) => text(values, name);
  const days = values.daysOfWeek === undefined ? [0, 1, 2, 3, 4, 5, 6] : all(values, "daysOfWeek").map(Number);
  const schemes = values.schemes === undefined ? [...SCHEMES] : all(values, "schemes");
  return (
    <Layout c={c} title="Create an offer" program={program} programs={programs} error={error}>
      <GroupNav group={undefined} program={program?.id} />
      {brands.items.length === 0 && <p>Add a brand first (below).</p>}
      <form method="post" action={`/dashboard/offers${qs({ program: program?.id })}`} class="grid" novalidate>
        <input type="hidden" name="publisherId" value={account.id} />
        <Select name="brandId" label="Brand" options={brands.items.map((b) => [b.id, b.name] as const)} value={v("brandId")} />
        <Field name="name" label="Name" value={v("name")} />
        <Field name="countryCode" label="Country (ISO 3166-1 alpha-3)" value={v("countryCode") ?? "GBR"} hint="Decides the currency." />
        <Field name="startDate" label="Start (local to the location)" type="datetime-local" step="1" value={v("startDate")} hint="May be in the past: live at once with a linked location." />
        <Field name="endDate" label="End (local)" type="datetime-local" step="1" value={v("endDate")} hint="Default: 12 months after the start." />
        <Select name="type.name" label="Reward type" options={[["amount", "amount (a currency amount)"], ["discount", "discount (a percentage)"]]} value={v("type.name")} />
        <Field name="type.value" label="Reward value" value={v("type.value")} />
        <Field name="type.maxRewardAmount" label="Maximum reward (discount only)" value={v("type.maxRewardAmount")} hint="Default: no cap." />
        <fieldset>
          <legend>Activation</legend>
          <div class="field">
            <input id="f-activation-enabled" name="activation.enabled" type="checkbox" value="true" checked={checked(values, "activation.enabled")} />
            <label for="f-activation-enabled">Cards must activate the offer</label>
          </div>
          <Field name="activation.qualifiedTransactionsLimit" label="Qualified transactions per activation" value={v("activation.qualifiedTransactionsLimit") ?? "1"} hint="Default 1; at least 1." />
        </fieldset>
        <fieldset>
          <legend>Days of the week (default every day)</legend>
          {DAYS.map((d, i) => (
            <span class="check">
              <input id={`day-${i}`} type="checkbox" name="daysOfWeek" value={String(i)} checked={days.includes(i)} />
              <label for={`day-${i}`}>{d}</label>
            </span>
          ))}
        </fieldset>
        <fieldset>
          <legend>Schemes (default all three)</legend>
          {SCHEMES.map((s) => (
            <span class="check">
              <input id={`scheme-${s}`} type="checkbox" name="schemes" value={s} checked={schemes.includes(s)} />
              <label for={`scheme-${s}`}>{s}</label>
            </span>
          ))}
        </fieldset>
        <Select name="funded.type" label="Funded by" options={[["", "default (you, card-linking)"], ...FUNDING_TYPES.map((t) => [t, t] as const)]} value={v("funded.type")} hint="Test environment: always you, card-linking." />
        <Field name="funded.id" label="Funding account id" value={v("funded.id")} hint="Needed for merchant or affiliate funding (live)." />
        <Field name="minTransactionAmount" label="Minimum transaction amount" value={v("minTransactionAmount") ?? "0"} hint="Default 0." />
        <Field name="maxTransactionAmount" label="Maximum transaction amount (deprecated)" value={v("maxTransactionAmount")} hint="Deprecated in favour of the maximum reward." />
        <Field name="returnPeriod" label="Return period (days)" value={v("returnPeriod") ?? "0"} hint="Default 0: qualifies at once." />
        <Field name="feeSplit" label="Performance fee (feeSplit)" value={v("feeSplit")} hint="Default 0; an amount on amount offers, a percentage on discount offers." />
        <fieldset>
          <legend>Marketplace/targeting variant</legend>
          <Field name="fees.publisherFee" label="Publisher fee" value={v("fees.publisherFee")} />
          <Field name="fees.serviceFee" label="Service fee" value={v("fees.serviceFee")} />
          <Select name="targeting.name" label="Targeting" options={[["", "none (all customers eligible)"], ...TARGETING_NAMES.map((t) => [t, t] as const)]} value={v("targeting.name")} />
          <Field name="targeting.from" label="Lookback from (days)" value={v("targeting.from")} hint="Required for lapsed and existing." />
          <Field name="targeting.to" label="Lookback to (days)" value={v("targeting.to")} hint="Required for lapsed and existing; at most 365." />
          <div class="field">
            <input id="f-transactionSource" name="transactionSource" type="checkbox" value="oaas" checked={checked(values, "transactionSource")} />
            <label for="f-transactionSource">Transaction source oaas (no linked locations)</label>
          </div>
        </fieldset>
        <Field name="brandLogoURL" label="Brand logo URL" value={v("brandLogoURL")} hint="Default none." />
        <div class="field">
          <label for="f-additionalTerms">Additional terms</label>
          <textarea id="f-additionalTerms" name="additionalTerms">{v("additionalTerms") ?? ""}</textarea>
        </div>
        <div class="field">
          <label for="f-metadata">Metadata (a JSON object)</label>
          <textarea id="f-metadata" name="metadata" aria-describedby="f-metadata-hint">{v("metadata") ?? ""}</textarea>
          <small id="f-metadata-hint" class="hint">Default none.</small>
        </div>
        <div class="actions">
          <button type="submit">Create offer</button>
        </div>
      </form>
      <section aria-labelledby="new-brand">
        <h2 id="new-brand">Add a brand</h2>
        <form method="post" action={`/dashboard/brands${qs({ program: program?.id })}`} class="inline">
          <label for="brand-name">Brand name</label>
          <input id="brand-name" name="name" required />
          <button type="submit">Add brand</button>
        </form>
      </section>
    </Layout>
  );
}

export function mountOffers(dash: Hono<DashEnv>) {
  dash.get("/offers", async (c) => {
    const { programs, program } = await programsOf(c);
    const group = (GROUPS.find(([g]) => g === c.req.query("group"))?.[0] ?? "live") as Group;
    const start = c.req.query("start");
    const base = { group, program: program?.id };
    if (group === "marketplace") {
      const filters = {
        brandName: c.req.query("brandName"),
        countryCode: c.req.query("countryCode"),
        scheme: c.req.query("scheme"),
        channel: c.req.query("channel"),
        availability: c.req.query("availability"),
        sort: c.req.query("sort"),
        order: c.req.query("order"),
      };
      const list = must(await callApi<List<MarketplaceOfferView>>(c, "GET", `/v1/marketplace-offers${qs({ ...filters, start, limit: 25 })}`));
      return c.html(
        <Layout c={c} title="Offers: marketplace" program={program} programs={programs}>
          <GroupNav group={group} program={program?.id} />
          <form method="get" action="/dashboard/offers" class="filters">
            <input type="hidden" name="group" value="marketplace" />
            {program && <input type="hidden" name="program" value={program.id} />}
            <Field name="brandName" label="Brand name" value={filters.brandName} />
            <Field name="countryCode" label="Country" value={filters.countryCode} />
            <Select name="scheme" label="Scheme" options={[["", "any"], ...SCHEMES.map((s) => [s, s] as const)]} value={filters.scheme} />
            <Select name="channel" label="Channel" options={[["", "any"], ...CHANNELS.map((s) => [s, s] as const)]} value={filters.channel} />
            <Select name="availability" label="Availability" options={[["available", "available"], ["all", "all"]]} value={filters.availability} />
            <Select name="sort" label="Sort by" options={[["created", "created"], ["startDate", "start"], ["endDate", "end"]]} value={filters.sort} />
            <Select name="order" label="Order" options={[["desc", "descending"], ["asc", "ascending"]]} value={filters.order} />
            <button type="submit">Filter</button>
          </form>
          <Table caption="Marketplace offers not yet added to a program" head={["Name", "Brand", "Reward", "Fees", "Dates", "Supplier", ""]} empty="No marketplace offers match.">
            {list.items.map((o) => (
              <tr>
                <td>{o.name}</td>
                <td>{o.brandName}</td>
                <td>{o.type.name === "discount" ? `${o.type.value}%` : `${o.type.value}`}</td>
                <td>
                  {o.fees.publisherFee} / {o.fees.serviceFee}
                </td>
                <td>
                  {o.startDate.slice(0, 10)} – {o.endDate.slice(0, 10)}
                </td>
                <td>{o.supplier.name ?? o.supplier.type}</td>
                <td>{program && <ActionButton action={`/dashboard/marketplace-offers/${o.id}/adopt`} label={`Add to ${program.name}`} fields={{ program: program.id }} />}</td>
              </tr>
            ))}
          </Table>
          <Pager count={list.count} shown={list.items.length} last={list.last} next={(s) => `/dashboard/offers${qs({ ...base, ...filters, start: s })}`} />
        </Layout>,
      );
    }
    const expiresWithin = c.req.query("expiresWithin") ?? String(DEFAULT_EXPIRING_DAYS);
    const scope: Scope = program && c.req.query("scope") !== "account" ? "program" : "account";
    const filters = {
      brandId: c.req.query("brandId"),
      countryCode: c.req.query("countryCode"),
      ...(group === "expiring" ? { expiresWithin } : { status: group }),
    };
    const ofProgram = scope === "program" ? program?.id : undefined;
    const result = await callApi<List<Offer>>(c, "GET", `/v1/offers${qs({ ...filters, programId: ofProgram, start, limit: 25 })}`);
    const groupName = GROUPS.find(([g]) => g === group)![1];
    const title = `Offers: ${groupName.toLowerCase()}`;
    const whose = scope === "program" && program ? `of ${program.name}` : "of the whole account";
    const list = result.ok ? result.data : { items: [], count: 0 };
    return c.html(
      <Layout c={c} title={title} program={program} programs={programs} error={result.ok ? undefined : result.error.message}>
        <GroupNav group={group} program={program?.id} scope={scope} />
        <form method="get" action="/dashboard/offers" class="filters">
          <input type="hidden" name="group" value={group} />
          {program && <input type="hidden" name="program" value={program.id} />}
          {program && (
            <Select
              name="scope"
              label="Offers of"
              options={[
                ["program", program.name],
                ["account", "the whole account"],
              ]}
              value={scope}
            />
          )}
          {group === "expiring" && <Field name="expiresWithin" label="Expires within (days)" value={expiresWithin} hint={`Default ${DEFAULT_EXPIRING_DAYS}.`} />}
          <Field name="countryCode" label="Country" value={filters.countryCode} />
          <button type="submit">Filter</button>
        </form>
        {scope === "program" && program && (
          <p class="hint" id="offers-scope">
            {`The offers of ${program.name}: those linked to at least one of its locations, or added to it from the marketplace. `}
            An offer linked to no location yet (a new one is in Requests) belongs to no program:{" "}
            <a href={`/dashboard/offers${qs({ group, program: program.id, scope: "account" })}`}>see the whole account's offers</a>.
          </p>
        )}
        <Table caption={`${groupName} offers ${whose}`} head={["Name", "Brand", "Status", "Reward", "Start – end (local)", "Locations", "Activation"]} empty="No offers in this group.">
          {list.items.map((o) => (
            <tr>
              <td>
                <a href={`/dashboard/offers/${o.id}${qs({ program: program?.id })}`}>{o.name}</a>
              </td>
              <td>{o.brandName}</td>
              <td>
                <StatusBadge status={o.status} />
              </td>
              <td>{reward(o)}</td>
              <td>
                {o.startDate.replace("T", " ")} – {o.endDate?.replace("T", " ") ?? "—"}
              </td>
              <td>{o.locationsTotal}</td>
              <td>{o.activation.enabled ? `on (limit ${o.activation.qualifiedTransactionsLimit ?? 1})` : "off"}</td>
            </tr>
          ))}
        </Table>
        <Pager
          count={list.count}
          shown={list.items.length}
          last={"last" in list ? list.last : undefined}
          next={(s) => `/dashboard/offers${qs({ ...base, ...filters, scope: scope === "account" ? scope : undefined, start: s })}`}
        />
      </Layout>,
    );
  });

  dash.get("/offers/new", async (c) => c.html(await createForm(c, {})));

  dash.post("/offers", async (c) => {
    const f = await readForm(c);
    const result = await callApi<Offer>(c, "POST", "/v1/offers", offerInput(f));
    // A refused offer shows the form again with what was typed and the API's message.
    if (!result.ok) return c.html(await createForm(c, f, result.error.message), result.status as 400);
    return afterAction(c, result, `Offer ${result.data.name} created (requests until a location is linked).`, `/dashboard/offers/${result.data.id}${qs({ program: c.req.query("program") })}`);
  });

  dash.post("/brands", async (c) => {
    const f = await readForm(c);
    const result = await callApi(c, "POST", "/v1/brands", { name: text(f, "name") });
    return afterAction(c, result, "Brand added.", `/dashboard/offers/new${qs({ program: c.req.query("program") })}`);
  });

  dash.post("/marketplace-offers/:id/adopt", async (c) => {
    const f = await readForm(c);
    const program = text(f, "program") ?? "";
    const result = await callApi<Offer>(c, "POST", `/v1/marketplace-offers/${encodeURIComponent(c.req.param("id"))}/programs/${encodeURIComponent(program)}`, {});
    const back = result.ok ? `/dashboard/offers/${result.data.id}${qs({ program })}` : `/dashboard/offers${qs({ group: "marketplace", program })}`;
    return afterAction(c, result, "Added to the program; the brand's locations in it are linked.", back);
  });

  dash.get("/offers/:id", async (c) => {
    const { programs, program } = await programsOf(c);
    const id = encodeURIComponent(c.req.param("id"));
    const o = must(await callApi<Offer>(c, "GET", `/v1/offers/${id}`));
    const [cards, locations, activations] = await Promise.all([
      program ? callApi<List<Card>>(c, "GET", `/v1/programs/${program.id}/cards?limit=100`) : undefined,
      program ? callApi<List<Location>>(c, "GET", `/v1/programs/${program.id}/locations${qs({ brandId: o.brandId, limit: 100 })}`) : undefined,
      callApi<List<OfferActivation>>(c, "GET", `/v1/offers/${id}/cards?limit=100`),
    ]);
    const self = `/dashboard/offers/${o.id}`;
    const p = { program: program?.id ?? "" };
    return c.html(
      <Layout c={c} title={`Offer: ${o.name}`} program={program} programs={programs}>
        <dl class="facts">
          <dt>Status</dt>
          <dd>
            <StatusBadge status={o.status} />
          </dd>
          <dt>Brand</dt>
          <dd>{o.brandName}</dd>
          <dt>Reward</dt>
          <dd>{reward(o)}</dd>
          <dt>Start – end (local)</dt>
          <dd>
            {o.startDate.replace("T", " ")} – {o.endDate?.replace("T", " ") ?? "—"}
          </dd>
          <dt>Linked locations</dt>
          <dd>{o.locationsTotal}</dd>
          <dt>Days</dt>
          <dd>{o.daysOfWeek.map((d) => DAYS[d]!.slice(0, 3)).join(", ")}</dd>
          <dt>Schemes</dt>
          <dd>{o.schemes.join(", ")}</dd>
          <dt>Minimum transaction</dt>
          <dd>
            {o.minTransactionAmount} {o.currency}
          </dd>
          <dt>Return period</dt>
          <dd>{o.returnPeriod} days</dd>
          <dt>Fees</dt>
          <dd>{o.fees ? `publisher ${o.fees.publisherFee}, service ${o.fees.serviceFee}` : `feeSplit ${o.feeSplit ?? 0}`}</dd>
          <dt>Targeting</dt>
          <dd>{o.targeting ? `${o.targeting.name} ${o.targeting.from ?? ""}–${o.targeting.to ?? ""} days` : "none"}</dd>
          <dt>Activation</dt>
          <dd>{o.activation.enabled ? `required, ${o.activation.qualifiedTransactionsLimit ?? 1} qualified per activation` : "not required"}</dd>
          <dt>Origin</dt>
          <dd>
            {o.origin.type}
            {o.marketplace && `, marketplace (${o.marketplace.approval})`}
          </dd>
        </dl>
        <section aria-labelledby="link">
          <h2 id="link">Link locations</h2>
          {program && locations ? (
            <div class="actions">
              <form method="post" action={`${self}/link`} class="inline">
                <input type="hidden" name="program" value={program.id} />
                <label for="link-location">Location</label>
                <select id="link-location" name="locationId">
                  {must(locations).items.map((l) => (
                    <option value={l.id}>
                      {l.address}, {l.city}
                    </option>
                  ))}
                </select>
                <button type="submit">Link location</button>
              </form>
              <ActionButton action={`${self}/link-program`} label={`Link all of ${program.name}'s locations of the brand`} fields={p} />
            </div>
          ) : (
            <p>Create a program and a location first.</p>
          )}
        </section>
        <section aria-labelledby="activation">
          <h2 id="activation">Activation on cards</h2>
          <Table caption="Cards with this offer activated" head={["Card", "State", "Qualified", ""]} empty="No card has activated it.">
            {must(activations).items.map((a) => (
              <tr>
                <td>{a.cardId}</td>
                <td>
                  <StatusBadge status={a.state} />
                </td>
                <td>
                  {a.qualifiedTransactions} of {a.qualifiedTransactionsLimit ?? "—"}
                </td>
                <td>{a.state === "activated" && <ActionButton action={`${self}/deactivate`} label="Deactivate" fields={{ ...p, cardId: a.cardId }} />}</td>
              </tr>
            ))}
          </Table>
          {cards && (
            <form method="post" action={`${self}/activate`} class="inline">
              <input type="hidden" name="program" value={p.program} />
              <label for="activate-card">Card</label>
              <select id="activate-card" name="cardId">
                {must(cards).items.map((k) => (
                  <option value={k.id}>
                    {k.scheme} ···{k.lastNumbers}
                  </option>
                ))}
              </select>
              <button type="submit">Activate on card</button>
            </form>
          )}
        </section>
        <section aria-labelledby="extend">
          <h2 id="extend">Extend or delete</h2>
          <form method="post" action={`${self}/extend`} class="inline">
            <input type="hidden" name="program" value={p.program} />
            <label for="extend-end">New end (local)</label>
            <input id="extend-end" name="endDate" type="datetime-local" step="1" />
            <button type="submit">Extend</button>
          </form>
          <ActionButton action={`${self}/delete`} label="Delete offer" danger fields={p} />
        </section>
      </Layout>,
    );
  });

  const offerAction = (name: string, call: (c: DashContext, id: string, f: FormValues) => Promise<unknown>, done: string, after?: "list") =>
    dash.post(`/offers/:id/${name}`, async (c) => {
      const id = encodeURIComponent(c.req.param("id"));
      const f = await readForm(c);
      const result = (await call(c, id, f)) as Awaited<ReturnType<typeof callApi>>;
      const program = text(f, "program");
      const back = after === "list" && result.ok ? `/dashboard/offers${qs({ program })}` : `/dashboard/offers/${id}${qs({ program })}`;
      return afterAction(c, result, done, back);
    });
  offerAction("link", (c, id, f) => callApi(c, "POST", `/v1/offers/${id}/locations/${encodeURIComponent(text(f, "locationId") ?? "")}`, {}), "Location linked.");
  offerAction("link-program", (c, id, f) => callApi(c, "POST", `/v1/offers/${id}/programs/${encodeURIComponent(text(f, "program") ?? "")}/locations`, {}), "The program's locations of the brand are linked.");
  offerAction("activate", (c, id, f) => callApi(c, "POST", `/v1/offers/${id}/cards/${encodeURIComponent(text(f, "cardId") ?? "")}`, {}), "Activated on the card.");
  offerAction("deactivate", (c, id, f) => callApi(c, "DELETE", `/v1/offers/${id}/cards/${encodeURIComponent(text(f, "cardId") ?? "")}`), "Deactivated on the card.");
  offerAction("extend", (c, id, f) => callApi(c, "PATCH", `/v1/offers/${id}`, compact({ endDate: localDateTime(f, "endDate") })), "Offer extended.");
  offerAction("delete", (c, id) => callApi(c, "DELETE", `/v1/offers/${id}`), "Offer deleted.", "list");
}
