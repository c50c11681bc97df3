// MID insights (premium, live key): every filter and sort of the list, pages, export as CSV or JSON
// e-mailed to up to five recipients or the account's address (the Mail page shows the messages), and
// offboarding a MID (an offboard request).
import type { Hono } from "hono";
import { IDENTIFIER_FIELDS, ORIGINS, SORT_FIELDS, STATUS_FILTER_VALUES } from "../../domain/mid-insights.ts";
import { callApi, fetchApi, must, qs, type DashContext, type DashEnv, type List, type RouteContext } from "../context.ts";
import type { Program } from "../../services/catalog/index.ts";
import { afterAction } from "../actions.ts";
import { readForm, text, type FormValues } from "../form.ts";
import { ActionButton, Field, Layout, Pager, Select, Table } from "../layout.tsx";
import { StatusBadge, statusOptions } from "../statuses.tsx";
import { NoProgram, programsOf } from "../programs.tsx";
import type { MidInsight } from "../../services/mid-insights/index.ts";
import type { MidInsightExport as Export } from "../../services/mid-insights/index.ts";

const UUID_FILTERS = ["brandId", "locationId", "midId", "id"] as const;
const FILTERS = [...UUID_FILTERS, "lastSeenTransactionDateFrom", "lastSeenTransactionDateTo", "origin", "status", ...IDENTIFIER_FIELDS] as const;

/** The list's filters as given in the page's query (or the export form), by the API's names. */
function filtersFrom(get: (name: string) => string | undefined) {
  const out: Record<string, string> = {};
  for (const name of FILTERS) {
    const v = get(name)?.trim();
    if (v) out[name] = v;
  }
  return out;
}

const day = (iso?: string | null) => (iso ? iso.slice(0, 10) : "—");

/**
 * The API's refusal of the whole feature (a test key: 401; an account not on the premium tier: 403), said
 * with the way in; no filters and no export form, which would be refused alike.
 */
function Unavailable({ status, message }: { status: number; message: string }) {
  return (
    <section id="mid-insights-unavailable" aria-labelledby="unavailable-title">
      <h2 id="unavailable-title">Not available in this session</h2>
      <p>
        MID insights, their filters and their exports are read with an account's <strong>live</strong> secret key, on the{" "}
        <strong>premium</strong> tier.
      </p>
      {status === 401 ? (
        <p>
          To see them, sign out and sign in with the live key (<code>sk_live_…</code>; <code>npm start</code> prints it, and{" "}
          <code>POST /admin/accounts</code> shows a new account's keys once).
        </p>
      ) : (
        <p>
          This account is not on the premium tier: the operator changes an account's tier on the Operator page (sign in with the admin
          token) or with <code>PATCH /admin/accounts/{"{accountId}"}</code>.
        </p>
      )}
      <p class="hint">The API answered {status}: {message}</p>
    </section>
  );
}

export function mountMidInsights(dash: Hono<DashEnv>) {
  dash.get("/mid-insights", listMidInsights);
  dash.post("/mid-insights/export", exportMidInsights);
  dash.get("/mid-insights/exports/:id/file", downloadExport);
  dash.post("/mid-insights/offboard", offboardMid);
}

async function listMidInsights(c: DashContext) {
  const { programs, program } = await programsOf(c);
  if (!program) return c.html(<Layout c={c} title="MID insights">{NoProgram()}</Layout>);
  const filters = filtersFrom((n) => c.req.query(n));
  const sort = c.req.query("sort");
  const order = c.req.query("order");
  const limit = c.req.query("limit") ?? "25";
  const start = c.req.query("start");
  const result = await callApi<List<MidInsight>>(c, "GET", `/v1/programs/${program.id}/mid-insights${qs({ ...filters, sort, order, limit, start })}`);
  if (!result.ok && (result.status === 401 || result.status === 403)) {
    return c.html(
      <Layout c={c} title="MID insights" program={program} programs={programs}>
        <Unavailable status={result.status} message={result.error.message} />
      </Layout>,
    );
  }
  const list = result.ok ? result.data : { items: [], count: 0, last: undefined };
  const exportId = c.req.query("export");
  const exported = exportId ? must(await callApi<Export>(c, "GET", `/v1/programs/${program.id}/mid-insights/exports/${encodeURIComponent(exportId)}`)) : undefined;
  const view = { filters, sort, order, limit };
  return c.html(<MidInsightsPage c={c} programs={programs} program={program} view={view} list={list} error={result.ok ? undefined : result.error.message} exported={exported} />);
}

async function exportMidInsights(c: DashContext) {
  const f: FormValues = await readForm(c);
  const program = text(f, "program") ?? "";
  const recipients = (text(f, "recipients") ?? "")
    .split(/[\s,;]+/)
    .filter(Boolean);
  const body = {
    format: text(f, "format"),
    ...(recipients.length ? { recipients } : {}),
    filters: filtersFrom((n) => text(f, n)),
    ...(text(f, "sort") ? { sort: text(f, "sort") } : {}),
    ...(text(f, "order") ? { order: text(f, "order") } : {}),
  };
  const result = await callApi<Export>(c, "POST", `/v1/programs/${encodeURIComponent(program)}/mid-insights/exports`, body);
  const back = `/dashboard/mid-insights${qs({ program, ...(result.ok ? { export: result.data.id } : {}) })}`;
  return afterAction(c, result, "Export created.", back);
}

async function downloadExport(c: RouteContext<"/mid-insights/exports/:id/file">) {
  const program = encodeURIComponent(c.req.query("program") ?? "");
  const res = await fetchApi(c, `/v1/programs/${program}/mid-insights/exports/${encodeURIComponent(c.req.param("id"))}/file`);
  if (!res.ok) {
    const body = (await res.json()) as { error: { code: string; message: string } };
    return c.html(<Layout c={c} title="Export" error={body.error.message} />, res.status as 404);
  }
  return new Response(res.body, {
    status: 200,
    headers: {
      "content-type": res.headers.get("content-type") ?? "application/octet-stream",
      "content-disposition": res.headers.get("content-disposition") ?? "attachment",
      "cache-control": "no-store",
    },
  });
}

async function offboardMid(c: DashContext) {
  const f = await readForm(c);
  const program = text(f, "program") ?? "";
  const result = await callApi(c, "POST", `/v1/programs/${encodeURIComponent(program)}/mid-insights/offboard-requests`, {
    midInsightId: text(f, "midInsightId"),
  });
  return afterAction(c, result, "Offboard requested: the MID stays onboarded until the request completes.", `/dashboard/mid-insights${qs({ program })}`);
}

/** What the list shows: its filters, sort and page size, as the query gave them. */
interface ListView {
  filters: Record<string, string>;
  sort: string | undefined;
  order: string | undefined;
  limit: string;
}

interface MidInsightsProps {
  c: DashContext;
  programs: Program[];
  program: Program;
  view: ListView;
  list: { items: MidInsight[]; count: number; last?: string | undefined };
  error: string | undefined;
  /** The export just made, shown above the list. */
  exported: Export | undefined;
}

function MidInsightsPage({ c, programs, program, view, list, error, exported }: MidInsightsProps) {
  const { filters, sort, order, limit } = view;
  const here = { program: program.id, ...filters, sort, order, limit };
  return (
    <Layout c={c} title="MID insights" program={program} programs={programs} error={error}>
      {exported && (
        <p class="flash flash-ok" role="status">
          Export of {exported.count} insights ({exported.format}, {exported.size} bytes) e-mailed to{" "}
          {exported.mail.map((m) => `${m.recipient} (${m.status})`).join(", ")}: <a href="/dashboard/mail">see the mail</a>.{" "}
          <a href={`/dashboard/mid-insights/exports/${exported.id}/file${qs({ program: program.id })}`} download>
            Download the file
          </a>
        </p>
      )}
      <ListFilters program={program} view={view} />
      <Table caption={`MID insights (${list.count} matching)`} head={["Scheme", "Status", "Merchant", "Identifiers", "Origin", "Onboarded", "Offboarded", "Last seen", ""]} empty="No MID insights match.">
        {list.items.map((m) => (
          <InsightRow m={m} program={program} />
        ))}
      </Table>
      <Pager count={list.count} shown={list.items.length} last={list.last} next={(s) => `/dashboard/mid-insights${qs({ ...here, start: s })}`} />
      <ExportForm program={program} view={view} />
    </Layout>
  );
}

function ListFilters({ program, view: { filters, sort, order, limit } }: { program: Program; view: ListView }) {
  return (
    <details open={Object.keys(filters).length > 0}>
      <summary>Filters and sort</summary>
      <form method="get" action="/dashboard/mid-insights" class="grid">
        <input type="hidden" name="program" value={program.id} />
        <Select name="status" label="Status" options={[["", "any"], ...statusOptions(STATUS_FILTER_VALUES)]} value={filters.status} />
        <Select name="origin" label="Origin" options={[["", "any"], ...ORIGINS.map((s) => [s, s] as const)]} value={filters.origin} />
        <Field name="lastSeenTransactionDateFrom" label="Last seen from" value={filters.lastSeenTransactionDateFrom} hint="YYYY-MM-DD or a date-time." />
        <Field name="lastSeenTransactionDateTo" label="Last seen to" value={filters.lastSeenTransactionDateTo} />
        {UUID_FILTERS.map((n) => (
          <Field name={n} label={n === "id" ? "Insight id" : n} value={filters[n]} />
        ))}
        {IDENTIFIER_FIELDS.map((n) => (
          <Field name={n} label={n} value={filters[n]} />
        ))}
        <Select name="sort" label="Sort by" options={SORT_FIELDS.map((s) => [s, s] as const)} value={sort ?? "created"} />
        <Select name="order" label="Order" options={[["desc", "descending"], ["asc", "ascending"]]} value={order} />
        <Field name="limit" label="Per page" value={limit} hint="1 to 100." />
        <div class="actions">
          <button type="submit">Apply</button>
        </div>
      </form>
    </details>
  );
}

const InsightRow = ({ m, program }: { m: MidInsight; program: Program }) => (
  <tr>
    <td>{m.scheme}</td>
    <td>
      <StatusBadge status={m.status} />
    </td>
    <td>{m.cardNetworkMerchantName ?? "—"}</td>
    <td>
      {IDENTIFIER_FIELDS.filter((f) => m[f])
        .map((f) => `${f} ${m[f]}`)
        .join(", ")}
    </td>
    <td>{m.origin ?? "—"}</td>
    <td>{day(m.onboardedAt)}</td>
    <td>{day(m.offboardedAt)}</td>
    <td>{day(m.lastSeenTransactionDate)}</td>
    <td>{m.status === "onboarded" && <ActionButton action="/dashboard/mid-insights/offboard" label="Offboard" danger fields={{ program: program.id, midInsightId: m.id }} />}</td>
  </tr>
);

/** Exports what the list shows (its filters and sort), e-mailed to the recipients given or the account's address. */
const ExportForm = ({ program, view: { filters, sort, order } }: { program: Program; view: ListView }) => (
  <section aria-labelledby="export">
    <h2 id="export">Export</h2>
    <form method="post" action="/dashboard/mid-insights/export" class="grid">
      <input type="hidden" name="program" value={program.id} />
      {Object.entries(filters).map(([k, v]) => (
        <input type="hidden" name={k} value={v} />
      ))}
      {sort && <input type="hidden" name="sort" value={sort} />}
      {order && <input type="hidden" name="order" value={order} />}
      <Select name="format" label="Format" options={[["csv", "CSV"], ["json", "JSON"]]} />
      <div class="field">
        <label for="f-recipients">Recipients</label>
        <textarea id="f-recipients" name="recipients" aria-describedby="f-recipients-hint"></textarea>
        <small id="f-recipients-hint" class="hint">
          Up to five e-mail addresses, one a line or separated by commas; empty: the account's address.
        </small>
      </div>
      <div class="actions">
        <button type="submit">Export the matching insights</button>
      </div>
    </form>
  </section>
);
