// The postgres.js socket race (porsager/postgres#1154, #1208): a write buffered for a setImmediate after
// the server closed the socket threw a TypeError no caller could catch, and killed the role. Cardlink
// installs postgres.js with a guard (patches/postgres+3.4.9.patch, applied by `npm ci` through
// patch-package). The scenario runs in a child process, on the installed driver and, to show the test
// can fail, on a copy with the guard taken out again.
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { haveInfra, infra } from "../support/infra.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const SCENARIO = fileURLToPath(new URL("./fixtures/terminated-backend.mjs", import.meta.url));

function runScenario(postgresDir: string) {
  const child = spawnSync(process.execPath, [SCENARIO, join(postgresDir, "src/index.js")], {
    env: { ...process.env, DATABASE_URL: infra.databaseUrl },
    encoding: "utf8",
    timeout: 30_000,
  });
  return { status: child.status, stdout: child.stdout, stderr: child.stderr };
}

describe.skipIf(!haveInfra("databaseUrl"))("postgres.js when the server ends a backend with a write buffered", () => {
  const scratch = mkdtempSync(join(tmpdir(), "cardlink-pgjs-"));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it("the installed driver settles the queries with CONNECTION_CLOSED and the process survives", () => {
    const run = runScenario(join(ROOT, "node_modules/postgres"));
    expect(run.stderr).not.toContain("TypeError");
    expect(run.status, run.stderr).toBe(0);
    // Each query on the ended backend is rejected with a connection error (which one depends on whether the
    // close arrived as a FIN or a reset), and the pool serves the next query.
    const closed = expect.stringMatching(/^(CONNECTION_CLOSED|ECONNRESET|57P01)$/);
    expect(JSON.parse(run.stdout)).toEqual({ survived: true, reservedCodes: [closed, closed], transaction: closed, served: "ok" });
  });

  it("without the nextWrite guard the same scenario kills the process (the upstream defect is still there)", () => {
    const copy = join(scratch, "node_modules/postgres");
    cpSync(join(ROOT, "node_modules/postgres"), copy, { recursive: true });
    // Take out only the guard in nextWrite (the patch's other hunk keeps queries from hanging, which would
    // make this run end in a timeout instead of the crash it is here to show).
    const file = join(copy, "src/connection.js");
    const source = readFileSync(file, "utf8");
    const guard = /\n {4}\/\/ Cardlink patch \(porsager\/postgres#1154[\s\S]*?return false\n {4}\}/;
    expect(source).toMatch(guard);
    writeFileSync(file, source.replace(guard, ""));
    // A race: the close must reach the socket before the buffered write's setImmediate runs, about half the
    // time on a quiet machine (10 crashes in 20 runs) and less under load (none in five in one CI run), so
    // the scenario gets up to a hundred runs (a fifth of a second each) to show the crash.
    const runs: ReturnType<typeof runScenario>[] = [];
    while (runs.length < 100 && runs.at(-1)?.status !== 1) runs.push(runScenario(copy));
    const run = runs.at(-1)!;
    expect(run.status, `${runs.length} runs, none crashed`).not.toBe(0);
    expect(run.stderr).toMatch(/TypeError: Cannot read properties of null \(reading 'write'\)\s+at Immediate\.nextWrite/);
  }, 180_000);
});
