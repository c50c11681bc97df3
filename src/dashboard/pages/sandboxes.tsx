// Sandboxes: the account's isolated environments, each with its own keys, records and clock. Listed with
// their time and expiry and the account's limit; created (the keys shown once) and deleted after a
// confirmation. Always with the signed-in key's own account: a sandbox's key answers the API's 403.
import type { Hono } from "hono";
import { chooseDashboardSandbox, type Sandbox, type SandboxWithKeys } from "../../services/accounts/index.ts";
import { callAccountApi, keySession, must, qs, type DashContext, type DashEnv, type List, type RouteContext } from "../context.ts";
import { afterAction } from "../actions.ts";
import { checked, compact, num, readForm, text, utcInstant } from "../form.ts";
import { ActionButton, Badge, Field, Layout, Pager, Select, Table } from "../layout.tsx";
import { environmentName, setFlash } from "../session.ts";
import { when } from "../components/when.ts";
import { KeysShownOnce } from "../components/keys.tsx";

const EXPIRIES = [
  ["", "A day (the default)"],
  ["3600", "An hour"],
  ["604800", "7 days"],
  ["2592000", "30 days (the most)"],
] as const;

export function mountSandboxes(dash: Hono<DashEnv>) {
  dash.get("/sandboxes", listSandboxes);
  dash.post("/sandboxes", createSandbox);
  dash.get("/sandboxes/:id/delete", confirmDelete);
  dash.post("/sandboxes/:id/delete", deleteSandbox);
}

const listSandboxes = async (c: DashContext) => c.html(<SandboxesPage c={c} list={must(await listed(c))} />);

async function createSandbox(c: DashContext) {
  const f = await readForm(c);
  const result = await callAccountApi<SandboxWithKeys>(
    c,
    "POST",
    "/v1/sandboxes",
    compact({ name: text(f, "name"), clock: { at: utcInstant(f, "at"), frozen: checked(f, "frozen") || undefined }, expiresIn: num(f, "expiresIn") }),
  );
  if (!result.ok) return afterAction(c, result, "", "/dashboard/sandboxes");
  return c.html(<SandboxCreated c={c} sandbox={result.data} />, 201);
}

async function confirmDelete(c: RouteContext<"/sandboxes/:id/delete">) {
  const sandbox = must(await callAccountApi<Sandbox>(c, "GET", `/v1/sandboxes/${encodeURIComponent(c.req.param("id"))}`));
  return c.html(<ConfirmDelete c={c} sandbox={sandbox} />);
}

async function deleteSandbox(c: RouteContext<"/sandboxes/:id/delete">) {
  const id = c.req.param("id");
  const result = await callAccountApi(c, "DELETE", `/v1/sandboxes/${encodeURIComponent(id)}`);
  const session = keySession(c);
  if (!result.ok || session.caller.account.id !== id) return afterAction(c, result, "Sandbox deleted, with everything in it.", "/dashboard/sandboxes");
  // The session was in it: back to the key's own environment, said at once rather than as a lost sandbox.
  await chooseDashboardSandbox(c.var.runtime.db, session.id, null);
  const text = `Sandbox deleted, with everything in it. You are back in the account's own ${environmentName(session)} environment.`;
  await setFlash(c, c.var.deps.secret, { kind: "ok", text });
  return c.redirect("/dashboard/sandboxes", 303);
}

const listed = (c: DashContext) => callAccountApi<List<Sandbox>>(c, "GET", `/v1/sandboxes${qs({ start: c.req.query("start"), limit: 50 })}`);

function SandboxesPage({ c, list }: { c: DashContext; list: List<Sandbox> }) {
  const limit = c.var.runtime.config.SANDBOXES_PER_ACCOUNT;
  const current = keySession(c).caller.account.id;
  return (
    <Layout c={c} title="Sandboxes">
      <p>
        A sandbox is an environment of the account's own: its own test and live keys, its own records and its own clock, which it
        moves without touching anyone else's. The workers delete it when it expires.
      </p>
      <p id="sandbox-limit">
        <strong>
          {list.count} of {limit}
        </strong>{" "}
        sandboxes used (<code>SANDBOXES_PER_ACCOUNT</code>).
      </p>
      <Table caption="Sandboxes, newest first" head={["Name", "Id", "Time", "Expires (service time)", ""]} empty="No sandboxes yet: create one below.">
        {list.items.map((s) => (
          <SandboxRow sandbox={s} current={s.id === current} />
        ))}
      </Table>
      <Pager count={list.count} shown={list.items.length} last={list.last} next={(s) => `/dashboard/sandboxes${qs({ start: s })}`} />
      <NewSandbox full={list.count >= limit} />
    </Layout>
  );
}

function SandboxRow({ sandbox: s, current }: { sandbox: Sandbox; current: boolean }) {
  return (
    <tr data-sandbox={s.id}>
      <td>
        {s.name} {current && <Badge text="Current" tone="active" />}
      </td>
      <td>
        <code>{s.id}</code>
      </td>
      <td>
        {when(s.clock.now)} <small class="hint">{s.clock.frozen ? "frozen" : "follows the service clock"}</small>
      </td>
      <td>{when(s.expiresAt)}</td>
      <td>
        <div class="actions">
          {!current && <ActionButton action="/dashboard/environment" label={`Switch to ${s.name}`} fields={{ sandbox: s.id, back: "/dashboard" }} />}
          <a href={`/dashboard/sandboxes/${s.id}/delete`}>Delete {s.name}</a>
        </div>
      </td>
    </tr>
  );
}

const NewSandbox = ({ full }: { full: boolean }) => (
  <section aria-labelledby="new-sandbox">
    <h2 id="new-sandbox">Create a sandbox</h2>
    {full && <p>The account has as many sandboxes as it may: delete one (or let one expire) first.</p>}
    <form method="post" action="/dashboard/sandboxes" class="grid">
      <Field name="name" id="sandbox-name" label="Sandbox name" required hint="Unique among the account's sandboxes." />
      <Field name="at" id="sandbox-at" label="Its time starts at (UTC)" type="datetime-local" step="1" hint="Empty: the service time." />
      <div class="field">
        <input id="sandbox-frozen" name="frozen" type="checkbox" value="true" />
        <label for="sandbox-frozen">Frozen: its time moves only when advanced</label>
      </div>
      <Select name="expiresIn" id="sandbox-expires" label="Expires in" options={EXPIRIES} />
      <div class="actions">
        <button type="submit">Create sandbox</button>
      </div>
    </form>
  </section>
);

/** The keys are shown on this page only, once; never put in a cookie or a URL. */
const SandboxCreated = ({ c, sandbox: s }: { c: DashContext; sandbox: SandboxWithKeys }) => (
  <Layout c={c} title="Sandbox created">
    <p>
      Sandbox <strong>{s.name}</strong>, id <code>{s.id}</code>: its time is {s.clock.now}
      {s.clock.frozen ? " (frozen)" : ""}, and it expires at {when(s.expiresAt)} (service time). Its keys, shown once:
    </p>
    <KeysShownOnce keys={s.keys} />
    <div class="actions">
      <ActionButton action="/dashboard/environment" label={`Switch to ${s.name}`} fields={{ sandbox: s.id, back: "/dashboard" }} />
      <a href="/dashboard/sandboxes">Back to the sandboxes</a>
    </div>
  </Layout>
);

const ConfirmDelete = ({ c, sandbox: s }: { c: DashContext; sandbox: Sandbox }) => (
  <Layout c={c} title={`Delete sandbox ${s.name}?`}>
    <p>
      Everything in it goes with it: its programs, cards, locations, offers, transactions, hooks and pending deliveries. Its keys stop
      working at once. This cannot be undone.
    </p>
    <div class="actions">
      <ActionButton action={`/dashboard/sandboxes/${s.id}/delete`} label={`Delete sandbox ${s.name}`} danger />
      <a href="/dashboard/sandboxes">Cancel</a>
    </div>
  </Layout>
);
