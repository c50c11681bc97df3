// Requests: the environment's request log (GET /v1/requests) with its filters — status or class, method,
// path, source, time — and one request's page: what it was and how it was answered, the body it sent and the
// answer's (card numbers and secrets masked by the API), and the webhook events it caused, each linked.
import type { Hono } from "hono";
import { callApi, must, qs, type ApiResult, type DashContext, type DashEnv, type List, type RouteContext } from "../context.ts";
import { Badge, Field, Layout, Pager, Select, Table } from "../layout.tsx";
import { timeOf } from "../session.ts";
import { utcInstant } from "../form.ts";
import { EventRow, eventHead } from "../components/events.tsx";
import { when } from "../components/when.ts";
import type { RequestRecord } from "../../services/request-log/index.ts";
import type { WebhookEvent } from "../../services/webhooks/index.ts";
import { REQUEST_METHODS } from "../../domain/request-log.ts";

const statusBadgeTone = (status: number) => (status < 300 ? "active" : status < 400 ? "idle" : status < 500 ? "failing" : "failed");

type RequestFilters = ReturnType<typeof filtersOf>;

/** The filters as the page's form and links carry them; `source` is the API's keys unless another is chosen. */
function filtersOf(c: DashContext) {
  const source = c.req.query("source");
  return {
    status: c.req.query("status") || undefined,
    method: c.req.query("method") || undefined,
    path: c.req.query("path") || undefined,
    source: source === undefined ? "api" : source,
    since: c.req.query("since") || undefined,
    until: c.req.query("until") || undefined,
  };
}

/** A body as the API kept it: pretty-printed when it is whole JSON. */
function BodyBlock({ id, title, body }: { id: string; title: string; body: { body: string | null; truncated: boolean } }) {
  let shown = body.body;
  if (shown !== null && !body.truncated) {
    try {
      shown = JSON.stringify(JSON.parse(shown), null, 2);
    } catch {
      // Not JSON: shown as it came.
    }
  }
  return (
    <section aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{title}</h2>
      {shown === null ? (
        <p>None.</p>
      ) : (
        <pre class="payload" id={id} tabindex={0}>
          {shown}
        </pre>
      )}
      {body.truncated && <p class="hint">Cut at 16 KiB: the log keeps the first 16,384 characters of a body.</p>}
    </section>
  );
}

export function mountRequests(dash: Hono<DashEnv>) {
  dash.get("/requests", listRequests);
  dash.get("/requests/:id", showRequest);
}

async function listRequests(c: DashContext) {
  const f = filtersOf(c);
  const start = c.req.query("start");
  const query = { ...f, since: utcInstant({ since: f.since ?? "" }, "since"), until: utcInstant({ until: f.until ?? "" }, "until") };
  const result = await callApi<List<RequestRecord>>(c, "GET", `/v1/requests${qs({ ...query, start, limit: 25 })}`);
  return c.html(<RequestsPage c={c} filters={f} result={result} />);
}

async function showRequest(c: RouteContext<"/requests/:id">) {
  const id = encodeURIComponent(c.req.param("id"));
  const [record, caused] = await Promise.all([
    callApi<RequestRecord>(c, "GET", `/v1/requests/${id}`),
    callApi<List<WebhookEvent>>(c, "GET", `/v1/requests/${id}/webhook-events?limit=100`),
  ]);
  return c.html(<RequestPage c={c} r={must(record)} events={must(caused)} />);
}

function RequestsPage({ c, filters: f, result }: { c: DashContext; filters: RequestFilters; result: ApiResult<List<RequestRecord>> }) {
  const page = result.ok ? result.data : { items: [], count: 0 };
  const { time } = timeOf(c.var.session);
  return (
    <Layout c={c} title="Requests" error={result.ok ? undefined : result.error.message}>
      <p class="hint">
        Every API request made with this environment's keys, newest first, with its answer and both bodies (card numbers and secrets
        masked). Times are {time}, UTC. <code>npm run cardlink -- logs tail</code> follows them in a terminal.
      </p>
      <form method="get" action="/dashboard/requests" class="filters">
        <Field name="status" label="Status" value={f.status} placeholder="4xx or 404" />
        <Select name="method" label="Method" options={[["", "Any method"], ...REQUEST_METHODS.map((m) => [m, m] as const)]} value={f.method} />
        <Field name="path" label="Path" value={f.path} placeholder="/v1/transactions" hint="With what is under it; * for any characters." />
        <Select
          name="source"
          label="Source"
          options={[
            ["api", "API keys"],
            ["dashboard", "This dashboard"],
            ["", "Any"],
          ]}
          value={f.source}
        />
        <Field name="since" label="From (UTC)" type="datetime-local" step="1" value={f.since} />
        <Field name="until" label="To (UTC)" type="datetime-local" step="1" value={f.until} />
        <button type="submit">Filter</button>
      </form>
      <Table caption="Requests, newest first" head={[`When (${time})`, "Method", "Path", "Status", "Error", "Latency", ""]} id="requests" empty="No requests match.">
        {page.items.map((r) => (
          <RequestRow r={r} />
        ))}
      </Table>
      <Pager count={page.count} shown={page.items.length} last={page.last} next={(s) => `/dashboard/requests${qs({ ...f, start: s })}`} />
    </Layout>
  );
}

const RequestRow = ({ r }: { r: RequestRecord }) => (
  <tr data-request={r.id}>
    <td>{when(r.created)}</td>
    <td>{r.method}</td>
    <td>
      <code>{r.path}</code>
    </td>
    <td>
      <Badge text={String(r.status)} tone={statusBadgeTone(r.status)} />
    </td>
    <td>{r.errorCode ?? "—"}</td>
    <td>{r.latencyMs} ms</td>
    <td>
      <a href={`/dashboard/requests/${r.id}`} aria-label={`Open request ${r.method} ${r.path} ${r.id}`}>
        Open
      </a>
    </td>
  </tr>
);

function RequestPage({ c, r, events }: { c: DashContext; r: RequestRecord; events: List<WebhookEvent> }) {
  const { time } = timeOf(c.var.session);
  return (
    <Layout c={c} title={`${r.method} ${r.path}`}>
      <dl class="facts">
        <dt>Request id</dt>
        <dd>
          <code>{r.id}</code> <small class="hint">The Request-Id header of its answer.</small>
        </dd>
        <dt>Answer</dt>
        <dd>
          <Badge text={String(r.status)} tone={statusBadgeTone(r.status)} /> {r.errorCode ?? ""} in {r.latencyMs} ms
        </dd>
        <dt>When ({time})</dt>
        <dd>{when(r.created)}</dd>
        <dt>Query</dt>
        <dd>{r.query ? <code>{r.query}</code> : "—"}</dd>
        <dt>Key</dt>
        <dd>
          <code>{r.keyId}</code> ({r.live ? "live" : "test"}, {r.source === "dashboard" ? "from this dashboard" : "over the API"})
        </dd>
        <dt>Idempotency-Key</dt>
        <dd>{r.idempotencyKey ? <code>{r.idempotencyKey}</code> : "—"}</dd>
      </dl>
      <BodyBlock id="request-body" title="Request body" body={r.request} />
      <BodyBlock id="response-body" title="Answer body" body={r.response} />
      <h2>Webhooks it caused</h2>
      <p class="hint">
        The events about what the request made or changed{r.resourceId ? <> (<code>{r.resourceId}</code>)</> : ""}, from the request on,
        newest first; a later request on the same record adds its own.
      </p>
      <Table caption="Webhook events the request caused" head={eventHead(c)} id="caused-events" empty="None: the request made or changed nothing that sends webhooks.">
        {events.items.map((e) => (
          <EventRow e={e} />
        ))}
      </Table>
      <p>
        <a href="/dashboard/requests">All requests</a>
      </p>
    </Layout>
  );
}
