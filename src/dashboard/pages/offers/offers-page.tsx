// The offers of a group (requests, upcoming, live, expiring soon, expired) of the program or the whole
// account, with their filters, and the marketplace's offers not yet added to a program.
import { SCHEMES } from "../../../domain/card-number.ts";
import { CHANNELS } from "../../../domain/offer-marketplace.ts";
import { DEFAULT_EXPIRING_DAYS } from "../../../domain/offer-status.ts";
import { qs, type ApiResult, type DashContext, type List } from "../../context.ts";
import { ActionButton, Field, Layout, Pager, Select, Table } from "../../layout.tsx";
import { StatusBadge } from "../../statuses.tsx";
import type { Program } from "../../../services/catalog/index.ts";
import type { MarketplaceOfferView, Offer } from "../../../services/offers/index.ts";
import { GROUPS, GroupNav, reward, type Group, type Scope } from "./groups.tsx";

/** A group's filters by the API's names: the brand and country asked for, and the group as a status or an expiry window. */
export interface OfferFilters {
  brandId: string | undefined;
  countryCode: string | undefined;
  expiresWithin?: string;
  status?: Group;
}

interface OffersProps {
  c: DashContext;
  programs: Program[];
  program: Program | undefined;
  group: Group;
  scope: Scope;
  filters: OfferFilters;
  expiresWithin: string;
  result: ApiResult<List<Offer>>;
}

export function OffersPage({ c, programs, program, group, scope, filters, expiresWithin, result }: OffersProps) {
  const groupName = GROUPS.find(([g]) => g === group)![1];
  const title = `Offers: ${groupName.toLowerCase()}`;
  const whose = scope === "program" && program ? `of ${program.name}` : "of the whole account";
  const list = result.ok ? result.data : { items: [], count: 0 };
  const base = { group, program: program?.id };
  return (
    <Layout c={c} title={title} program={program} programs={programs} error={result.ok ? undefined : result.error.message}>
      <GroupNav group={group} program={program?.id} scope={scope} />
      <GroupFilters program={program} group={group} scope={scope} filters={filters} expiresWithin={expiresWithin} />
      {scope === "program" && program && (
        <p class="hint" id="offers-scope">
          {`The offers of ${program.name}: those linked to at least one of its locations, or added to it from the marketplace. `}
          An offer linked to no location yet (a new one is in Requests) belongs to no program:{" "}
          <a href={`/dashboard/offers${qs({ group, program: program.id, scope: "account" })}`}>see the whole account's offers</a>.
        </p>
      )}
      <Table caption={`${groupName} offers ${whose}`} head={["Name", "Brand", "Status", "Reward", "Start – end (local)", "Locations", "Activation"]} empty="No offers in this group.">
        {list.items.map((o) => (
          <OfferRow o={o} program={program} />
        ))}
      </Table>
      <Pager
        count={list.count}
        shown={list.items.length}
        last={"last" in list ? list.last : undefined}
        next={(s) => `/dashboard/offers${qs({ ...base, ...filters, scope: scope === "account" ? scope : undefined, start: s })}`}
      />
    </Layout>
  );
}

function GroupFilters({ program, group, scope, filters, expiresWithin }: Pick<OffersProps, "program" | "group" | "scope" | "filters" | "expiresWithin">) {
  return (
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
  );
}

const OfferRow = ({ o, program }: { o: Offer; program: Program | undefined }) => (
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
);

/** The marketplace's filters, by the API's names. */
export interface MarketplaceFilters {
  brandName: string | undefined;
  countryCode: string | undefined;
  scheme: string | undefined;
  channel: string | undefined;
  availability: string | undefined;
  sort: string | undefined;
  order: string | undefined;
}

interface MarketplaceProps {
  c: DashContext;
  programs: Program[];
  program: Program | undefined;
  filters: MarketplaceFilters;
  list: List<MarketplaceOfferView>;
}

export function MarketplacePage({ c, programs, program, filters, list }: MarketplaceProps) {
  const base = { group: "marketplace", program: program?.id };
  return (
    <Layout c={c} title="Offers: marketplace" program={program} programs={programs}>
      <GroupNav group="marketplace" program={program?.id} />
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
          <MarketplaceRow o={o} program={program} />
        ))}
      </Table>
      <Pager count={list.count} shown={list.items.length} last={list.last} next={(s) => `/dashboard/offers${qs({ ...base, ...filters, start: s })}`} />
    </Layout>
  );
}

const MarketplaceRow = ({ o, program }: { o: MarketplaceOfferView; program: Program | undefined }) => (
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
);
