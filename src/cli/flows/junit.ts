// The JUnit XML report of a run (`cardlink run --junit FILE`): a testsuite per flow (with the sandbox it
// ran in as a property), a testcase per step, a failure with the step's expectation and what arrived,
// skipped for the steps after a failure; a flow whose sandbox could not be made has a `sandbox` testcase
// in error before its skipped steps.
import type { FlowResult } from "./run.ts";

const escape = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" })[c]!)
    // XML 1.0 has no place for most control characters.
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, "");

const time = (s: number) => s.toFixed(3);

export function junitReport(results: FlowResult[]): string {
  const count = (status: string) => results.reduce((n, r) => n + r.steps.filter((s) => s.status === status).length, 0);
  const errors = results.filter((r) => r.failure).length;
  const tests = results.reduce((n, r) => n + r.steps.length, 0) + errors;
  const total = results.reduce((n, r) => n + r.seconds, 0);
  const lines = [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<testsuites name="cardlink flows" tests="${tests}" failures="${count("failed")}" errors="${errors}" skipped="${count("skipped")}" time="${time(total)}">`,
  ];
  for (const r of results) {
    const failures = r.steps.filter((s) => s.status === "failed").length;
    const skipped = r.steps.filter((s) => s.status === "skipped").length;
    const flowErrors = r.failure ? 1 : 0;
    lines.push(
      `  <testsuite name="${escape(r.name)}" file="${escape(r.file)}" tests="${r.steps.length + flowErrors}" failures="${failures}" errors="${flowErrors}" ` +
        `skipped="${skipped}" time="${time(r.seconds)}">`,
    );
    if (r.sandbox) {
      const { id, expiresAt, outcome } = r.sandbox;
      const after = outcome === "deleted" ? "deleted" : outcome === "kept" ? `kept until ${expiresAt}` : `not deleted (${outcome.notDeleted}), until ${expiresAt}`;
      lines.push(`    <properties><property name="sandbox" value="${escape(id)}"/><property name="sandbox.after" value="${escape(after)}"/></properties>`);
    }
    if (r.failure) lines.push(`    <testcase classname="${escape(r.file)}" name="sandbox" file="${escape(r.file)}" time="0.000"><error message="${escape(r.failure)}"/></testcase>`);
    for (const s of r.steps) {
      const open = `    <testcase classname="${escape(r.file)}" name="${escape(s.label)}" file="${escape(r.file)}" line="${s.line}" time="${time(s.seconds)}"`;
      if (s.status === "passed") lines.push(`${open}/>`);
      else if (s.status === "skipped") lines.push(`${open}><skipped message="${escape(r.failure ? "the flow's sandbox could not be made" : "an earlier step failed")}"/></testcase>`);
      else lines.push(`${open}><failure message="${escape(s.failure ?? "")}">${escape(s.failure ?? "")}</failure></testcase>`);
    }
    lines.push(`  </testsuite>`);
  }
  lines.push(`</testsuites>`, "");
  return lines.join("\n");
}
