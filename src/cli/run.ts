// `cardlink run FILE…`: runs flow files (src/flows) against a running Cardlink and prints a line per flow
// and, for a failure, the step, the expectation and what arrived; `--schema` prints the flow JSON Schema;
// `--junit FILE` writes a JUnit report. The exit status is 0 when every expectation held.
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import type { Config } from "../config/index.ts";
import { knownAdminToken, readCredentials } from "../config/credentials.ts";
import { flowJsonSchema, type Flow } from "../flows/schema.ts";
import { FlowFileError, parseFlow } from "../flows/parse.ts";
import { runFlows, type FlowResult } from "../flows/run.ts";
import { junitReport } from "../flows/junit.ts";
import { OptionError, serverUrl, type Usage } from "./connection.ts";

export async function runCommand(args: string[], config: Config, usage: Usage, out: (line: string) => void): Promise<{ ok: boolean }> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      schema: { type: "boolean", default: false },
      junit: { type: "string" },
      url: { type: "string" },
      key: { type: "string" },
      "live-key": { type: "string" },
      "admin-token": { type: "string" },
      concurrency: { type: "string", default: "1" },
    },
  });
  if (values.schema) {
    out(JSON.stringify(flowJsonSchema(), null, 2));
    return { ok: true };
  }
  if (positionals.length === 0) throw usage("run: name one or more flow files (YAML), e.g. cardlink run flows/*.yaml");
  const concurrency = Number(values.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 32) throw new OptionError("--concurrency: must be a whole number from 1 to 32");
  for (const [option, prefix] of [["key", "sk_test_"], ["live-key", "sk_live_"]] as const) {
    const key = values[option];
    if (key !== undefined && !key.startsWith(prefix)) throw new OptionError(`--${option}: must be a ${prefix}… secret key`);
  }

  const flows: Flow[] = [];
  const errors: string[] = [];
  for (const file of positionals) {
    try {
      flows.push(parseFlow(file));
    } catch (err) {
      if (err instanceof FlowFileError) errors.push(err.message);
      else if ((err as NodeJS.ErrnoException).code === "ENOENT") errors.push(`${file}: no such file`);
      else throw err;
    }
  }
  if (errors.length > 0) {
    for (const e of errors) out(e);
    return { ok: false };
  }

  const demo = readCredentials(config).demo;
  const url = serverUrl(values.url, process.env, usage, config.DATA_DIR);
  const results = await runFlows(flows, {
    url,
    keys: { test: values.key ?? demo?.test, live: values["live-key"] ?? demo?.live },
    adminToken: values["admin-token"] ?? knownAdminToken(config),
    serviceName: config.SERVICE_NAME,
    concurrency,
  });
  for (const r of results) for (const line of report(r)) out(line);
  const passed = results.filter((r) => r.ok).length;
  out(`${passed} of ${results.length} flows passed (${url})`);
  if (values.junit) writeFileSync(values.junit, junitReport(results));
  return { ok: passed === results.length };
}

function report(r: FlowResult): string[] {
  const lines = [`${r.ok ? "PASS" : "FAIL"} ${r.file}: ${r.name} (${r.steps.length} steps, ${r.seconds.toFixed(1)} s)`];
  for (const s of r.steps.filter((s) => s.status === "failed")) lines.push(`  step "${s.label}" (${r.file}:${s.line}): ${s.failure}`);
  return lines;
}
