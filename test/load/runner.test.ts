// The k6 scenarios of load/ run for real: each one on load/runner (k6's API in Node), as a process, against a
// whole Cardlink on a real port for a few seconds, with every check and threshold passing; and the runner
// fails a run as k6 does, exit 99, when a check fails under a threshold on checks.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSink } from "../../load/webhook-sink.ts";
import { expectStatus } from "../support/harness.ts";
import { useServed } from "../support/served.ts";

interface Summary {
  root_group: { checks: Record<string, { passes: number; fails: number }> };
  metrics: Record<string, Record<string, number> & { thresholds?: Record<string, boolean> }>;
}

interface Run {
  code: number | null;
  output: string;
  summary: Summary;
}

// webhook_lag compares the events' service time with the sink's wall time: the service clock runs at real time.
const served = useServed({ clockStart: new Date().toISOString(), env: { CLOCK_SPEED: "1" } });
const dir = mkdtempSync(join(tmpdir(), "cardlink-k6-"));
const sink = createSink();
let hookUrl = "";
beforeAll(async () => {
  // The clock started at clockStart once the database was open, seconds later: move it up to the wall clock.
  const behindMs = Date.now() - served.s.h.services.clock.now().getTime();
  await expectStatus(await served.s.h.admin("POST", "/admin/clock/advance", { seconds: behindMs / 1000 }), 200);
  await new Promise<void>((ok) => sink.listen(0, "127.0.0.1", ok));
  hookUrl = `http://127.0.0.1:${(sink.address() as AddressInfo).port}/webhooks`;
});
afterAll(() => new Promise<void>((ok) => sink.close(() => ok())));

/** `node load/runner/main.js run -e …  script` against the served Cardlink, with its --summary-export. */
function runScript(script: string, env: Record<string, string>): Promise<Run> {
  const exported = join(dir, `${script.replace(/\W/g, "_")}-${Object.values(env).join("_").replace(/\W/g, "")}.json`);
  const args = ["load/runner/main.js", "run", ...Object.entries(env).flatMap(([k, v]) => ["-e", `${k}=${v}`]), "--summary-export", exported, script];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      env: { ...process.env, BASE_URL: served.s.url, ADMIN_TOKEN: served.s.adminToken },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.once("error", reject);
    child.once("close", (code) => {
      clearTimeout(timer);
      let summary: Summary;
      try {
        summary = JSON.parse(readFileSync(exported, "utf8")) as Summary;
      } catch {
        reject(new Error(`${script} wrote no summary (exit ${code}):\n${output}`));
        return;
      }
      resolve({ code, output, summary });
    });
  });
}

/** Every check passed at least once and never failed; every threshold held. */
function expectAllPassed(run: Run, script: string) {
  expect(run.code, `${script}:\n${run.output}`).toBe(0);
  const checks = Object.entries(run.summary.root_group.checks);
  expect(checks.length, run.output).toBeGreaterThan(0);
  for (const [name, c] of checks) expect({ name, fails: c.fails, passed: c.passes > 0 }, run.output).toEqual({ name, fails: 0, passed: true });
  const thresholds = Object.entries(run.summary.metrics).flatMap(([metric, m]) => Object.entries(m.thresholds ?? {}).map(([rule, crossed]) => ({ metric, rule, crossed })));
  expect(thresholds.length).toBeGreaterThan(3);
  expect(thresholds.filter((t) => t.crossed), run.output).toEqual([]);
}

// A few seconds each, at a low rate, through the scripts' own settings.
const SHORT = { RATE: "5", DURATION: "3s", VUS: "10", MAX_VUS: "20" };

describe("the k6 scenarios on load/runner against a running Cardlink", () => {
  it("api-crud: lists, gets and enrols with every check and threshold passing", async () => {
    const run = await runScript("load/api-crud.js", { ...SHORT, LOCATIONS: "5", CARDS: "6" });
    expectAllPassed(run, "api-crud");
    expect(run.summary.metrics.http_reqs!.count).toBeGreaterThanOrEqual(15);
    expect(run.output).toMatch(/crud: \d+ complete and 0 interrupted iterations/);
  });

  it("test-transactions: purchases, clears and refunds, their webhooks all delivered", async () => {
    const run = await runScript("load/test-transactions.js", {
      ...SHORT,
      LOCATIONS: "2",
      CARDS: "3",
      CLEAR_SHARE: "0.5",
      REFUND_SHARE: "0.5",
      HOOK_URL: hookUrl,
      WEBHOOK_WAIT: "20",
    });
    expectAllPassed(run, "test-transactions");
    // Every purchase is cleared or refunded: both kinds ran (the clears were 400 before their empty body was {}).
    expect(run.summary.root_group.checks["clear 200"]!.passes).toBeGreaterThan(0);
    expect(run.summary.root_group.checks["refund 201"]!.passes).toBeGreaterThan(0);
    expect(run.summary.metrics.webhooks_missing!.count).toBe(0);
    expect(run.summary.metrics.webhooks_received!.count).toBeGreaterThan(0);
  });

  it("mid-insights: filters, sorts, counts and pages over seeded MIDs", async () => {
    const run = await runScript("load/mid-insights.js", { ...SHORT, SEED_COUNT: "300" });
    expectAllPassed(run, "mid-insights");
    expect(run.summary.metrics["http_req_duration{scenario:insights}"]!["p(95)"]).toBeGreaterThan(0);
  });
});

describe("a run whose checks fail", () => {
  // The same request either way; what the check expects decides the run.
  const script = join(dir, "expect-status.js");
  beforeAll(() =>
    writeFileSync(
      script,
      `import http from "k6/http";
import { check } from "k6";
export const options = {
  scenarios: { once: { executor: "per-vu-iterations", vus: 2, iterations: 2 } },
  thresholds: { checks: ["rate>0.99"], "http_req_duration{scenario:once}": ["p(95)<5000"] },
};
export default function () {
  const res = http.get(\`\${__ENV.BASE_URL}/v1/programs\`, { tags: { name: "programs without a key" } });
  check(res, { [\`answers \${__ENV.EXPECT}\`]: (r) => r.status === Number(__ENV.EXPECT) });
}
`,
    ),
  );

  it("passes, exit 0, when the check holds", async () => {
    const run = await runScript(script, { EXPECT: "401" });
    expect(run.code, run.output).toBe(0);
    expect(run.summary.root_group.checks["answers 401"]).toMatchObject({ passes: 4, fails: 0 });
    expect(run.output).toContain("✓ 'rate>0.99' rate=100.00%");
  });

  it("fails, exit 99 naming the threshold, when it does not", async () => {
    const run = await runScript(script, { EXPECT: "200" });
    expect(run.code, run.output).toBe(99);
    expect(run.summary.root_group.checks["answers 200"]).toMatchObject({ passes: 0, fails: 4 });
    expect(run.summary.metrics.checks!.thresholds).toEqual({ "rate>0.99": true });
    expect(run.output).toContain("✗ answers 200");
    expect(run.output).toContain("thresholds on metrics 'checks' have been crossed");
  });
});
