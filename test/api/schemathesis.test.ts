// The OpenAPI document says exactly what the server accepts: scripts/schemathesis (schemathesis pinned in
// scripts/schemathesis-requirements.txt, in a venv of its own) runs every operation of the document against
// a real `cardlink start` in three passes (test key, live key, admin token) with a bounded example count,
// and each pass must end with no 5xx and no check failed (schema violations in either direction). Locally
// it is skipped only when Python cannot make a virtual environment; under CI=true it always runs.
import { execFile, execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const SCRIPT = `${ROOT}scripts/schemathesis`;
// Few examples per operation: the coverage phase (every documented edge of every parameter) runs whatever
// the count, and the whole check stays near two minutes on two cores.
const MAX_EXAMPLES = process.env.SCHEMATHESIS_MAX_EXAMPLES ?? "3";

function pythonCanMakeVenv(): boolean {
  try {
    execFileSync("python3", ["-c", "import venv, ensurepip"], { stdio: "ignore" });
    return true;
  } catch {
    if (process.env.CI === "true") throw new Error("CI=true but python3 with venv and ensurepip is missing: the schemathesis check must run in CI");
    return false;
  }
}

interface PassSummary {
  pass: string;
  operations: number;
  requests: number;
  ok: number;
  serverErrors: number;
  violations: number;
}

const SUMMARY = /^schemathesis (\w+): operations=(\d+) requests=(\d+) 2xx=(\d+) 5xx=(\d+) violations=(\d+)/;

function summaries(stdout: string): PassSummary[] {
  return stdout.split("\n").flatMap((line) => {
    const m = SUMMARY.exec(line);
    if (!m) return [];
    const [, pass, operations, requests, ok, serverErrors, violations] = m;
    return [{ pass: pass!, operations: Number(operations), requests: Number(requests), ok: Number(ok), serverErrors: Number(serverErrors), violations: Number(violations) }];
  });
}

describe.skipIf(!pythonCanMakeVenv())("scripts/schemathesis", () => {
  it("finds no 5xx and no mismatch with the OpenAPI document in the test, live and admin passes", { timeout: 900_000 }, async () => {
    const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(
        SCRIPT,
        [],
        { env: { ...process.env, SCHEMATHESIS_MAX_EXAMPLES: MAX_EXAMPLES }, maxBuffer: 64 * 1024 * 1024 },
        (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr }),
      );
    });
    const passes = summaries(stdout);
    const report = `${stdout}\n${stderr.split("\n").slice(-40).join("\n")}`;
    expect(passes.map((p) => p.pass), report).toEqual(["test", "live", "admin"]);
    for (const p of passes) {
      expect(p.operations, `${p.pass}: operations\n${report}`).toBeGreaterThan(p.pass === "admin" ? 10 : 40);
      expect(p.ok, `${p.pass}: some requests must succeed\n${report}`).toBeGreaterThan(0);
      expect(p.serverErrors, `${p.pass}: 5xx\n${report}`).toBe(0);
      expect(p.violations, `${p.pass}: violations\n${report}`).toBe(0);
    }
    expect(code, report).toBe(0);
  });
});
