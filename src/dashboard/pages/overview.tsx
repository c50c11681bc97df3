// Overview: the program's last hour of service time in pictures — transactions per minute and their
// qualification rate, webhook delivery latency and failures — with the same figures as a table.
import type { Hono } from "hono";
import { ctxOf } from "../../api/context.ts";
import { programOverview, type Overview } from "../../services/overview.ts";
import { callApi, must, qs, type DashContext, type DashEnv, type List } from "../context.ts";
import { afterAction } from "../actions.ts";
import { readForm, text } from "../form.ts";
import { Layout, Table } from "../layout.tsx";
import { NoProgram, programsOf } from "../programs.tsx";

/** One entry per minute of the window, zero where nothing happened. */
function series(o: Overview) {
  const start = Math.floor(new Date(o.from).getTime() / 60_000) * 60_000;
  const end = new Date(o.to).getTime();
  const tx = new Map(o.transactions.map((m) => [new Date(m.minute).getTime(), m]));
  const dl = new Map(o.deliveries.map((m) => [new Date(m.minute).getTime(), m]));
  const rows = [];
  for (let t = start; t <= end; t += 60_000) {
    const m = tx.get(t);
    const d = dl.get(t);
    rows.push({
      minute: new Date(t).toISOString().slice(11, 16),
      transactions: m?.transactions ?? 0,
      qualifiedRate: m && m.transactions ? Math.round((m.qualified / m.transactions) * 1000) / 10 : null,
      latencyMs: d?.meanLatencyMs ?? null,
      failures: d?.failures ?? 0,
      attempts: d?.attempts ?? 0,
    });
  }
  return rows;
}

export function mountOverview(dash: Hono<DashEnv>) {
  dash.get("/", async (c) => {
    const { programs, program } = await programsOf(c);
    if (!program || c.var.session.kind !== "key") {
      return c.html(<Layout c={c} title="Overview">{NoProgram()}</Layout>);
    }
    const ctx = ctxOf(c.var.services, c.var.session.caller);
    const [overview, offers, hooks] = await Promise.all([
      programOverview(ctx, program.id),
      callApi<List<unknown>>(c, "GET", "/v1/offers?status=live&limit=1"),
      callApi<List<unknown>>(c, "GET", `/v1/programs/${program.id}/hooks?limit=1`),
    ]);
    const rows = series(overview);
    const total = rows.reduce((n, r) => n + r.transactions, 0);
    const attempts = rows.reduce((n, r) => n + r.attempts, 0);
    const failures = rows.reduce((n, r) => n + r.failures, 0);
    const data = JSON.stringify(rows).replace(/</g, "\\u003c");
    return c.html(
      <Layout c={c} title="Overview" program={program} programs={programs}>
        <p>
          Program <strong>{program.name}</strong> — the last hour of service time, {overview.from.slice(0, 16).replace("T", " ")} to{" "}
          {overview.to.slice(0, 16).replace("T", " ")} UTC.
        </p>
        <ul class="stats">
          <li>
            <strong>{total}</strong> transactions
          </li>
          <li>
            <strong>{must(offers).count}</strong> live offers
          </li>
          <li>
            <strong>{must(hooks).count}</strong> hooks
          </li>
          <li>
            <strong>{attempts}</strong> webhook attempts, <strong>{failures}</strong> failed
          </li>
        </ul>
        <div class="charts">
          <figure>
            <div class="chart-box">
              <canvas id="chart-transactions" role="img" aria-label="Transactions per minute and qualification rate, last hour"></canvas>
            </div>
            <figcaption>Transactions per minute and the share qualified</figcaption>
          </figure>
          <figure>
            <div class="chart-box">
              <canvas id="chart-webhooks" role="img" aria-label="Webhook delivery latency and failures per minute, last hour"></canvas>
            </div>
            <figcaption>Webhook delivery: mean latency and failed attempts per minute</figcaption>
          </figure>
        </div>
        <script type="application/json" id="overview-data" dangerouslySetInnerHTML={{ __html: data }}></script>
        <script src="/dashboard/assets/chart.umd.min.js" defer></script>
        <details>
          <summary>The figures as a table</summary>
          <Table caption="Per minute, last hour" head={["Minute (UTC)", "Transactions", "Qualified %", "Webhook attempts", "Failed", "Mean latency ms"]}>
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
      </Layout>,
    );
  });

  dash.post("/programs", async (c: DashContext) => {
    const f = await readForm(c);
    const result = await callApi<{ id: string }>(c, "POST", "/v1/programs", { name: text(f, "name") });
    return afterAction(c, result, "Program created.", `/dashboard${result.ok ? qs({ program: result.data.id }) : ""}`);
  });
}
