// Overview: a window of the program's service time (the last hour unless asked) in pictures — transactions per minute and their
// qualification rate, webhook delivery latency and failures — with the same figures as a table.
import type { Hono } from "hono";
import { ctxOf } from "../../api/context.ts";
import { OVERVIEW_MAX_DAYS, programOverview, type Overview } from "../../services/webhooks/index.ts";
import { callApi, must, qs, type DashContext, type DashEnv, type List } from "../context.ts";
import { Field, Layout, Table } from "../layout.tsx";
import { NoProgram, programsOf } from "../programs.tsx";
import { timeOf } from "../session.ts";
import { DAY_MS, HOUR_MS, MINUTE_MS } from "../../domain/time-units.ts";
import type { Program } from "../../services/catalog/index.ts";

const STEP_MS = { minute: MINUTE_MS, hour: HOUR_MS, day: DAY_MS } as const;

/** One entry per minute (hour, day) of the window, zero where nothing happened. */
function series(o: Overview) {
  const step = STEP_MS[o.bucket];
  const start = Math.floor(new Date(o.from).getTime() / step) * step;
  const end = new Date(o.to).getTime();
  const tx = new Map(o.transactions.map((m) => [new Date(m.minute).getTime(), m]));
  const dl = new Map(o.deliveries.map((m) => [new Date(m.minute).getTime(), m]));
  const label = (t: number) => {
    const iso = new Date(t).toISOString();
    return o.bucket === "minute" ? iso.slice(11, 16) : o.bucket === "hour" ? `${iso.slice(5, 10)} ${iso.slice(11, 16)}` : iso.slice(0, 10);
  };
  const rows = [];
  for (let t = start; t <= end; t += step) {
    const m = tx.get(t);
    const d = dl.get(t);
    rows.push({
      minute: label(t),
      transactions: m?.transactions ?? 0,
      qualifiedRate: m && m.transactions ? Math.round((m.qualified / m.transactions) * 1000) / 10 : null,
      latencyMs: d?.meanLatencyMs ?? null,
      failures: d?.failures ?? 0,
      attempts: d?.attempts ?? 0,
    });
  }
  return rows;
}

/** A `datetime-local` value, read as UTC, or undefined when absent or not a time. */
function utc(value: string | undefined): Date | undefined {
  if (!value || !/^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d)?$/.test(value)) return undefined;
  const d = new Date(`${value}Z`);
  return Number.isNaN(d.getTime()) ? undefined : d;
}

const local = (iso: string) => iso.slice(0, 16);
const shown = (iso: string) => iso.slice(0, 16).replace("T", " ");

/** The window the page was asked for (`from`/`to`, UTC), or the last hour of service time; why, when it cannot be shown. */
function windowOf(c: DashContext, now: Date): { from: Date; to: Date; problem?: string } {
  const hourBack = (to: Date) => new Date(to.getTime() - HOUR_MS);
  const asked = { from: c.req.query("from"), to: c.req.query("to") };
  const from = utc(asked.from);
  const to = utc(asked.to);
  if ((asked.from && !from) || (asked.to && !to)) return { from: hourBack(now), to: now, problem: "from and to must be dates and times (UTC)." };
  const end = to ?? (from ? new Date(Math.min(now.getTime(), from.getTime() + HOUR_MS)) : now);
  const start = from ?? hourBack(end);
  if (end <= start) return { from: hourBack(now), to: now, problem: "to must be later than from." };
  if (end.getTime() - start.getTime() > OVERVIEW_MAX_DAYS * DAY_MS) {
    return { from: hourBack(now), to: now, problem: `A window is at most ${OVERVIEW_MAX_DAYS} days.` };
  }
  return { from: start, to: end };
}

export function mountOverview(dash: Hono<DashEnv>) {
  dash.get("/", showOverview);
}

async function showOverview(c: DashContext) {
  const { programs, program } = await programsOf(c);
  if (!program || c.var.session.kind !== "key") {
    return c.html(<Layout c={c} title="Overview">{NoProgram()}</Layout>);
  }
  const ctx = ctxOf(c.var.runtime, c.var.session.caller);
  const now = ctx.clock.now();
  const window = windowOf(c, now);
  const [overview, offers, hooks, latest] = await Promise.all([
    programOverview(ctx, program.id, window),
    callApi<List<unknown>>(c, "GET", "/v1/offers?status=live&limit=1"),
    callApi<List<unknown>>(c, "GET", `/v1/programs/${program.id}/hooks?limit=1`),
    callApi<List<{ created: string }>>(c, "GET", `/v1/programs/${program.id}/transactions?limit=1`),
  ]);
  const newest = must(latest).items[0]?.created;
  const counts = { liveOffers: must(offers).count, hooks: must(hooks).count };
  return c.html(<OverviewPage c={c} programs={programs} program={program} now={now} problem={window.problem} overview={overview} counts={counts} newest={newest} />);
}

interface OverviewProps {
  c: DashContext;
  programs: Program[];
  program: Program;
  now: Date;
  /** Why the window asked for is not the one shown. */
  problem: string | undefined;
  overview: Overview;
  counts: { liveOffers: number; hooks: number };
  /** When the program's latest transaction happened, if it has any. */
  newest: string | undefined;
}

/** The page's link to a window of the program's service time. */
const windowLink = (program: Program, from: Date, to: Date) =>
  `/dashboard${qs({ program: program.id, from: local(from.toISOString()), to: local(to.toISOString()) })}`;

function OverviewPage({ c, programs, program, now, problem, overview, counts, newest }: OverviewProps) {
  const rows = series(overview);
  const total = rows.reduce((n, r) => n + r.transactions, 0);
  const attempts = rows.reduce((n, r) => n + r.attempts, 0);
  const failures = rows.reduce((n, r) => n + r.failures, 0);
  const named = timeOf(c.var.session);
  return (
    <Layout c={c} title="Overview" program={program} programs={programs} error={problem}>
      <p>
        Program <strong>{program.name}</strong> — {named.time} {shown(overview.from)} to {shown(overview.to)} UTC ({named.clock} is at{" "}
        {shown(now.toISOString())}).
      </p>
      <form method="get" action="/dashboard" class="filters" aria-label="Window">
        <input type="hidden" name="program" value={program.id} />
        <Field name="from" label="From (UTC)" type="datetime-local" value={local(overview.from)} />
        <Field name="to" label="To (UTC)" type="datetime-local" value={local(overview.to)} />
        <div class="actions">
          <button type="submit">Show</button>
          <a href={`/dashboard${qs({ program: program.id })}`}>Last hour</a>
          <a href={windowLink(program, new Date(now.getTime() - DAY_MS), now)}>Last day</a>
          <a href={windowLink(program, new Date(now.getTime() - 7 * DAY_MS), now)}>Last 7 days</a>
        </div>
      </form>
      {total === 0 && attempts === 0 && <EmptyWindow program={program} from={overview.from} newest={newest} time={named.time} />}
      <ul class="stats">
        <li>
          <strong>{total}</strong> transactions
        </li>
        <li>
          <strong>{counts.liveOffers}</strong> live offers
        </li>
        <li>
          <strong>{counts.hooks}</strong> hooks
        </li>
        <li>
          <strong>{attempts}</strong> webhook attempts, <strong>{failures}</strong> failed
        </li>
      </ul>
      <Figures rows={rows} unit={overview.bucket} />
    </Layout>
  );
}

/** Nothing happened in the window: where the program's latest transaction is, and how to make one. */
function EmptyWindow({ program, from, newest, time }: { program: Program; from: string; newest: string | undefined; time: string }) {
  const around = (iso: string) => {
    const t = Math.floor(new Date(iso).getTime() / MINUTE_MS) * MINUTE_MS;
    return windowLink(program, new Date(t - 30 * MINUTE_MS), new Date(t + 30 * MINUTE_MS));
  };
  return (
    <div class="empty-window" role="note" id="empty-window">
      <p>
        <strong>Nothing happened in this window.</strong>{" "}
        {newest
          ? new Date(newest) < new Date(from)
            ? `The program's latest transaction is earlier, at ${shown(newest)} UTC (${time}) — the clock may have been advanced since.`
            : `The program's latest transaction is at ${shown(newest)} UTC (${time}).`
          : "The program has no transactions yet."}
      </p>
      <ul>
        {newest && (
          <li>
            <a href={around(newest)}>Show the hour around the latest transaction</a>
          </li>
        )}
        <li>
          <a href={`/dashboard/transactions${qs({ program: program.id })}`}>Send a test purchase</a>, or run{" "}
          <code>npm run cardlink -- trigger transaction.auth.qualified</code>.
        </li>
        <li>
          <a href={`/dashboard/events${qs({ program: program.id })}`}>See every webhook event of the program</a>, whenever it happened.
        </li>
      </ul>
    </div>
  );
}

/** The charts (drawn by the page's script from the figures it carries) and the same figures as a table. */
function Figures({ rows, unit }: { rows: ReturnType<typeof series>; unit: Overview["bucket"] }) {
  const data = JSON.stringify(rows).replace(/</g, "\\u003c");
  return (
    <>
      <div class="charts">
        <figure>
          <div class="chart-box">
            <canvas id="chart-transactions" role="img" aria-label={`Transactions per ${unit} and qualification rate`}></canvas>
          </div>
          <figcaption>Transactions per {unit} and the share qualified</figcaption>
        </figure>
        <figure>
          <div class="chart-box">
            <canvas id="chart-webhooks" role="img" aria-label={`Webhook delivery latency and failures per ${unit}`}></canvas>
          </div>
          <figcaption>Webhook delivery: mean latency and failed attempts per {unit}</figcaption>
        </figure>
      </div>
      <script type="application/json" id="overview-data" data-unit={unit} dangerouslySetInnerHTML={{ __html: data }}></script>
      <script src="/dashboard/assets/chart.umd.min.js" defer></script>
      <details>
        <summary>The figures as a table</summary>
        <Table caption={`Per ${unit}`} head={[`${unit[0]!.toUpperCase()}${unit.slice(1)} (UTC)`, "Transactions", "Qualified %", "Webhook attempts", "Failed", "Mean latency ms"]}>
          {rows
            .filter((r) => r.transactions || r.attempts)
            .map((r) => (
              <tr>
                <td>{r.minute}</td>
                <td>{r.transactions}</td>
                <td>{r.qualifiedRate ?? "—"}</td>
                <td>{r.attempts}</td>
                <td>{r.failures}</td>
                <td>{r.latencyMs ?? "—"}</td>
              </tr>
            ))}
        </Table>
      </details>
    </>
  );
}
