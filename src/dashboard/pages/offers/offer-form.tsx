// The offer creation page: a form with every field of the API's input and its defaults shown, filled
// again with what was typed when the API refuses it, and the form that adds a brand.
import { SCHEMES } from "../../../domain/card-number.ts";
import { FUNDING_TYPES, TARGETING_NAMES } from "../../../domain/offer.ts";
import { callApi, must, qs, type DashContext, type List } from "../../context.ts";
import { all, checked, compact, json, localDateTime, num, text, type FormValues } from "../../form.ts";
import { Field, Layout, Select } from "../../layout.tsx";
import { programsOf } from "../../programs.tsx";
import type { Brand } from "../../../services/catalog/index.ts";
import { DAYS, GroupNav } from "./groups.tsx";

/** The offer creation input from the form: every field of POST /v1/offers. */
export function offerInput(f: FormValues) {
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

/** The creation page, with `values` as typed and the API's refusal (`error`) when it is shown again. */
export async function createOfferPage(c: DashContext, values: FormValues, error?: string) {
  const { programs, program } = await programsOf(c);
  const brands = must(await callApi<List<Brand>>(c, "GET", "/v1/brands?limit=100"));
  const account = must(await callApi<{ id: string }>(c, "GET", "/v1/account"));
  return (
    <Layout c={c} title="Create an offer" program={program} programs={programs} error={error}>
      <GroupNav group={undefined} program={program?.id} />
      {brands.items.length === 0 && <p>Add a brand first (below).</p>}
      <OfferForm program={program?.id} brands={brands.items} publisherId={account.id} values={values} />
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

function OfferForm({ program, brands, publisherId, values }: { program: string | undefined; brands: Brand[]; publisherId: string; values: FormValues }) {
  const v = (name: string) => text(values, name);
  return (
    <form method="post" action={`/dashboard/offers${qs({ program })}`} class="grid" novalidate>
      <input type="hidden" name="publisherId" value={publisherId} />
      <Select name="brandId" label="Brand" options={brands.map((b) => [b.id, b.name] as const)} value={v("brandId")} />
      <Field name="name" label="Name" value={v("name")} />
      <Field name="countryCode" label="Country (ISO 3166-1 alpha-3)" value={v("countryCode") ?? "GBR"} hint="Decides the currency." />
      <Field name="startDate" label="Start (local to the location)" type="datetime-local" step="1" value={v("startDate")} hint="May be in the past: live at once with a linked location." />
      <Field name="endDate" label="End (local)" type="datetime-local" step="1" value={v("endDate")} hint="Default: 12 months after the start." />
      <Select name="type.name" label="Reward type" options={[["amount", "amount (a currency amount)"], ["discount", "discount (a percentage)"]]} value={v("type.name")} />
      <Field name="type.value" label="Reward value" value={v("type.value")} />
      <Field name="type.maxRewardAmount" label="Maximum reward (discount only)" value={v("type.maxRewardAmount")} hint="Default: no cap." />
      <ActivationFields values={values} />
      <DaysAndSchemes values={values} />
      <FundingFields values={values} />
      <MarketplaceFields values={values} />
      <TermsFields values={values} />
      <div class="actions">
        <button type="submit">Create offer</button>
      </div>
    </form>
  );
}

const ActivationFields = ({ values }: { values: FormValues }) => (
  <fieldset>
    <legend>Activation</legend>
    <div class="field">
      <input id="f-activation-enabled" name="activation.enabled" type="checkbox" value="true" checked={checked(values, "activation.enabled")} />
      <label for="f-activation-enabled">Cards must activate the offer</label>
    </div>
    <Field name="activation.qualifiedTransactionsLimit" label="Qualified transactions per activation" value={text(values, "activation.qualifiedTransactionsLimit") ?? "1"} hint="Default 1; at least 1." />
  </fieldset>
);

function DaysAndSchemes({ values }: { values: FormValues }) {
  const days = values.daysOfWeek === undefined ? [0, 1, 2, 3, 4, 5, 6] : all(values, "daysOfWeek").map(Number);
  const schemes = values.schemes === undefined ? [...SCHEMES] : all(values, "schemes");
  return (
    <>
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
    </>
  );
}

function FundingFields({ values }: { values: FormValues }) {
  const v = (name: string) => text(values, name);
  return (
    <>
      <Select name="funded.type" label="Funded by" options={[["", "default (you, card-linking)"], ...FUNDING_TYPES.map((t) => [t, t] as const)]} value={v("funded.type")} hint="Test environment: always you, card-linking." />
      <Field name="funded.id" label="Funding account id" value={v("funded.id")} hint="Needed for merchant or affiliate funding (live)." />
      <Field name="minTransactionAmount" label="Minimum transaction amount" value={v("minTransactionAmount") ?? "0"} hint="Default 0." />
      <Field name="maxTransactionAmount" label="Maximum transaction amount (deprecated)" value={v("maxTransactionAmount")} hint="Deprecated in favour of the maximum reward." />
      <Field name="returnPeriod" label="Return period (days)" value={v("returnPeriod") ?? "0"} hint="Default 0: qualifies at once." />
      <Field name="feeSplit" label="Performance fee (feeSplit)" value={v("feeSplit")} hint="Default 0; an amount on amount offers, a percentage on discount offers." />
    </>
  );
}

function MarketplaceFields({ values }: { values: FormValues }) {
  const v = (name: string) => text(values, name);
  return (
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
  );
}

const TermsFields = ({ values }: { values: FormValues }) => (
  <>
    <Field name="brandLogoURL" label="Brand logo URL" value={text(values, "brandLogoURL")} hint="Default none." />
    <div class="field">
      <label for="f-additionalTerms">Additional terms</label>
      <textarea id="f-additionalTerms" name="additionalTerms">{text(values, "additionalTerms") ?? ""}</textarea>
    </div>
    <div class="field">
      <label for="f-metadata">Metadata (a JSON object)</label>
      <textarea id="f-metadata" name="metadata" aria-describedby="f-metadata-hint">{text(values, "metadata") ?? ""}</textarea>
      <small id="f-metadata-hint" class="hint">Default none.</small>
    </div>
  </>
);
