// `cardlink run FILE…`: runs flow files (src/cli/flows) against a running Cardlink, each in a fresh sandbox
// of the key's account (or in the sandbox --sandbox names, or the one whose key is given), and prints each
// flow's lines together as it ends: PASS or FAIL, for a failure the step, the expectation and what arrived,
// and a kept sandbox's id. `--schema` prints the flow JSON Schema; `--junit FILE` writes a JUnit report.
// The exit status is 0 when every expectation held, 1 when one did not, 2 when a file is not a valid flow.
import { writeFileSync } from "node:fs";
import { readCredentials } from "../../platform/config/credentials.ts";
import type { FlowResult } from "../flows/run.ts";
import { command, print, UsageError, wholeNumber } from "../args.ts";
import { cardlinkCommand } from "../invocation.ts";

/** A file that is not a valid flow: told apart from a failed expectation (1) so CI can tell the two. */
const INVALID_FLOW = 2;

function report(r: FlowResult): string[] {
  const lines = [`${r.ok ? "PASS" : "FAIL"} ${r.file}: ${r.name} (${r.steps.length} steps, ${r.seconds.toFixed(1)} s)`];
  if (r.failure) lines.push(`  ${r.failure}`);
  for (const s of r.steps.filter((s) => s.status === "failed")) lines.push(`  step "${s.label}" (${r.file}:${s.line}): ${s.failure}`);
  const sandbox = r.sandbox;
  if (sandbox && sandbox.outcome !== "deleted") {
    const why = sandbox.outcome === "kept" ? "kept" : `not deleted (${sandbox.outcome.notDeleted})`;
    lines.push(
      `  sandbox ${sandbox.id} (${sandbox.name}) ${why} until ${sandbox.expiresAt}: look inside with the account's key and --sandbox ${sandbox.id}; ` +
        `\`${cardlinkCommand(`sandbox delete ${sandbox.id}`)}\` deletes it`,
    );
  }
  return lines;
}

export const run = command({
  usage: `  run FILE… [--key K] [--live-key K] [--sandbox ID] [--keep] [--parallel 1] [--junit FILE] [--url URL]
                            run flow files (YAML: steps on the API, expectations on answers and webhooks), each
                            in a fresh sandbox of the key's account, deleted after unless --keep or the flow
                            failed (its report names the sandbox); --sandbox runs them in an existing one, and
                            a sandbox's own key in that sandbox; exit 0 when every expectation holds, 1
                            otherwise, 2 when a file is not a valid flow (docs/flows.md)
  run --schema              print the flow files' JSON Schema
`,
  options: {
    schema: { type: "boolean", default: false },
    junit: { type: "string" },
    url: { type: "string" },
    key: { type: "string" },
    "live-key": { type: "string" },
    sandbox: { type: "string" },
    keep: { type: "boolean", default: false },
    parallel: { type: "string", default: "1" },
  },
  positionals: true,
  async run({ values, positionals }, config) {
    if (values.schema) {
      const { flowJsonSchema } = await import("../flows/schema.ts");
      return print([JSON.stringify(flowJsonSchema(), null, 2)]);
    }
    if (positionals.length === 0) throw new UsageError("run: name one or more flow files (YAML), e.g. cardlink run flows/*.yaml");
    const parallel = wholeNumber("parallel", values.parallel, 1, 32);
    for (const [option, prefix] of [["key", "sk_test_"], ["live-key", "sk_live_"]] as const) {
      const key = values[option];
      if (key !== undefined && !key.startsWith(prefix)) throw new UsageError(`--${option}: must be a ${prefix}… secret key`);
    }
    const [{ FlowFileError, parseFlow }, { runFlows }, { junitReport }, { sandboxOption, serverUrl }] = await Promise.all([
      import("../flows/parse.ts"),
      import("../flows/run.ts"),
      import("../flows/junit.ts"),
      import("../connection.ts"),
    ]);
    const sandbox = sandboxOption(values.sandbox);

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
      process.stderr.write(errors.map((e) => `${e}\n`).join(""));
      return INVALID_FLOW;
    }

    // The keys given, else the demo account's that `npm start` keeps: never one of each.
    const demo = readCredentials(config).demo;
    const given = values.key !== undefined || values["live-key"] !== undefined;
    const keys = given ? { test: values.key, live: values["live-key"] } : { test: demo?.test, live: demo?.live };
    if (!keys.test && !keys.live) {
      throw new UsageError(`--key: give an account's key (or a sandbox's), or run \`npm start\` once: it keeps a demo account's keys in ${config.DATA_DIR}/credentials.json`);
    }
    const url = serverUrl(values.url, process.env, config.DATA_DIR);
    const results = await runFlows(flows, {
      url,
      target: { keys, sandbox, keep: values.keep },
      serviceName: config.SERVICE_NAME,
      parallel,
      onResult: (r) => print(report(r)),
    });
    const passed = results.filter((r) => r.ok).length;
    print([`${passed} of ${results.length} flows passed (${url})`]);
    if (values.junit) writeFileSync(values.junit, junitReport(results));
    return passed === results.length ? 0 : 1;
  },
});
