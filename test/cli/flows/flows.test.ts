// The flow runner (src/cli/flows, `cardlink run`) against a whole Cardlink on a real port: every shipped flow
// in flows/ passes; a failing expectation names the step, the expectation and what arrived, and the exit
// status is 1; a bad file is one line naming the file, line and field; --junit writes the report; and
// flows/flow.schema.json is the schema `run --schema` prints.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseFlow, FlowFileError } from "../../../src/cli/flows/parse.ts";
import { runFlows, type RunOptions } from "../../../src/cli/flows/run.ts";
import { flowJsonSchema } from "../../../src/cli/flows/schema.ts";
import { runCli, useServed } from "../../support/served.ts";

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

const FAILING = `name: Expectations that do not hold
steps:
  - id: account
    get: { path: /v1/account }
  - id: program
    program: { name: "Flow: failing \${run}" }
  - id: brand
    brand: { name: "Failing \${run}" }
  - id: location
    location: { programId: "\${program.id}", brandId: "\${brand.id}", address: "9 Flow Street", city: London, postcode: SW1A 1AJ, countryCode: GBR }
  - id: card
    card: { programId: "\${program.id}", number: "4444000000004065", expMonth: 12, expYear: 2030, countryCode: GBR, termsOfUse: true }
  - id: offer
    offer: { brandId: "\${brand.id}", countryCode: GBR, name: 10% off, publisherId: "\${account.id}", startDate: "\${days(-1)}", type: { name: discount, value: 10 } }
  - link: { offerId: "\${offer.id}", locationId: "\${location.id}" }
  - id: purchase
    purchase: { cardId: "\${card.id}", locationId: "\${location.id}", amount: 42 }
    expect:
      body: { offer.qualified: true }
      webhooks:
        - event: transaction.auth.qualified
          count: 2
          within: 1s
  - name: never run
    get: { path: /v1/account }
`;

describe("flows side by side", () => {
  it("runs flows at once, each in its own program with its own webhooks", async () => {
    const { options } = await optionsFor();
    // Flows that do not move the clock: each one's expectations count only its own program's events.
    const files = ["flows/qualification.yaml", "flows/refund.yaml", "flows/missing-transactions.yaml"];
    const results = await runFlows(files.map((f) => parseFlow(f)), { ...options, concurrency: 3 });
    expect(results.map((r) => [r.file, r.ok, r.steps.filter((st) => st.status !== "passed")])).toEqual(files.map((f) => [f, true, []]));
  });
});

describe("cardlink run", () => {
  it("runs files as a process: PASS and FAIL lines, the failing step, its expectation and what arrived, exit 1, a JUnit report", async () => {
    const { s } = served;
    const { keys } = await optionsFor();
    const dir = mkdtempSync(join(tmpdir(), "cardlink-flows-"));
    const failing = join(dir, "failing.yaml");
    writeFileSync(failing, FAILING);
    const junit = join(dir, "report.xml");
    const result = await runCli(["run", "flows/refund.yaml", failing, "--junit", junit, "--url", s.url, "--key", keys.test, "--admin-token", s.adminToken]);
    expect(result.stderr).toBe("");
    expect(result.status).toBe(1);
    const lines = result.stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^PASS flows\/refund\.yaml: Refunds \(15 steps, [\d.]+ s\)$/);
    expect(lines[1]).toMatch(new RegExp(`^FAIL ${failing}: Expectations that do not hold \\(9 steps`));
    expect(lines[2]).toMatch(
      new RegExp(
        `^  step "purchase" \\(${failing}:16\\): expect\\.webhooks\\[0\\]: 2 × transaction\\.auth\\.qualified within 1s, got 1; ` +
          `arrived since the step: .*transaction\\.auth\\.qualified [0-9a-f-]{36}`,
      ),
    );
    expect(lines.at(-1)).toBe(`1 of 2 flows passed (${s.url})`);
    const xml = readFileSync(junit, "utf8");
    expect(xml).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<testsuites name="cardlink flows" tests="24" failures="1" skipped="1"/);
    expect(xml).toContain(`<testsuite name="Refunds" file="flows/refund.yaml" tests="15" failures="0" skipped="0"`);
    expect(xml).toMatch(/<testcase classname="[^"]+failing\.yaml" name="purchase" [^>]*><failure message="expect\.webhooks\[0\]: 2 × transaction\.auth\.qualified/);
    expect(xml).toMatch(/name="never run" [^>]*><skipped message="an earlier step failed"\/><\/testcase>/);
  });

  it("names the step, the field, what was expected and what came for a body expectation", async () => {
    const { options } = await optionsFor();
    const flow = parseFlow("inline.yaml", FAILING.replace("body: { offer.qualified: true }", "body: { offer.qualified: true, offer.cashback: { $gt: 10 } }"));
    const [result] = await runFlows([flow], options);
    expect(result!.ok).toBe(false);
    expect(result!.steps.find((st) => st.status === "failed")).toMatchObject({
      label: "purchase",
      failure: expect.stringMatching(/^expect\.body: offer\.cashback: expected \$gt 10, got 4\.2 \(POST \/v1\/transactions\/test answered 201: \{/),
    });
  });

  it("refuses a bad file in one line naming the file, the line and the field", () => {
    const bad = (text: string) => {
      try {
        parseFlow("bad.yaml", text);
      } catch (err) {
        if (err instanceof FlowFileError) return err.message;
        throw err;
      }
      throw new Error("parsed");
    };
    expect(bad("name: x\nsteps:\n  - program: {}\n  - buy: { amount: 1 }\n")).toBe("bad.yaml:4: steps[1]: name one action: " + "program, brand, brand-consent, location, card, offer, update-offer, link, activate, hook, purchase, clear, void, refund, missing-transaction-request, sync, advance-clock, get");
    expect(bad("name: x\nsteps:\n  - id: p\n    program: {}\n  - refund: { amount: 1 }\n")).toBe("bad.yaml:5: steps[1].refund.transactionId: required");
    expect(bad("name: x\nsteps:\n  - refund: { transactionId: \"${purchase.id}\" }\n")).toMatch(/^bad\.yaml:3: steps\[0\]\.refund\.transactionId: \$\{purchase\.id\}: no step before this one has id purchase/);
    expect(bad("name: x\nsteps:\n  - get: { path: /v1/account }\n    expect:\n      webhooks:\n        - event: card.created\n")).toMatch(/^bad\.yaml:6: steps\[0\]\.expect\.webhooks\[0\]\.event: /);
    expect(bad("name: x\nsteps:\n  - get: { path: /v1/account }\n    expect: { stauts: 200 }\n")).toBe("bad.yaml:4: steps[0].expect: unknown field stauts");
    expect(bad("name: x\nsteps:\n  - get: { path: \"/v1/offers?from=${days}\" }\n")).toMatch(/^bad\.yaml:3: steps\[0\]\.get\.path: \$\{days\}: the builtins are/);
    expect(bad("steps: []\n")).toBe("bad.yaml:1: name: required");
    expect(bad("name: x\nsteps: [\n")).toMatch(/^bad\.yaml:\d+: not YAML: /);
  });

  it("prints the JSON Schema with --schema, the one committed as flows/flow.schema.json", async () => {
    const printed = await runCli(["run", "--schema"]);
    expect(printed.status).toBe(0);
    expect(JSON.parse(printed.stdout)).toEqual(flowJsonSchema());
    // Regenerate with: npm run --silent cardlink -- run --schema > flows/flow.schema.json
    expect(JSON.parse(readFileSync("flows/flow.schema.json", "utf8"))).toEqual(flowJsonSchema());
    const missing = await runCli(["run", "flows/nope.yaml"]);
    expect(missing).toMatchObject({ status: 1, stdout: "flows/nope.yaml: no such file\n" });
  });
});
