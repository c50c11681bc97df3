// The flow runner (src/flows, `cardlink run`) against a whole Cardlink on a real port: every shipped flow
// in flows/ passes; a failing expectation names the step, the expectation and what arrived, and the exit
// status is 1; a bad file is one line naming the file, line and field; --junit writes the report; and
// flows/flow.schema.json is the schema `run --schema` prints.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseFlow, FlowFileError } from "../../src/flows/parse.ts";
import { runFlows, type RunOptions } from "../../src/flows/run.ts";
import { flowJsonSchema } from "../../src/flows/schema.ts";
import { runCli, useServed } from "../support/served.ts";

const served = useServed();
const SHIPPED = readdirSync("flows").filter((f) => f.endsWith(".yaml")).sort().map((f) => join("flows", f));

const optionsFor = async (): Promise<{ options: RunOptions; keys: { test: string; live: string } }> => {
  const { s } = served;
  const account = await s.h.createAccount({ tier: "premium" });
  return {
    keys: account.keys,
    options: { url: s.url, keys: account.keys, adminToken: s.adminToken, serviceName: s.h.config.SERVICE_NAME },
  };
};

describe("shipped flows", () => {
  it.each(SHIPPED)("%s passes", async (file) => {
    const { options } = await optionsFor();
    const [result] = await runFlows([parseFlow(file)], options);
    expect(result!.steps.filter((st) => st.status !== "passed")).toEqual([]);
    expect(result!.ok).toBe(true);
  });
});
