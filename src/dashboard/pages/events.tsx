// Events: the program's webhook events with their payloads and where each stands, filtered by event,
// status, transaction and service time; one event with its payload and every attempt of every delivery —
// the request headers sent and the answer (status, latency, first 4 KB of the body) — and a resend button,
// which the deliveries' redeliver buttons on other pages post here too.
import type { Hono } from "hono";
import { HOOK_EVENTS } from "../../services/webhooks/index.ts";
import { EVENT_STATUSES, type WebhookEvent, type WebhookEventDetail } from "../../services/webhooks/index.ts";
import type { Program } from "../../services/catalog/index.ts";
import { callApi, must, qs, type ApiResult, type DashContext, type DashEnv, type List, type RouteContext } from "../context.ts";
import { afterAction, localBack } from "../actions.ts";
import { readForm, text } from "../form.ts";
import { ActionButton, Field, Layout, Pager, Select, Table } from "../layout.tsx";
import { StatusBadge, statusOptions } from "../statuses.tsx";
import { listPrograms, NoProgram, programsOf } from "../programs.tsx";
import { setFlash, timeOf } from "../session.ts";
import { EventRow, eventHead } from "../components/events.tsx";
import { when } from "../components/when.ts";

/** A `datetime-local` value (read as UTC, as every time on these pages) as the API's ISO instant. */
const instant = (local: string | undefined) => {
  if (!local) return undefined;
  return /^\d{4}-\d\d-\d\dT\d\d:\d\d$/.test(local) ? `${local}:00Z` : /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/.test(local) ? `${local}Z` : local;
};

type EventFilters = ReturnType<typeof filtersOf>;

function filtersOf(c: DashContext) {
  return {
    event: c.req.query("event") || undefined,
    status: c.req.query("status") || undefined,
    transactionId: c.req.query("transactionId") || undefined,
    from: c.req.query("from") || undefined,
    to: c.req.query("to") || undefined,
  };
}

export function mountEvents(dash: Hono<DashEnv>) {
  dash.get("/events", listEvents);
  dash.get("/events/:id", showEvent);
  dash.post("/webhook-events/:eventId/redeliver", redeliverEvent);
}

async function listEvents(c: DashContext) {
  const { programs, program } = await programsOf(c);
  if (!program) return c.html(<Layout c={c} title="Events">{NoProgram()}</Layout>);
  const f = filtersOf(c);
  const start = c.req.query("start");
  const query = { ...f, from: instant(f.from), to: instant(f.to) };
  const result = await callApi<List<WebhookEvent>>(c, "GET", `/v1/programs/${program.id}/webhook-events${qs({ ...query, start, limit: 25 })}`);
  return c.html(<EventsPage c={c} programs={programs} program={program} filters={f} result={result} />);
}

async function showEvent(c: RouteContext<"/events/:id">) {
  const [answer, programs] = await Promise.all([
    callApi<WebhookEventDetail>(c, "GET", `/v1/webhook-events/${encodeURIComponent(c.req.param("id"))}`),
    listPrograms(c),
  ]);
  return c.html(<EventPage c={c} programs={programs} e={must(answer)} />);
}

async function redeliverEvent(c: RouteContext<"/webhook-events/:eventId/redeliver">) {
  const f = await readForm(c);
  const back = localBack(text(f, "back"), "/dashboard/webhooks");
  const result = await callApi<{ deliveries: number }>(c, "POST", `/v1/webhook-events/${encodeURIComponent(c.req.param("eventId"))}/redeliver`, {});
  if (result.ok) await setFlash(c, c.var.deps.secret, { kind: "ok", text: `Queued again for ${result.data.deliveries} hook(s).` });
  return result.ok ? c.redirect(back, 303) : afterAction(c, result, "", back);
}

interface EventsProps {
  c: DashContext;
  programs: Program[];
  program: Program;
  filters: EventFilters;
  result: ApiResult<List<WebhookEvent>>;
}

function EventsPage({ c, programs, program, filters: f, result }: EventsProps) {
  const page = result.ok ? result.data : { items: [], count: 0 };
  return (
    <Layout c={c} title="Events" program={program} programs={programs} error={result.ok ? undefined : result.error.message}>
      <p class="hint">
        Every webhook event of the program, newest first, with the payload its deliveries carry. Times are {timeOf(c.var.session).time}, UTC.
      </p>
      <form method="get" action="/dashboard/events" class="filters">
        <input type="hidden" name="program" value={program.id} />
        <Select name="event" label="Event" options={[["", "Any event"], ...HOOK_EVENTS.map((e) => [e, e] as const)]} value={f.event} />
        <Select name="status" label="Status" options={[["", "Any status"], ...statusOptions(EVENT_STATUSES)]} value={f.status} />
        <Field name="transactionId" label="Transaction id" value={f.transactionId} />
        <Field name="from" label="From (UTC)" type="datetime-local" step="1" value={f.from} />
        <Field name="to" label="To (UTC)" type="datetime-local" step="1" value={f.to} />
        <button type="submit">Filter</button>
      </form>
      <Table caption="Webhook events, newest first" head={eventHead(c)} id="events" empty="No events match.">
        {page.items.map((e) => (
          <EventRow e={e} />
        ))}
      </Table>
      <Pager count={page.count} shown={page.items.length} last={page.last} next={(s) => `/dashboard/events${qs({ program: program.id, ...f, start: s })}`} />
    </Layout>
  );
}

function EventPage({ c, programs, e }: { c: DashContext; programs: Program[]; e: WebhookEventDetail }) {
  const back = `/dashboard/events/${e.id}`;
  return (
    <Layout c={c} title={`Event: ${e.event}`} program={programs.find((p) => p.id === e.programId)} programs={programs} list={{ href: "/dashboard/events", label: "Events" }}>
      <dl class="facts">
        <dt>Event id (webhook-id)</dt>
        <dd>
          <code>{e.id}</code>
        </dd>
        <dt>Status</dt>
        <dd>
          <StatusBadge status={e.status} />
        </dd>
        <dt>When ({timeOf(c.var.session).time})</dt>
        <dd>{when(e.created)}</dd>
        <dt>Transaction</dt>
        <dd>{e.transactionId ? <a href={`/dashboard/transactions/${e.transactionId}`}>{e.transactionId}</a> : "—"}</dd>
      </dl>
      <div class="actions">
        <ActionButton action={`/dashboard/webhook-events/${e.id}/redeliver`} label="Resend" fields={{ back }} />
      </div>
      <h2>Payload</h2>
      <pre class="payload" id="payload" tabindex={0}>
        {JSON.stringify(e.payload, null, 2)}
      </pre>
      <h2>Deliveries</h2>
      {e.deliveries.length === 0 && <p>No hook was registered for this event when it happened. Resend sends it to the hooks registered for it now.</p>}
      {e.deliveries.map((d, i) => (
        <EventDelivery d={d} i={i} />
      ))}
    </Layout>
  );
}

/** One delivery of the event: to which hook, where it stands, and each attempt's request headers and answer. */
function EventDelivery({ d, i }: { d: WebhookEventDetail["deliveries"][number]; i: number }) {
  return (
    <section class="delivery" aria-labelledby={`delivery-${i}`} data-delivery={d.id}>
      <h3 id={`delivery-${i}`}>
        To <code>{d.url}</code> <StatusBadge status={d.status} />
      </h3>
      <p>
        <a href={`/dashboard/webhooks/${d.hookId}`}>The hook</a>
        {d.nextAttempt && ` — next attempt at ${when(d.nextAttempt)} (service time)`}
      </p>
      {d.attempts.length === 0 && <p>Not attempted yet.</p>}
      {d.attempts.map((a) => (
        <details class="attempt" open={a.attempt === d.attempts.length}>
          <summary>
            Attempt {a.attempt}: {a.responseCode !== null ? `answered ${a.responseCode}` : (a.error ?? "no answer")} in {a.latencyMs} ms, at {when(a.attempted)}
            {a.retryAfterMs !== null && `, asked to retry after ${Math.round(a.retryAfterMs / 1000)} s`}
          </summary>
          <h4>Request headers</h4>
          <pre class="request-headers">
            {a.requestHeaders ? Object.entries(a.requestHeaders).map(([k, v]) => `${k}: ${v}`).join("\n") : "Not recorded for this attempt."}
          </pre>
          <h4>Response body (first 4 KB)</h4>
          <pre class="response-body">{a.responseBody === null ? "No answer." : a.responseBody === "" ? "(empty)" : a.responseBody}</pre>
        </details>
      ))}
    </section>
  );
}
