// `cardlink run FILE…`: runs flow files (src/cli/flows) against a running Cardlink and prints a line per flow
// and, for a failure, the step, the expectation and what arrived; `--schema` prints the flow JSON Schema;
// `--junit FILE` writes a JUnit report. The exit status is 0 when every expectation held.
import { writeFileSync } from "node:fs";
import { knownAdminToken, readCredentials } from "../../platform/config/credentials.ts";
import type { FlowResult } from "../flows/run.ts";
import { command, print, UsageError, wholeNumber } from "../args.ts";

function report(r: FlowResult): string[] {
  const lines = [`${r.ok ? "PASS" : "FAIL"} ${r.file}: ${r.name} (${r.steps.length} steps, ${r.seconds.toFixed(1)} s)`];
  for (const s of r.steps.filter((s) => s.status === "failed")) lines.push(`  step "${s.label}" (${r.file}:${s.line}): ${s.failure}`);
  return lines;
}

export const run = command({
  usage: `  run FILE… [--junit FILE] [--url URL] [--key K] [--live-key K] [--admin-token T] [--concurrency 1]
                            run flow files (YAML: steps on the API, expectations on answers and webhooks);
                            exit 0 when every expectation holds, 1 otherwise (docs/flows.md)
  run --schema              print the flow files' JSON Schema
`,
  options: {
    schema: { type: "boolean", default: false },
    junit: { type: "string" },
    url: { type: "string" },
    key: { type: "string" },
    "live-key": { type: "string" },
    "admin-token": { type: "string" },
    concurrency: { type: "string", default: "1" },
  },
  positionals: true,
  async run({ values, positionals }, config) {
    if (values.schema) {
      const { flowJsonSchema } = await import("../flows/schema.ts");
      return print([JSON.stringify(flowJsonSchema(), null, 2)]);
    }
    if (positionals.length === 0) throw new UsageError("run: name one or more flow files (YAML), e.g. cardlink run flows/*.yaml");
    const concurrency = wholeNumber("concurrency", values.concurrency, 1, 32);
    for (const [option, prefix] of [["key", "sk_test_"], ["live-key", "sk_live_"]] as const) {
      const key = values[option];
      if (key !== undefined && !key.startsWith(prefix)) throw new UsageError(`--${option}: must be a ${prefix}… secret key`);
    }
    const [{ FlowFileError, parseFlow }, { runFlows }, { junitReport }, { serverUrl }] = await Promise.all([
      import("../flows/parse.ts"),
      import("../flows/run.ts"),
      import("../flows/junit.ts"),
      import("../connection.ts"),
    ]);

    const flows = [];
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
      print(errors);
      return 1;
    }

    const demo = readCredentials(config).demo;
    const url = serverUrl(values.url, process.env, config.DATA_DIR);
    const results = await runFlows(flows, {
      url,
      keys: { test: values.key ?? demo?.test, live: values["live-key"] ?? demo?.live },
      adminToken: values["admin-token"] ?? knownAdminToken(config),
      serviceName: config.SERVICE_NAME,
      concurrency,
    });
    for (const r of results) print(report(r));
    const passed = results.filter((r) => r.ok).length;
    print([`${passed} of ${results.length} flows passed (${url})`]);
    if (values.junit) writeFileSync(values.junit, junitReport(results));
    return passed === results.length ? 0 : 1;
  },
});
