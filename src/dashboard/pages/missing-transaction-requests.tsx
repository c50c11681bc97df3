// Missing transaction requests: the program's requests with their status and result (filters and
// pages as in the API), and the form that asks a card's network for a transaction not received.
import type { Hono } from "hono";
import { SCHEMES } from "../../domain/card-number.ts";
import { callApi, must, qs, type ApiResult, type DashContext, type DashEnv, type List } from "../context.ts";
import type { Program } from "../../services/catalog/index.ts";
import { afterAction } from "../actions.ts";
import { compact, num, readForm, text } from "../form.ts";
import { Field, Layout, Pager, Select, Table, type Options } from "../layout.tsx";
import { StatusBadge, statusOptions } from "../statuses.tsx";
import { MISSING_REQUEST_STATUSES } from "../../domain/missing-transaction.ts";
import { NoProgram, programsOf } from "../programs.tsx";

interface Found {
  amount: number;
  date: string;
  networkStatus: string;
  merchantName: string;
  merchantCity: string;
  matchScore: number;
  type?: string;
  [identifier: string]: string | number | null | undefined;
}

interface MissingTransactionRequest {
  id: string;
  cardId: string;
  cardLastNumbers: string;
  locationId: string;
  amount: number;
  transactionDate: string;
  scheme: string;
  status: string;
  estimatedCompletionDate: string;
  created: string;
  result: { transactions: Found[] } | { error: { code: string; message: string } } | null;
}

const IDENTIFIERS = ["vmid", "vsid", "visaAcquiringMid", "visaBin", "visaStoreName", "mcLocationId", "mcAcquiringMid", "seNumber"];

function Result({ r }: { r: MissingTransactionRequest["result"] }) {
  if (!r) return <span>—</span>;
  if ("error" in r) {
    return (
      <span>
        <code>{r.error.code}</code>: {r.error.message}
      </span>
    );
  }
  return (
    <ul class="mids">
      {r.transactions.map((t) => (
        <li>
          {t.merchantName}, {t.merchantCity}: {t.amount} on {t.date}, {t.networkStatus}, match {t.matchScore}
          {t.type && `, ${t.type}`}
          {IDENTIFIERS.filter((k) => t[k])
            .map((k) => `, ${k} ${t[k]}`)
            .join("")}
        </li>
      ))}
    </ul>
  );
}

export function mountMissingTransactionRequests(dash: Hono<DashEnv>) {
  dash.get("/missing-transaction-requests", listRequests);
  dash.post("/missing-transaction-requests", createRequest);
}

/** The list's filters, by the API's names. */
interface RequestFilters {
  status: string | undefined;
  scheme: string | undefined;
  cardId: string | undefined;
  locationId: string | undefined;
}

async function listRequests(c: DashContext) {
  const { programs, program } = await programsOf(c);
  if (!program) return c.html(<Layout c={c} title="Missing transaction requests">{NoProgram()}</Layout>);
  const filters: RequestFilters = {
    status: c.req.query("status"),
    scheme: c.req.query("scheme"),
    cardId: c.req.query("cardId"),
    locationId: c.req.query("locationId"),
  };
  const start = c.req.query("start");
  const [result, cards, locations] = await Promise.all([
    callApi<List<MissingTransactionRequest>>(c, "GET", `/v1/programs/${program.id}/missing-transaction-requests${qs({ ...filters, start, limit: 25 })}`),
    callApi<List<{ id: string; scheme: string; firstNumbers: string; lastNumbers: string }>>(c, "GET", `/v1/programs/${program.id}/cards?limit=100`),
    callApi<List<{ id: string; address: string; city: string }>>(c, "GET", `/v1/programs/${program.id}/locations?limit=100`),
  ]);
  const cardOptions = must(cards).items.map((k) => [k.id, `${k.scheme} ${k.firstNumbers}···${k.lastNumbers}`] as const);
  const locationOptions = must(locations).items.map((l) => [l.id, `${l.address}, ${l.city}`] as const);
  const page = { c, programs, program, filters, result, cardOptions, locationOptions };
  return c.html(<RequestsPage {...page} />);
}

async function createRequest(c: DashContext) {
  const program = c.req.query("program");
  const f = await readForm(c);
  const card = encodeURIComponent(text(f, "cardId") ?? "");
  const body = compact({ locationId: text(f, "locationId"), transactionDate: text(f, "transactionDate"), amount: num(f, "amount") });
  const result = await callApi<MissingTransactionRequest>(c, "POST", `/v1/cards/${card}/missing-transaction-requests`, body);
  const done = result.ok ? `Request created: ${result.data.status}.` : "";
  return afterAction(c, result, done, `/dashboard/missing-transaction-requests${qs({ program })}`);
}

interface RequestsProps {
  c: DashContext;
  programs: Program[];
  program: Program;
  filters: RequestFilters;
  result: ApiResult<List<MissingTransactionRequest>>;
  cardOptions: Options;
  locationOptions: Options;
}

function RequestsPage({ c, programs, program, filters, result, cardOptions, locationOptions }: RequestsProps) {
  const list = result.ok ? result.data : { items: [], count: 0, last: undefined };
  const locationName = new Map(locationOptions);
  return (
    <Layout c={c} title="Missing transaction requests" program={program} programs={programs} error={result.ok ? undefined : result.error.message}>
      <NewRequest program={program} cardOptions={cardOptions} locationOptions={locationOptions} />
      <form method="get" action="/dashboard/missing-transaction-requests" class="filters">
        <input type="hidden" name="program" value={program.id} />
        <Select name="status" label="Status" options={[["", "any"], ...statusOptions(MISSING_REQUEST_STATUSES)]} value={filters.status} />
        <Select name="scheme" label="Scheme" options={[["", "any"], ...SCHEMES.map((s) => [s, s] as const)]} value={filters.scheme} />
        <Select name="cardId" label="Card" options={[["", "any"], ...cardOptions]} value={filters.cardId} />
        <Select name="locationId" label="Location" options={[["", "any"], ...locationOptions]} value={filters.locationId} />
        <button type="submit">Filter</button>
      </form>
      <Table caption="Requests, newest first" head={["Created", "Card", "Location", "Date", "Amount", "Status", "Result", "Expected"]} empty="No requests.">
        {list.items.map((r) => (
          <tr data-request={r.id}>
            <td>{r.created.slice(0, 16).replace("T", " ")}</td>
            <td>
              {r.scheme} ···{r.cardLastNumbers}
            </td>
            <td>{locationName.get(r.locationId) ?? r.locationId}</td>
            <td>{r.transactionDate}</td>
            <td>{r.amount}</td>
            <td>
              <StatusBadge status={r.status} />
            </td>
            <td>
              <Result r={r.result} />
            </td>
            <td>{r.estimatedCompletionDate.slice(0, 16).replace("T", " ")}</td>
          </tr>
        ))}
      </Table>
      <Pager count={list.count} shown={list.items.length} last={list.last} next={(s) => `/dashboard/missing-transaction-requests${qs({ program: program.id, ...filters, start: s })}`} />
    </Layout>
  );
}

/** The form that asks the card's network for a transaction not received. */
const NewRequest = ({ program, cardOptions, locationOptions }: { program: Program; cardOptions: Options; locationOptions: Options }) => (
  <section aria-labelledby="new-request">
    <h2 id="new-request">Ask the network for a transaction</h2>
    {cardOptions.length === 0 || locationOptions.length === 0 ? (
      <p>The program needs an enrolled card and a location first.</p>
    ) : (
      <form method="post" action={`/dashboard/missing-transaction-requests${qs({ program: program.id })}`} class="grid">
        <Select name="cardId" id="mtr-card" label="Card" options={cardOptions} />
        <Select name="locationId" id="mtr-location" label="Location" options={locationOptions} />
        <Field name="transactionDate" id="mtr-date" label="Transaction date" type="date" hint="Within the scheme's window: Visa and Mastercard 90 days, Amex 30." />
        <Field name="amount" id="mtr-amount" label="Amount" hint="The exact transaction value, 0 or greater." />
        <div class="actions">
          <button type="submit">Create request</button>
        </div>
      </form>
    )}
  </section>
);
