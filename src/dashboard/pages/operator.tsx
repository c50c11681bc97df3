// Operator (admin token): the service clock and its advance buttons, faults per simulated network,
// generated traffic (start with rate and seed, stop), accounts and their tiers.
import type { Hono } from "hono";
import { LOOKUP_ERROR_CODES } from "../../platform/bus/messages.ts";
import { SCHEMES } from "../../domain/scheme.ts";
import { callApi, must, qs, type ApiResult, type DashContext, type DashEnv, type List, type RouteContext } from "../context.ts";
import { afterAction } from "../actions.ts";
import { all, compact, num, readForm, text } from "../form.ts";
import { ActionButton, Field, Layout, Pager, Select, Table } from "../layout.tsx";
import type { Account, AccountWithKeys } from "../../services/accounts/index.ts";
import { KeysShownOnce } from "../components/keys.tsx";

interface Clock {
  now: string;
  mode: string;
  speed: number;
}
type Faults = Record<string, number | string>;
interface Traffic {
  run: { id: string; options: Record<string, unknown>; state: string; started: string; stopped: string | null } | null;
  counts: Record<string, { purchases: number; planned: number | null; dropped: number; duplicated: number } | undefined>;
  achievedRate: number | null;
}
const ADVANCES = [
  ["1 hour", { hours: 1 }],
  ["1 day", { days: 1 }],
  ["4 days", { days: 4 }],
  ["1 week", { days: 7 }],
  ["30 days", { days: 30 }],
] as const;

const RATES = ["dropRate", "duplicateRate", "clearingBeforeAuthRate", "onboardingFailureRate", "lookupErrorRate"] as const;

export function mountOperator(dash: Hono<DashEnv>) {
  dash.get("/operator", showOperator);
  dash.post("/operator/clock", advanceClock);
  dash.post("/operator/faults/:scheme", setFaults);
  dash.post("/operator/faults/:scheme/clear", clearFaults);
  dash.post("/operator/traffic/start", startTraffic);
  dash.post("/operator/traffic/stop", stopTraffic);
  dash.post("/operator/accounts", createAccount);
  dash.post("/operator/accounts/:id/tier", changeTier);
}

async function showOperator(c: DashContext) {
  const start = c.req.query("start");
  const [clock, traffic, accounts, ...faults] = await Promise.all([
    callApi<Clock>(c, "GET", "/admin/clock"),
    callApi<Traffic>(c, "GET", "/admin/simulators/traffic"),
    callApi<List<Account>>(c, "GET", `/admin/accounts${qs({ start, limit: 25 })}`),
    ...SCHEMES.map((s) => callApi<Faults>(c, "GET", `/admin/simulators/${s}/faults`)),
  ]);
  return c.html(<OperatorPage c={c} clock={must(clock)} traffic={must(traffic)} accounts={must(accounts)} faults={faults} />);
}

async function advanceClock(c: DashContext) {
  const f = await readForm(c);
  const by = compact({ days: num(f, "days"), hours: num(f, "hours"), minutes: num(f, "minutes"), seconds: num(f, "seconds") });
  const result = await callApi<Clock>(c, "POST", "/admin/clock/advance", by);
  return afterAction(c, result, result.ok ? `Service time is now ${result.data.now}.` : "", "/dashboard/operator");
}

async function setFaults(c: RouteContext<"/operator/faults/:scheme">) {
  const f = await readForm(c);
  const body = compact({
    latencyMs: num(f, "latencyMs"),
    ...Object.fromEntries(RATES.map((r) => [r, num(f, r)])),
    lookupErrorCode: text(f, "lookupErrorCode"),
  });
  const scheme = encodeURIComponent(c.req.param("scheme"));
  const result = await callApi(c, "PATCH", `/admin/simulators/${scheme}/faults`, body);
  return afterAction(c, result, `Faults of ${c.req.param("scheme")} set.`, "/dashboard/operator");
}

async function clearFaults(c: RouteContext<"/operator/faults/:scheme/clear">) {
  const scheme = encodeURIComponent(c.req.param("scheme"));
  const result = await callApi(c, "DELETE", `/admin/simulators/${scheme}/faults`);
  return afterAction(c, result, `Faults of ${c.req.param("scheme")} cleared.`, "/dashboard/operator");
}

async function startTraffic(c: DashContext) {
  const f = await readForm(c);
  const schemes = all(f, "schemes");
  const body = compact({
    rate: num(f, "rate"),
    seed: num(f, "seed"),
    durationSeconds: num(f, "durationSeconds"),
    programId: text(f, "programId"),
    schemes,
  });
  const result = await callApi(c, "POST", "/admin/simulators/traffic/start", body);
  return afterAction(c, result, "Traffic started.", "/dashboard/operator");
}

async function stopTraffic(c: DashContext) {
  const result = await callApi(c, "POST", "/admin/simulators/traffic/stop", {});
  return afterAction(c, result, "Traffic stopped.", "/dashboard/operator");
}

async function createAccount(c: DashContext) {
  const f = await readForm(c);
  const result = await callApi<AccountWithKeys>(
    c,
    "POST",
    "/admin/accounts",
    compact({ name: text(f, "name"), email: text(f, "email"), tier: text(f, "tier") }),
  );
  if (!result.ok) return afterAction(c, result, "", "/dashboard/operator");
  // The keys are shown on this page only, once; never put in a cookie or a URL.
  return c.html(<AccountCreated c={c} a={result.data} />, 201);
}

async function changeTier(c: RouteContext<"/operator/accounts/:id/tier">) {
  const f = await readForm(c);
  const result = await callApi(c, "PATCH", `/admin/accounts/${encodeURIComponent(c.req.param("id"))}`, { tier: text(f, "tier") });
  return afterAction(c, result, "Tier changed.", "/dashboard/operator");
}

interface OperatorProps {
  c: DashContext;
  clock: Clock;
  traffic: Traffic;
  accounts: List<Account>;
  /** Each scheme's faults, in the order of SCHEMES. */
  faults: ApiResult<Faults>[];
}

const OperatorPage = ({ c, clock, traffic, accounts, faults }: OperatorProps) => (
  <Layout c={c} title="Operator">
    <ServiceClock now={clock} />
    <section aria-labelledby="faults">
      <h2 id="faults">Faults per scheme</h2>
      <div class="cards">
        {SCHEMES.map((s, i) => (
          <SchemeFaults scheme={s} f={must(faults[i]!)} />
        ))}
      </div>
    </section>
    <GeneratedTraffic t={traffic} />
    <Accounts accounts={accounts} />
  </Layout>
);

const ServiceClock = ({ now }: { now: Clock }) => (
  <section aria-labelledby="clock">
    <h2 id="clock">Service clock</h2>
    <p>
      Service time <strong id="clock-now">{now.now}</strong> — {now.mode}
      {now.mode === "scaled" && `, ${now.speed}× real time`}.
    </p>
    <div class="actions">
      {ADVANCES.map(([label, by]) => (
        <ActionButton action="/dashboard/operator/clock" label={`Advance ${label}`} fields={Object.fromEntries(Object.entries(by).map(([k, v]) => [k, String(v)]))} />
      ))}
    </div>
    <form method="post" action="/dashboard/operator/clock" class="grid">
      <Field name="days" id="adv-days" label="Days" />
      <Field name="hours" id="adv-hours" label="Hours" />
      <Field name="minutes" id="adv-minutes" label="Minutes" />
      <Field name="seconds" id="adv-seconds" label="Seconds" />
      <div class="actions">
        <button type="submit">Advance by this much</button>
      </div>
    </form>
  </section>
);

const SchemeFaults = ({ scheme: s, f }: { scheme: string; f: Faults }) => (
  <form method="post" action={`/dashboard/operator/faults/${s}`} class="card" aria-label={`${s} faults`}>
    <h3>{s}</h3>
    <Field name="latencyMs" id={`${s}-latencyMs`} label="Latency (ms)" value={f.latencyMs} />
    {RATES.map((r) => (
      <Field name={r} id={`${s}-${r}`} label={r.replace(/Rate$/, " rate")} value={f[r]} hint="0 to 1" />
    ))}
    <Select name="lookupErrorCode" id={`${s}-lookupErrorCode`} label="Look-up error code" options={LOOKUP_ERROR_CODES.map((e) => [e, e] as const)} value={String(f.lookupErrorCode)} />
    <div class="actions">
      <button type="submit">Set {s} faults</button>
      <button type="submit" formaction={`/dashboard/operator/faults/${s}/clear`}>
        Clear
      </button>
    </div>
  </form>
);

const GeneratedTraffic = ({ t }: { t: Traffic }) => (
  <section aria-labelledby="traffic">
    <h2 id="traffic">Generated traffic</h2>
    <p>
      {t.run
        ? t.run.state === "running"
          ? `Run ${t.run.id}: running since ${t.run.started}`
          : `Run ${t.run.id}: ${t.run.state} at ${t.run.stopped} (started ${t.run.started})`
        : "No run yet."}{" "}
      {t.achievedRate !== null ? `${t.achievedRate} purchases/s. ` : ""}
      {Object.entries(t.counts)
        .filter(([, n]) => n)
        .map(([s, n]) => `${s}: ${n!.purchases} purchases${n!.planned !== null ? ` of ${n!.planned}` : ""}`)
        .join("; ")}
    </p>
    <form method="post" action="/dashboard/operator/traffic/start" class="grid">
      <Field name="rate" id="traffic-rate" label="Rate (purchases a second)" value="5" />
      <Field name="seed" id="traffic-seed" label="Seed" value="1" />
      <Field name="durationSeconds" id="traffic-duration" label="Duration (seconds)" hint="Empty: until stopped." />
      <Field name="programId" id="traffic-program" label="Program id" hint="Empty: every program." />
      <fieldset>
        <legend>Schemes (default all three)</legend>
        {SCHEMES.map((s) => (
          <span class="check">
            <input id={`traffic-${s}`} type="checkbox" name="schemes" value={s} checked />
            <label for={`traffic-${s}`}>{s}</label>
          </span>
        ))}
      </fieldset>
      <div class="actions">
        <button type="submit">Start traffic</button>
        <button type="submit" formaction="/dashboard/operator/traffic/stop">
          Stop traffic
        </button>
      </div>
    </form>
  </section>
);

const Accounts = ({ accounts }: { accounts: List<Account> }) => (
  <section aria-labelledby="accounts">
    <h2 id="accounts">Accounts and tiers</h2>
    <Table caption="Accounts, newest first" head={["Name", "Id", "Tier", "Created", ""]}>
      {accounts.items.map((a) => (
        <tr>
          <td>{a.name}</td>
          <td>
            <code>{a.id}</code>
          </td>
          <td>{a.tier}</td>
          <td>{a.created.slice(0, 10)}</td>
          <td>
            <ActionButton action={`/dashboard/operator/accounts/${a.id}/tier`} label={a.tier === "premium" ? "Make standard" : "Make premium"} fields={{ tier: a.tier === "premium" ? "standard" : "premium" }} />
          </td>
        </tr>
      ))}
    </Table>
    <Pager count={accounts.count} shown={accounts.items.length} last={accounts.last} next={(s) => `/dashboard/operator${qs({ start: s })}`} />
    <form method="post" action="/dashboard/operator/accounts" class="grid">
      <Field name="name" id="account-name" label="Account name" required />
      <Field name="email" id="account-email" label="E-mail" type="email" hint="Where exports go by default." />
      <Select name="tier" id="account-tier" label="Tier" options={[["standard", "standard"], ["premium", "premium"]]} />
      <div class="actions">
        <button type="submit">Create account</button>
      </div>
    </form>
  </section>
);

const AccountCreated = ({ c, a }: { c: DashContext; a: AccountWithKeys }) => (
  <Layout c={c} title="Account created">
    <p>
      <strong>{a.name}</strong> ({a.tier}), id <code>{a.id}</code>. Its keys, shown once:
    </p>
    <KeysShownOnce keys={a.keys} />
    <p>
      <a href="/dashboard/operator">Back to the operator page</a>
    </p>
  </Layout>
);
