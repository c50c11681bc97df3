// Webhooks: the program's hooks (create, delete, the signing secret once), and each hook's deliveries
// with every attempt — status code, latency, next retry on the service clock — and a redeliver button.
import type { Hono } from "hono";
import { HOOK_EVENTS, type Hook, type HookWithSecret } from "../../services/webhooks/index.ts";
import type { Delivery } from "../../services/webhooks/index.ts";
import type { Program } from "../../services/catalog/index.ts";
import { callApi, must, qs, type DashContext, type DashEnv, type List, type RouteContext } from "../context.ts";
import { afterAction, localBack } from "../actions.ts";
import { readForm, text, utcInstant } from "../form.ts";
import { ActionButton, Field, Layout, Pager, Select, Table } from "../layout.tsx";
import { StatusBadge } from "../statuses.tsx";
import { listPrograms, NoProgram, programsOf } from "../programs.tsx";
import { DeliveryTable } from "../components/deliveries.tsx";
import { when } from "../components/when.ts";

export function mountWebhooks(dash: Hono<DashEnv>) {
  dash.get("/webhooks", listHooks);
  dash.post("/webhooks", addHook);
  dash.post("/webhooks/:id/delete", deleteHook);
  dash.get("/webhooks/:id", showHook);
  dash.post("/webhooks/:id/enable", (c) => enableHook(c, true));
  dash.post("/webhooks/:id/disable", (c) => enableHook(c, false));
  dash.post("/webhooks/:id/recover", recoverHook);
}

async function listHooks(c: DashContext) {
  const { programs, program } = await programsOf(c);
  if (!program) return c.html(<Layout c={c} title="Webhooks">{NoProgram()}</Layout>);
  const start = c.req.query("start");
  const hooks = must(await callApi<List<Hook>>(c, "GET", `/v1/programs/${program.id}/hooks${qs({ start, limit: 50 })}`));
  return c.html(<HooksPage c={c} programs={programs} program={program} hooks={hooks} />);
}

async function addHook(c: DashContext) {
  const program = c.req.query("program") ?? "";
  const f = await readForm(c);
  const result = await callApi<HookWithSecret>(c, "POST", `/v1/programs/${encodeURIComponent(program)}/hooks`, {
    event: text(f, "event"),
    url: text(f, "url"),
  });
  if (!result.ok) return afterAction(c, result, "", `/dashboard/webhooks${qs({ program })}`);
  // The signing secret is shown on this page only, never put in a cookie or a URL.
  return c.html(<HookAdded c={c} hook={result.data} program={program} />, 201);
}

async function deleteHook(c: RouteContext<"/webhooks/:id/delete">) {
  const f = await readForm(c);
  const result = await callApi(c, "DELETE", `/v1/hooks/${encodeURIComponent(c.req.param("id"))}`);
  return afterAction(c, result, "Hook deleted.", `/dashboard/webhooks${qs({ program: text(f, "program") })}`);
}

async function showHook(c: RouteContext<"/webhooks/:id">) {
  const id = encodeURIComponent(c.req.param("id"));
  const start = c.req.query("start");
  const [hookAnswer, deliveryPage, programs] = await Promise.all([
    callApi<Hook>(c, "GET", `/v1/hooks/${id}`),
    callApi<List<Delivery>>(c, "GET", `/v1/hooks/${id}/deliveries${qs({ start, limit: 50 })}`),
    listPrograms(c),
  ]);
  const hook = must(hookAnswer);
  const deliveries = must(deliveryPage);
  const clock = new Date(c.var.runtime.clock.now()).toISOString();
  return c.html(<HookPage c={c} programs={programs} hook={hook} deliveries={deliveries} clock={clock} />);
}

async function enableHook(c: RouteContext<"/webhooks/:id/enable" | "/webhooks/:id/disable">, enabled: boolean) {
  const f = await readForm(c);
  const result = await callApi(c, "PATCH", `/v1/hooks/${encodeURIComponent(c.req.param("id"))}`, { enabled });
  return afterAction(c, result, enabled ? "Hook re-enabled: queued deliveries go out now." : "Hook disabled: events are queued, none is sent.", localBack(text(f, "back"), "/dashboard/webhooks"));
}

async function recoverHook(c: RouteContext<"/webhooks/:id/recover">) {
  const id = encodeURIComponent(c.req.param("id"));
  const f = await readForm(c);
  const result = await callApi<{ deliveries: number }>(c, "POST", `/v1/hooks/${id}/recover`, { since: utcInstant(f, "since") ?? "" });
  const done = result.ok ? `${result.data.deliveries} failed event(s) queued again for this hook.` : "";
  return afterAction(c, result, done, `/dashboard/webhooks/${id}`);
}

/** The dispatcher's view of the hook: active, failing (paused between probes) or disabled, and why. */
function HookState({ hook }: { hook: Hook }) {
  return (
    <span>
      <StatusBadge status={hook.status} />
      {hook.status === "failing" && (
        <small class="case">
          {hook.consecutiveFailures} failures in a row{hook.pausedUntil && `, paused until ${when(hook.pausedUntil)}`}
          {hook.lastError && `: ${hook.lastError}`}
        </small>
      )}
      {hook.status === "disabled" && <small class="case">{hook.disabledReason ?? "disabled"}</small>}
    </span>
  );
}

const EnableButton = ({ hook, back }: { hook: Hook; back: string }) => (
  <ActionButton
    action={`/dashboard/webhooks/${hook.id}/${hook.status === "disabled" ? "enable" : "disable"}`}
    label={hook.status === "disabled" ? "Re-enable" : "Disable"}
    fields={{ back }}
  />
);

function HooksPage({ c, programs, program, hooks }: { c: DashContext; programs: Program[]; program: Program; hooks: List<Hook> }) {
  return (
    <Layout c={c} title="Webhooks" program={program} programs={programs}>
      <Table caption="Hooks of the program" head={["Event", "URL", "State", "Created", ""]} empty="No hooks yet: add one below.">
        {hooks.items.map((h) => (
          <tr>
            <td>
              <a href={`/dashboard/webhooks/${h.id}`}>{h.event}</a>
            </td>
            <td>{h.url}</td>
            <td>
              <HookState hook={h} />
            </td>
            <td>{when(h.created)}</td>
            <td>
              <div class="actions">
                <EnableButton hook={h} back={`/dashboard/webhooks${qs({ program: program.id })}`} />
                <ActionButton action={`/dashboard/webhooks/${h.id}/delete`} label="Delete" danger fields={{ program: program.id }} />
              </div>
            </td>
          </tr>
        ))}
      </Table>
      <Pager count={hooks.count} shown={hooks.items.length} last={hooks.last} next={(s) => `/dashboard/webhooks${qs({ program: program.id, start: s })}`} />
      <section aria-labelledby="new-hook">
        <h2 id="new-hook">Add a hook</h2>
        <form method="post" action={`/dashboard/webhooks${qs({ program: program.id })}`} class="grid">
          <Select name="event" label="Event" options={HOOK_EVENTS.map((e) => [e, e] as const)} />
          <Field name="url" label="URL" required placeholder="http://127.0.0.1:4000/webhooks" hint="http or https; a local receiver works." />
          <div class="actions">
            <button type="submit">Add hook</button>
          </div>
        </form>
      </section>
    </Layout>
  );
}

const HookAdded = ({ c, hook, program }: { c: DashContext; hook: HookWithSecret; program: string }) => (
  <Layout c={c} title="Hook added">
    <p>
      The hook for <strong>{hook.event}</strong> at <code>{hook.url}</code> is added. Its signing secret, shown once
      (verify deliveries with it, e.g. <code>npm run cardlink -- listen --secret …</code>):
    </p>
    <p>
      <code class="secret">{hook.secret}</code>
    </p>
    <p>
      <a href={`/dashboard/webhooks${qs({ program })}`}>Back to the hooks</a>
    </p>
  </Layout>
);

interface HookProps {
  c: DashContext;
  programs: Program[];
  hook: Hook;
  deliveries: List<Delivery>;
  /** Service time now, as an ISO instant. */
  clock: string;
}

function HookPage({ c, programs, hook, deliveries, clock }: HookProps) {
  return (
    <Layout c={c} title={`Hook: ${hook.event}`} program={programs.find((p) => p.id === hook.programId)} programs={programs} list={{ href: "/dashboard/webhooks", label: "Webhooks" }}>
      <dl class="facts">
        <dt>URL</dt>
        <dd>{hook.url}</dd>
        <dt>State</dt>
        <dd>
          <HookState hook={hook} /> <EnableButton hook={hook} back={`/dashboard/webhooks/${hook.id}`} />
        </dd>
        <dt>Service time now</dt>
        <dd>{when(clock)}</dd>
      </dl>
      <form method="post" action={`/dashboard/webhooks/${hook.id}/recover`} class="inline" aria-label="Recover failed events">
        <Field name="since" id="recover-since" label="Resend every event that failed here since (UTC, service time)" type="datetime-local" step="1" required />
        <button type="submit">Recover</button>
      </form>
      <DeliveryTable deliveries={deliveries.items} back={`/dashboard/webhooks/${hook.id}`} />
      <Pager count={deliveries.count} shown={deliveries.items.length} last={deliveries.last} next={(s) => `/dashboard/webhooks/${hook.id}${qs({ start: s })}`} />
    </Layout>
  );
}
